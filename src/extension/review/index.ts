/** Review, Keep and Undo of the files each agent changed. */
export { ChangeReview, type ChangeReviewDeps, type FileUndoOutcome, type ReviewOpened, type UndoOutcome } from './changeReview';
export { ChangedFilesIndex, filesChangedText, type ChangedFileNode } from './changedFiles';
export { AgentsWithChangesTree, type AgentsViewNode } from './changesTree';
export { ORIGINAL_SCHEME, OriginalContentProvider, recordedUri, type RecordedSide } from './originalContent';
