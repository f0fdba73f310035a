import type { ArborError } from '../errors';
import { runAsync, runSync } from './fileSteps';
import type { FlushScheduler, FlushTarget } from './flushScheduler';
import { JournalSeat, type JournaledLog } from './journalSeat';
import { writeBatchSteps } from './logFileWrite';
import { writeFailedError } from './logProblems';
import type { SessionEvent } from './types';
import { settledWaiters, WriterFile, type Batch, type LogWriterInit, type Waiter } from './writerFile';

export type { LogWriterInit } from './writerFile';

/**
 * The write pipeline of one session log: which lines are durable, which are in the one write
 * in flight, which wait. A timer, a flush or the size threshold starts one batched write at a
 * time of the lines appended so far, serialized (each event once, with its checksum, into one
 * buffer) when that write runs, so an agent's turn never waits for serialization. Each batch is
 * written at the byte offset it was assigned, so a batch can be written again (a retry after a
 * failed write, or the synchronous flush at exit while an asynchronous write is still in
 * flight) without duplicating or reordering lines. Both kinds of write run the same steps
 * (logFileWrite): asynchronously in the store's file pool, synchronously at exit; what those
 * steps ask of the writer is its WriterFile side.
 *
 * Invariants:
 * - A write that fails is retried (transient errors inside the pool, others at the next
 *   write); until it succeeds the log is dirty, its flushes reject, and its agent shows the
 *   problem.
 * - A new one-shot session's batches go to the store's journal (one write for the batches of many
 *   sessions) until the journal lets it go; its next batch then writes its file whole, from line
 *   0, and a log is released only once its file holds every line. A failed write of a log
 *   without its file is tried again into its file, from line 0.
 * - The session's lock is held before the first byte is written to its file: taken asynchronously before
 *   the write takes a slot of the pool (so the claims of many logs are written together), or
 *   synchronously by the exit flush.
 * - The synchronous flush writes from where the write in flight, if any, started (the same
 *   bytes at the same offset); that write, when it lands, sees it is no longer current and
 *   changes nothing, whether it wrote or failed.
 */

/** Delay between the tries to save what a failed close left. */
const RETRY_MS = 5_000;

export class LogWriter extends WriterFile implements FlushTarget, JournaledLog {
  private readonly scheduler: FlushScheduler;
  /** Lines handed to this writer (the header counts as one). */
  private appendedLines: number;
  /** Lines handed to a batch (written, or being written). */
  private takenLines: number;
  /** About how many bytes the lines not yet taken will take (exact for the header). */
  private pendingBytes = 0;
  /** Lines known to be written. */
  private durableLines: number;
  private nextOffset: number;
  private inFlight: Batch | undefined;
  /** The next try to save what a failed close left. */
  private retryTimer: NodeJS.Timeout | undefined;
  private waiters: Waiter[] = [];
  /** Set while the log has no file: its batches go to the store's journal, then its file is written whole (sessionJournal.ts). */
  private seat: JournalSeat | undefined;

  constructor(log: LogWriterInit) {
    super(log);
    this.scheduler = log.scheduler;
    if (log.existing) {
      this.appendedLines = this.takenLines = this.durableLines = 1 + log.events.length;
      this.nextOffset = log.existing.bytes;
    } else {
      this.appendedLines = this.takenLines = this.durableLines = 0;
      this.nextOffset = 0;
      this.seat = log.journal && new JournalSeat(log.journal, this);
      this.enqueue(this.lines.size(0));
    }
  }

  /** True while some appended line is not yet written. */
  get dirty(): boolean {
    return this.durableLines < this.appendedLines;
  }

  /** The log appended `event` (the last of its events) to be written. */
  added(event: SessionEvent): void {
    this.enqueue(this.lines.sizeOf(event));
  }

  flush(): Promise<void> {
    return this.dirty ? new Promise((resolve, reject) => this.whenFlushed((error) => (error ? reject(error) : resolve()))) : Promise.resolve();
  }

  /** `flush` with a callback: `done(undefined)` once everything appended so far is written, else `done(error)`. */
  whenFlushed(done: (error: ArborError | undefined) => void): void {
    if (!this.dirty) return done(undefined);
    this.waiters.push({ linesUpTo: this.appendedLines, done });
    this.startWrite();
  }

