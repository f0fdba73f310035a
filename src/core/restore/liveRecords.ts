import type { Agent } from '../agents/agent';
import type { LiveRootRecord } from './liveRecord';
import type { LiveRecordExtras, LiveRecorder } from './liveRecorder';

/**
 * What the runtime and the editor hold of the live-state records: the recorder (liveRecorder.ts)
 * behind it is made, and its part loaded, when the first agent goes live, so a window that runs
 * no agent never loads it. What the editor says it keeps (describeWith) waits here until then.
 */
export class LiveRecords {
  private recorder: LiveRecorder | undefined;
  private extras: LiveRecordExtras = {};

  constructor(private readonly make: () => LiveRecorder) {}

  /** The editor says what it keeps of agents (ended rows, worktrees); each part may add its own. */
  describeWith(extras: LiveRecordExtras): void {
    this.extras = { ...this.extras, ...extras };
    this.recorder?.describeWith(extras);
  }

  /** Something the record of `agent`'s root says changed: the recorder is made on the first one. */
  changed(agent: Agent): void {
    this.started().changed(agent);
  }

  /** Writes every changed root's record now. */
  flush(): Promise<void> {
    return this.recorder?.flush() ?? Promise.resolve();
  }

  /** The window's last moment (see LiveRecorder.flushSync); nothing to write when no agent ever went live. */
  flushSync(): void {
    this.recorder?.flushSync();
  }

  /** Resolves once no write started before is still under way. */
  settled(): Promise<void> {
    return this.recorder?.settled() ?? Promise.resolve();
  }

  stop(): void {
    this.recorder?.stop();
  }

  /** The record of a live root as it stands. */
  recordOf(root: Agent): LiveRootRecord {
    return this.started().recordOf(root);
  }

  private started(): LiveRecorder {
    if (!this.recorder) {
      this.recorder = this.make();
      this.recorder.describeWith(this.extras);
    }
    return this.recorder;
  }
}
