/** Review, Keep and Undo of the files each agent changed, and how those files show in the Agents view. */
// Review, Keep and Undo load with the first of their commands (src/extension/parts.ts): only their types are here.
export type { ChangeReview, ChangeReviewDeps, FileUndoOutcome, ReviewOpened, UndoOutcome } from './changeReview';
export { ChangedFilesIndex } from './changedFiles';
export { filesChangedText, type ChangedFileNode } from './changedFileNode';
export { changedFileItem, changedFilesTooltip } from './changedFileItem';
export { ORIGINAL_SCHEME, OriginalContentProvider, recordedUri, type RecordedSide } from './originalContent';