  /** Writes everything appended before returning; false if nothing waited. Throws SESSION_WRITE_FAILED. */
  flushSync(): boolean {
    this.stop();
    // A log still in the journal writes its file whole: no journal stays behind a live process.
    const whole = this.seat !== undefined;
    if (whole) this.rewind();
    if (!this.dirty && !whole) return false;
    // From where the in-flight write, if any, started: the same bytes at the same offset.
    const fromLine = this.inFlight ? this.inFlight.fromLine : this.takenLines;
    const offset = this.inFlight ? this.inFlight.offset : this.nextOffset;
    const batch: Batch = { offset, fromLine, linesUpTo: this.appendedLines, data: this.linesBytes(fromLine, this.appendedLines) };
    let end: number;
    try {
      if (this.log.lock && !this.log.lock.isHeld) this.log.lock.acquireSync();
      // Nothing else runs meanwhile, so this write is never superseded and returns the file's length.
      end = runSync(writeBatchSteps(this, { data: this.build(batch), offset, linesUpTo: batch.linesUpTo }, () => true)) as number;
    } catch (e) {
      // Nothing moved: the lines wait as before, behind the in-flight write if one still runs.
      const error = this.writeError(e);
      this.log.problems.writeFailed(error);
      throw error;
    }
    // The in-flight write, if it still runs, sees it is no longer current and stops.
    this.inFlight = undefined;
    this.takenLines = this.appendedLines;
    this.pendingBytes = 0;
    this.nextOffset = end;
    this.durableLines = this.appendedLines;
    this.inFile();
    this.waiters = settledWaiters(this.waiters, this.durableLines);
    this.succeeded();
    return true;
  }

  /**
   * `done()` once everything appended so far is written and the file holds every line (a close:
   * a one-shot session's lines may be in the journal only); `done(error)` when a write failed.
   * Callbacks, not a promise chain: a fan-out closes a thousand logs at once. With `now`, the
   * log leaves the journal as soon as its lines are flushed.
   */
  whenInFile(done: (error: ArborError | undefined) => void, now = false): void {
    this.whenFlushed((error) => {
      if (error || !this.seat) return done(error);
      this.seat.whenFileWritten((failure) => done(failure === undefined ? undefined : (failure as ArborError)));
      if (now) this.leaveJournal();
    });
  }

  /** The journal's wait is over (JournaledLog): the next batch writes the file whole, from line 0. */
  leaveJournal(): void {
    if (!this.seat || this.seat.leaving) return;
    this.seat.leaving = true;
    if (!this.inFlight) {
      this.rewind();
      this.startWrite();
    }
  }

  /** Every line waits again for the file's first batch; a batch in flight no longer counts. */
  private rewind(): void {
    this.inFlight = undefined;
    this.takenLines = 0;
    this.nextOffset = 0;
    this.pendingBytes = this.lines.sizeBetween(0, this.appendedLines);
  }

  /** The file holds every line. */
  private inFile(): void {
    this.seat?.left();
    this.seat = undefined;
  }

