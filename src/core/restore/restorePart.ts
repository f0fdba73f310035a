/**
 * The restore's part (core/parts.ts): keeping each live root's live-state record and putting the
 * tree back from them. It loads when the first agent of a window goes live or a window restores,
 * so what every activation loads holds only the small LiveRecords in front of it.
 */
export { LiveRecorder } from './liveRecorder';
export { LiveRecordFiles } from './liveRecordFiles';
export { restoreLive } from './restoreLive';
