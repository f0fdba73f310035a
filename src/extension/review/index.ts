/** Review, Keep and Undo of the files each agent changed, and how those files show in the Agents view. */
export { ChangeReview, type ChangeReviewDeps, type FileUndoOutcome, type ReviewOpened, type UndoOutcome } from './changeReview';
export { ChangedFilesIndex } from './changedFiles';
export { filesChangedText, type ChangedFileNode } from './changedFileNode';
export { changedFileItem, changedFilesTooltip } from './changedFileItem';
export { ORIGINAL_SCHEME, OriginalContentProvider, recordedUri, type RecordedSide } from './originalContent';
