/**
 * Restore: the live-state record of each root (what the Agents view shows of it and its live
 * subtree), kept beside the sessions, and putting the tree back from it when a window starts.
 */
export { LIVE_RECORD_VERSION, liveRootRecordSchema, type EndedRowRecord, type LiveAgentRecord, type LiveRootRecord, type LiveRunRecord, type WorktreeLinkRecord } from './liveRecord';
export { LIVE_RECORD_FOLDER, LiveRecordFiles, type LiveRecordProblem } from './liveRecordFiles';
export { LiveRecorder, type LiveRecordExtras, type LiveRecorderDeps } from './liveRecorder';
export { restoreLive, type RestoredAgent, type RestoreHost, type RestoreLiveOptions, type RestoreProblem, type RestoreReport } from './restoreLive';