  /** Tries a flush every few seconds, `tries` times, until one writes; then calls `written`. */
  retry(tries: number, written: () => void): void {
    if (tries <= 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.whenInFile((error) => (error ? this.retry(tries - 1, written) : written()), true);
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  /** The log is being closed: nothing more is meant to be appended. */
  closeStarted(): void {
    this.closing = true;
  }

  /** Withdraws from the store's timer and drops the next retry (a write starts, or the log is let go). */
  stop(): void {
    this.scheduler.cancel(this);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /** The store's flush timer fired with this log due. */
  writeDue(): void {
    this.startWrite();
  }

  /** Queues one line of about `bytes` bytes. */
  private enqueue(bytes: number): void {
    this.pendingBytes += bytes;
    this.appendedLines++;
    if (this.pendingBytes >= this.policy.maxBufferedBytes) this.startWrite();
    else this.scheduleWrite();
  }

  /** Whether some appended line is not yet in a batch. */
  private get hasPending(): boolean {
    return this.takenLines < this.appendedLines;
  }

  /** The bytes of the batch about to be written (JournaledLog: the journal asks when it writes). */
  build(batch: Batch): Buffer {
    if (batch.data) return batch.data;
    batch.data = this.linesBytes(batch.fromLine, batch.linesUpTo);
    // A journal batch is built when the journal writes: by then a synchronous flush may have overtaken it.
    if (this.inFlight === batch) this.nextOffset = batch.offset + batch.data.length;
    return batch.data;
  }

  /** Lines `from` to `to`, each serialized once: a file leaving the journal starts with the bytes its journal batches were. */
  private linesBytes(from: number, to: number): Buffer {
    const seat = this.seat;
    const kept = seat?.keptLines ?? 0;
    if (!seat || from !== 0 || kept === 0 || kept > to) return seat ? seat.keep(from, to, this.lines.bytes(from, to)) : this.lines.bytes(from, to);
    const head = seat.keptBytes();
    return kept === to ? head : Buffer.concat([head, this.lines.bytes(kept, to)]);
  }

  private scheduleWrite(): void {
    if (this.inFlight) return;
    this.scheduler.schedule(this);
  }

  private startWrite(): void {
    this.stop();
    if (this.inFlight || !this.hasPending) return;
    const batch: Batch = { offset: this.nextOffset, fromLine: this.takenLines, linesUpTo: this.appendedLines };
    this.takenLines = this.appendedLines;
    this.pendingBytes = 0;
    this.inFlight = batch;
    if (this.seat && !this.seat.leaving) {
      batch.journal = true;
      this.seat.append(batch);
      return;
    }
    // A one-shot session's file made after its lines landed in the journal: nobody waits for it.
    const lane = this.seat?.leaving ? 'background' : 'foreground';
    const write = (): Promise<number | undefined> => this.log.pool.run(() => this.writeBatch(batch), lane);
    (this.log.lock && !this.log.lock.isHeld ? this.log.lock.acquire().then(write) : write()).then(
      (end) => this.onBatchWritten(batch, end),
      (e: unknown) => this.onBatchFailed(batch, e),
    );
  }

  /** Writes one batch; resolves with the file's length after it (undefined: superseded). */
  private async writeBatch(batch: Batch): Promise<number | undefined> {
    if (this.inFlight !== batch) return undefined;
    if (this.log.lock && !this.log.lock.isHeld) await this.log.lock.acquire();
    if (this.inFlight !== batch) return undefined;
    // Not yet serialized, it takes the lines appended while it waited for the lock and a slot too: one
    // write, not this one and a second behind it (a busy root's first batch waits out its fan-out).
    if (!batch.data && batch.linesUpTo === this.takenLines) {
      batch.linesUpTo = this.takenLines = this.appendedLines;
      this.pendingBytes = 0;
    }
    return runAsync(writeBatchSteps(this, { data: this.build(batch), offset: batch.offset, linesUpTo: batch.linesUpTo }, () => this.inFlight === batch));
  }

  protected lineCount(): number {
    return this.appendedLines;
  }

  protected flushWaits(): boolean {
    return this.waiters.length > 0;
  }

  /** `batch` is written and the file is `end` bytes long (a journal's batch: where its bytes end); undefined: superseded (JournaledLog). */
  onBatchWritten(batch: Batch, end?: number): void {
    if (batch.journal && this.inFlight === batch) end = this.nextOffset;
    if (this.inFlight !== batch || end === undefined) return; // flushSync already wrote it
    this.inFlight = undefined;
    this.nextOffset = end;
    this.durableLines = Math.max(this.durableLines, batch.linesUpTo);
    if (!batch.journal) this.inFile();
    this.waiters = settledWaiters(this.waiters, this.durableLines);
    this.succeeded();
    if (this.seat?.leaving) {
      this.rewind();
      return this.startWrite();
    }
    if (!this.hasPending) return;
    if (this.waiters.length > 0 || this.pendingBytes >= this.policy.maxBufferedBytes) this.startWrite();
    else this.scheduleWrite();
  }

  /** The write of `batch` failed (JournaledLog). */
  onBatchFailed(batch: Batch, cause: unknown): void {
    if (this.inFlight !== batch) return;
    this.inFlight = undefined;
    // Its lines wait again: the next flush or append writes them again at the same offset (a
    // log without its file: all of them, into the file, not into the journal again).
    this.takenLines = this.seat ? 0 : batch.fromLine;
    this.nextOffset = this.seat ? 0 : batch.offset;
    this.pendingBytes = this.lines.sizeBetween(this.takenLines, this.appendedLines);
    const error = this.writeError(cause);
    this.seat?.fileFailed(error);
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.done(error);
    this.log.problems.writeFailed(error);
  }

  private succeeded(): void {
    if (!this.dirty) this.log.problems.allWritten();
  }

  private writeError(cause: unknown): ArborError {
    return writeFailedError(this.log.header.id, this.log.file, cause, this.appendedLines - this.durableLines, this.log.closed());
  }
}
