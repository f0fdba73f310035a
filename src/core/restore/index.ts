/**
 * Restore: the live-state record of each root (what the Agents view shows of it and its live
 * subtree), kept beside the sessions, and putting the tree back from it when a window starts.
 */
export { LIVE_RECORD_VERSION, liveRootRecordSchema, type EndedRowRecord, type LiveAgentRecord, type LiveRootRecord, type LiveRunRecord, type WorktreeLinkRecord } from './liveRecord';
export { LIVE_RECORD_FOLDER, LiveRecordFiles } from './liveRecordFiles';
export type { LiveRecordProblem } from './liveRecordReading';
export { LiveRecorder, type LiveRecordExtras, type LiveRecorderDeps } from './liveRecorder';
export { LiveRecords } from './liveRecords';
// Putting the tree back loads when a window restores (core/parts.ts): only its types pass this door.
export type { RestoredAgent, RestoreHost, RestoreLiveOptions, RestoreProblem, RestoreReport } from './restoreLive';
