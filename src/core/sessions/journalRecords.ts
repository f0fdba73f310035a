import type * as fs from 'node:fs';
import type { JournalBatch, JournaledLog } from './journalSeat';

/**
 * The journal's records and how they reach the disk and their logs (sessionJournal.ts): the
 * bytes of one record, the write of a slice of them, and the callbacks of the logs they landed for.
 */

/** A batch handed to the journal, until it is on disk. */
export interface Waiting {
  log: JournaledLog;
  batch: JournalBatch;
}

/** Appends `parts` in order in as few calls as the system takes, without copying them into one buffer. */
export async function writeAllParts(handle: fs.promises.FileHandle, parts: Buffer[]): Promise<void> {
  let rest = parts;
  while (rest.length > 0) {
    let { bytesWritten } = await handle.writev(rest);
    let whole = 0;
    while (whole < rest.length && bytesWritten >= rest[whole].length) bytesWritten -= rest[whole++].length;
    rest = rest.slice(whole);
    if (bytesWritten > 0) rest[0] = rest[0].subarray(bytesWritten);
  }
}

/** A batch's record: `{ id, at, bytes }` and its bytes. */
export function record(w: Waiting): Buffer[] {
  const data = w.log.build(w.batch);
  // The same line as JSON.stringify({ id, at, bytes }), without the object: a fan-out writes a thousand at once.
  return [Buffer.from(`{"id":${JSON.stringify(w.log.sessionId)},"at":${w.batch.offset},"bytes":${data.length}}\n`), data];
}

/** Each batch of `batch` is on disk: the journal hears it of each log (`landed`), then the log is told. */
export function landedAll(batch: readonly Waiting[], landed: (log: JournaledLog) => void): void {
  for (const w of batch) {
    landed(w.log);
    tell(w);
  }
}

/**
 * Tells a log its batch landed, or failed with `error`; a log that throws does not keep the
 * others from being told (and the throw is not lost).
 */
export function tell(w: Waiting, failed = false, error?: unknown): void {
  try {
    if (failed) w.log.onBatchFailed(w.batch, error);
    else w.log.onBatchWritten(w.batch);
  } catch (e) {
    queueMicrotask(() => {
      throw e;
    });
  }
}
