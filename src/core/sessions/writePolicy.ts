/** How a session log batches its writes; a store passes one policy to all its logs. */
export interface JsonlWritePolicy {
  /** How long an appended event may wait in memory before a write starts (ms). */
  flushDelayMs: number;
  /** A write starts at once when this much text is waiting. */
  maxBufferedBytes: number;
  /**
   * Also fsync every write. Off by default: a written line survives the extension host
   * crashing, which is the failure sessions must survive; fsync adds power-loss safety at
   * several milliseconds per turn.
   */
  fsync: boolean;
  /**
   * fsync the writes a `flush()` waits for (the runtime flushes at every turn end), so a turn
   * that ended survives a power loss. Optional; off by default.
   */
  fsyncAtFlush?: boolean;
}

export const DEFAULT_WRITE_POLICY: JsonlWritePolicy = { flushDelayMs: 100, maxBufferedBytes: 64 * 1024, fsync: false };
