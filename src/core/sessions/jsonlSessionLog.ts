// Why this file stays whole: one log's write pipeline (buffer, batch, append, fsync, detect a
// replaced or deleted file and rewrite it, retry after a failed close, flush synchronously at
// exit) shares one in-flight state; split, each half would need the other's invariants. The
// parts without that state already live beside it (filePool, lineChecksum, sessionLock).
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError, isArborError } from '../errors';
import { fastCheckedEvent } from './eventFastCheck';
import { FilePool } from './filePool';
import { FlushScheduler, type FlushTarget } from './flushScheduler';
import { checksummedLineBytes, LineBuffer, withChecksum } from './lineChecksum';
import { sessionEventSchema } from './schema';
import type { SessionLock } from './sessionLock';
import type { SessionEvent, SessionHeader, SessionLog } from './types';

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

/** Which file a log writes: a replaced or recreated file at the same path is not it. */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
}

interface Batch {
  offset: number;
  /** The first line it writes (line 0 is the header). */
  fromLine: number;
  /** How many lines are durable once this batch is written. */
  linesUpTo: number;
  /** About how many bytes its lines take. */
  bytes: number;
  /**
   * Its bytes, made when the write runs (in its slot of the pool); a write's retry reuses them.
   * The synchronous flush makes them at once.
   */
  data?: Buffer;
}

interface Waiter {
  linesUpTo: number;
  resolve: () => void;
  reject: (error: ArborError) => void;
}

export interface JsonlSessionLogInit {
  file: string;
  header: SessionHeader;
  policy: JsonlWritePolicy;
  /**
   * What is on disk already (a created or reopened log): the events, the byte length they
   * occupy with the header, and the identity of the file. Without it the header is written
   * with the first batch, into a file that must not exist yet.
   */
  existing?: { events: SessionEvent[]; bytes: number; identity: FileIdentity };
  /** Where file operations queue; one per store bounds the handles all its logs hold. */
  pool?: FilePool;
  /** Where delayed writes wait; one per store arms one timer for all its logs. */
  scheduler?: FlushScheduler;
  /**
   * The cross-process lock of the session: held already when `existing` is given, else taken
   * before the file is created. Released with the log.
   */
  lock?: SessionLock;
  /** Problems no caller is waiting for (the store logs them). */
  onError?: (error: ArborError) => void;
  onClose?: (log: JsonlSessionLog) => void;
}

/**
 * The session files of this process whose exclusive create a log has asked and not yet heard
 * back from (the open may have run, its result not delivered), each with that log: only that
 * log may take such a file as its own before it knows the file's identity. One process can hold
 * several stores of one folder (one abandoned at deactivation, a test's), whose locks do not
 * keep each other out.
 */
const creatingFiles = new Map<string, JsonlSessionLog>();

/** Delays between the tries to save what a failed close left, and the number of tries. */
const CLOSE_RETRY_MS = 5_000;
const CLOSE_RETRIES = 12;

/**
 * A session log backed by a JSONL file. `append` checks the event and keeps its checked copy;
 * a timer, a flush or the size threshold starts one batched write at a time of the lines
 * appended so far, serialized (each event once, with its checksum, into one buffer) when that
 * write runs, so an agent's turn never waits for serialization. Each batch is written at the
 * byte offset it was assigned, so a batch can be written again (a retry after a failed write,
 * or the synchronous flush at exit while an asynchronous write is still in flight) without
 * duplicating or reordering lines.
 *
 * Invariants:
 * - Every event is checked against the schema the loader uses before it is queued: an event
 *   the loader would reject is refused (SESSION_EVENT_INVALID, reported through `onProblem`
 *   and `onError`) and never written, so any file this writer produces can be loaded again.
 * - Before each write the file is checked to be the one this log wrote, with exactly the
 *   bytes it wrote: a file deleted, replaced or cut by something else is written again
 *   whole from the events in memory (SESSION_FILE_LOST, reported), never patched at an offset
 *   that no longer means anything.
 * - A write that fails is retried (transient errors inside the pool, others at the next
 *   write); until it succeeds the log is dirty, its flushes reject, and its agent shows the
 *   problem. A log is released by its store only once everything is written.
 */
export class JsonlSessionLog implements SessionLog, FlushTarget {
  readonly header: SessionHeader;
  readonly file: string;
  private readonly list: SessionEvent[];
  private readonly policy: JsonlWritePolicy;
  private readonly pool: FilePool;
  private readonly scheduler: FlushScheduler;
  private readonly lock?: SessionLock;
  private readonly onError?: (error: ArborError) => void;
  private readonly onClose?: (log: JsonlSessionLog) => void;

  /** The header's JSON as it was when the log was made, for a new file's first line. */
  private readonly headerJson: string | undefined;
  /** Lines handed to this log (the header counts as one; line i > 0 is event i - 1). */
  private appendedLines: number;
  /** Lines handed to a batch (written, or being written). */
  private takenLines: number;
  /** About how many bytes the lines not yet taken will take (exact for the header). */
  private pendingBytes = 0;
  /** Lines known to be written. */
  private durableLines: number;
  private nextOffset: number;
  private identity: FileIdentity | undefined;
  private inFlight: Batch | undefined;
  /** The next try to save what a failed close left. */
  private retryTimer: NodeJS.Timeout | undefined;
  private waiters: Waiter[] = [];
  private closed = false;
  /**
   * Released by `closeSync` at the end of the process: later appends (the end of a turn the
   * shutdown aborted) stay in memory only, and the next load closes that turn as interrupted.
   */
  private detached = false;
  private released = false;
  private readonly problemListeners: ((problem: ArborError | undefined) => void)[] = [];
  /** The first event refused; it stays reported, since that event is lost for good. */
  private refused: ArborError | undefined;
  /** The last write failure, until a write succeeds again. */
  private writeFailure: ArborError | undefined;

  constructor(init: JsonlSessionLogInit) {
    this.header = init.header;
    this.file = init.file;
    this.policy = init.policy;
    this.pool = init.pool ?? new FilePool();
    this.scheduler = init.scheduler ?? new FlushScheduler(init.policy.flushDelayMs);
    this.lock = init.lock;
    this.onError = init.onError;
    this.onClose = init.onClose;
    if (init.existing) {
      this.list = [...init.existing.events];
      this.appendedLines = this.takenLines = this.durableLines = 1 + this.list.length;
      this.nextOffset = init.existing.bytes;
      this.identity = init.existing.identity;
    } else {
      this.list = [];
      this.appendedLines = this.takenLines = this.durableLines = 0;
      this.nextOffset = 0;
      this.headerJson = JSON.stringify(init.header);
      this.enqueue(checksummedLineBytes(this.headerJson));
    }
  }

  get events(): readonly SessionEvent[] {
    return this.list;
  }

  /** True while some appended event is not yet written. */
  get dirty(): boolean {
    return this.durableLines < this.appendedLines;
  }

  /** The problem the owner should see now: a refused event, or a write not yet done. */
  get problem(): ArborError | undefined {
    return this.writeFailure ?? this.refused;
  }

  append(event: SessionEvent): void {
    if (this.closed) throw new ArborError('INTERNAL', `The log of session ${this.header.id} is closed; reopen it to append.`);
    // Checked now: an event that cannot be loaded back is refused at its source instead of
    // inside a later batch. The log keeps the parsed copy (plain data with only the schema's
    // keys, which nothing else holds), and its line is made from that copy when its batch is
    // written: what is written is exactly what was checked, as it was when appended, whatever
    // the object appended looked like or became.
    // The common events take a quicker check that accepts only what the schema accepts and
    // returns the same copy; anything else goes to the schema, which decides and explains.
    let data = fastCheckedEvent(event);
    if (!data) {
      const parsed = sessionEventSchema().safeParse(event);
      if (!parsed.success) {
        const error = refusedEventError(this.header.id, this.file, event, parsed.error.issues[0]);
        this.refused ??= error;
        this.onError?.(error);
        this.notify(error);
        return;
      }
      data = parsed.data;
    }
    this.list.push(data);
    if (this.detached) return;
    this.enqueue(approximateLineBytes(data));
  }

  /** `listener(undefined)` means the write problem reported before is solved. Returns what stops the reports. */
  onProblem(listener: (problem: ArborError | undefined) => void): () => void {
    this.problemListeners.push(listener);
    return () => {
      const at = this.problemListeners.indexOf(listener);
      if (at >= 0) this.problemListeners.splice(at, 1);
    };
  }

  flush(): Promise<void> {
    if (!this.dirty) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ linesUpTo: this.appendedLines, resolve, reject }));
    this.startWrite();
    return done;
  }

  /**
   * Writes everything appended so far before returning, for a process 'exit' handler or
   * extension deactivation where nothing asynchronous runs any more. Throws SESSION_WRITE_FAILED.
   */
  flushSync(): void {
    this.clearTimer();
    if (!this.dirty) return;
    // From where the in-flight write, if any, started: the same bytes at the same offset.
    const fromLine = this.inFlight ? this.inFlight.fromLine : this.takenLines;
    const offset = this.inFlight ? this.inFlight.offset : this.nextOffset;
    const bytes = this.pendingBytes + (this.inFlight ? this.inFlight.bytes : 0);
    const batch: Batch = { offset, fromLine, linesUpTo: this.appendedLines, bytes, data: this.linesBytes(fromLine, this.appendedLines, bytes) };
    let end: number;
    try {
      end = this.writeBatchSync(batch);
    } catch (e) {
      // Nothing moved: the lines wait as before, behind the in-flight write if one still runs.
      const error = this.writeError(e);
      this.fail(error);
      throw error;
    }
    // The in-flight write, if it still runs, sees it is no longer current and stops.
    this.inFlight = undefined;
    this.takenLines = this.appendedLines;
    this.pendingBytes = 0;
    this.nextOffset = end;
    this.durableLines = this.appendedLines;
    this.settleWaiters();
    this.succeeded();
    if (this.closed) this.release(true);
  }

  /**
   * For the end of the process: writes what is left synchronously and, if that worked, releases
   * the log (and its lock). Throws SESSION_WRITE_FAILED, and then keeps the log.
   */
  closeSync(): void {
    this.flushSync();
    this.detached = true;
    this.release(true);
  }

  /**
   * Writes what is left, then releases the log from its store; appends after this throw.
   * If the write fails, the log stays with its store (the window's exit flush writes it),
   * is tried again every few seconds, and the failure is reported to the caller and the agent.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } catch (e) {
      this.closed = true;
      this.retryAfterClose(CLOSE_RETRIES);
      throw e;
    }
    this.closed = true;
    await this.lock?.release();
    this.release();
  }

  private release(sync = false): void {
    if (this.released) return;
    this.released = true;
    this.createHeard();
    this.clearTimer();
    if (sync) this.lock?.releaseSync();
    else void this.lock?.release();
    this.onClose?.(this);
  }

  private retryAfterClose(triesLeft: number): void {
    if (triesLeft <= 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.flush().then(
        () => this.release(),
        () => this.retryAfterClose(triesLeft - 1),
      );
    }, CLOSE_RETRY_MS);
    this.retryTimer.unref();
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

  /** Lines `from` to `to` (exclusive) as the file holds them: checksummed, one per line. */
  private linesBytes(from: number, to: number, bytes: number): Buffer {
    const buffer = new LineBuffer(bytes);
    for (let line = from; line < to; line++) buffer.appendJson(line === 0 ? this.headerLine() : JSON.stringify(this.list[line - 1]));
    return buffer.take();
  }

  private headerLine(): string {
    return this.headerJson ?? JSON.stringify(this.header);
  }

  /** The bytes of the batch about to be written. */
  private build(batch: Batch): Buffer {
    if (batch.data) return batch.data;
    batch.data = this.linesBytes(batch.fromLine, batch.linesUpTo, batch.bytes);
    this.nextOffset = batch.offset + batch.data.length;
    return batch.data;
  }

  private scheduleWrite(): void {
    if (this.inFlight) return;
    this.scheduler.schedule(this);
  }

  /** The store's flush timer fired with this log due. */
  writeDue(): void {
    this.startWrite();
  }

  private clearTimer(): void {
    this.scheduler.cancel(this);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  private startWrite(): void {
    this.clearTimer();
    if (this.inFlight || !this.hasPending) return;
    const batch: Batch = { offset: this.nextOffset, fromLine: this.takenLines, linesUpTo: this.appendedLines, bytes: this.pendingBytes };
    this.takenLines = this.appendedLines;
    this.pendingBytes = 0;
    this.inFlight = batch;
    // The lock is taken with the first write, off the path that creates the agent, and before
    // the write takes a slot of the pool: claims of many logs are written together.
    const write = (): Promise<number | undefined> => this.pool.run(() => this.writeBatch(batch));
    (this.lock && !this.lock.isHeld ? this.lock.acquire().then(write) : write()).then(
      (end) => this.onBatchWritten(batch, end),
      (e: unknown) => this.onBatchFailed(batch, e),
    );
  }

  /** Writes one batch; resolves with the file's length after it (undefined: superseded). */
  private async writeBatch(batch: Batch): Promise<number | undefined> {
    if (this.inFlight !== batch) return undefined;
    if (this.lock && !this.lock.isHeld) await this.lock.acquire();
    if (this.inFlight !== batch) return undefined;
    const data = this.build(batch);
    let handle: fs.promises.FileHandle;
    if (this.identity) {
      try {
        handle = await fs.promises.open(this.file, fs.constants.O_WRONLY);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        return this.rewrite(batch, 'it was deleted');
      }
    } else {
      if (!creatingFiles.has(this.file)) creatingFiles.set(this.file, this);
      try {
        handle = await openExclusive(this.file, this.header.id);
      } catch (e) {
        // An open that fails made no file.
        this.createHeard();
        throw e;
      }
    }
    let lost: string | undefined;
    try {
      if (!this.identity) {
        // The file was just created here, empty: nothing to check before writing, so its
        // identity (for the checks of later writes) is read while the first batch is written.
        const [stat, written] = await Promise.allSettled([handle.stat({ bigint: true }), writeAll(handle, data, batch.offset)]);
        if (stat.status === 'fulfilled') {
          this.identity = { dev: stat.value.dev, ino: stat.value.ino };
          this.createHeard();
        }
        if (stat.status === 'rejected') throw stat.reason;
        if (written.status === 'rejected') throw written.reason;
        if (this.syncs()) await handle.sync();
      } else {
        const stat = await handle.stat({ bigint: true });
        lost = lostBecause(stat, this.identity, batch.offset);
        if (lost === undefined) {
          if (this.inFlight !== batch) return undefined;
          await writeAll(handle, data, batch.offset);
          if (this.syncs()) await handle.sync();
        }
      }
    } finally {
      await handle.close();
    }
    return lost === undefined ? batch.offset + data.length : this.rewrite(batch, lost);
  }

  /**
   * The file is not the one this log wrote: write the header and every event up to this batch
   * to a new file beside it and move that over the path in one step.
   */
  private async rewrite(batch: Batch, why: string): Promise<number | undefined> {
    const data = this.wholeFile(batch.linesUpTo);
    const temp = tempNameFor(this.file);
    await fs.promises.mkdir(path.dirname(this.file), { recursive: true });
    const handle = await fs.promises.open(temp, 'wx');
    try {
      let written = 0;
      while (written < data.length) written += (await handle.write(data, written, data.length - written, written)).bytesWritten;
      if (this.policy.fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    if (this.inFlight !== batch) {
      await fs.promises.rm(temp, { force: true });
      return undefined;
    }
    await fs.promises.rename(temp, this.file);
    const stat = await fs.promises.stat(this.file, { bigint: true });
    this.identity = { dev: stat.dev, ino: stat.ino };
    this.reportRestored(why);
    return data.length;
  }

  /** flushSync's write: the same checks as writeBatch, synchronously. Returns the file's length. */
  private writeBatchSync(batch: Batch): number {
    if (this.lock && !this.lock.isHeld) this.lock.acquireSync();
    const data = this.build(batch);
    let fd: number;
    let ownNewFile = false;
    if (this.identity) {
      try {
        fd = fs.openSync(this.file, fs.constants.O_WRONLY);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        return this.rewriteSync(batch, 'it was deleted');
      }
    } else {
      ({ fd, ownNewFile } = this.openNewFileSync(data));
    }
    let lost: string | undefined;
    try {
      const stat = fs.fstatSync(fd, { bigint: true });
      if (!this.identity) {
        this.identity = { dev: stat.dev, ino: stat.ino };
        this.createHeard();
      }
      // A file this log's own create just made holds the start of these bytes, checked already.
      lost = ownNewFile ? undefined : lostBecause(stat, this.identity, batch.offset);
      if (lost === undefined) {
        let written = 0;
        while (written < data.length) written += fs.writeSync(fd, data, written, data.length - written, batch.offset + written);
        if (this.syncs()) fs.fsyncSync(fd);
      }
    } finally {
      fs.closeSync(fd);
    }
    return lost === undefined ? batch.offset + data.length : this.rewriteSync(batch, lost);
  }

  /**
   * Creates the file of a new session for the synchronous flush. The asynchronous write that
   * creates it may be under way (a window closing a moment after an agent started): its
   * exclusive open can have made the file already, before this log hears so. Refusing that file
   * as someone else's would leave the log unwritten and still open at deactivation, its later
   * events landing in a session another window may have resumed. So an existing file counts as
   * this log's own when its own create is the only one in this process that may have made it
   * (no other window writes the session: this log holds its lock) and the file holds nothing but
   * the start of `data` (the header with its timestamp, then the same lines): at most an empty
   * file left by someone else is taken, which holds no session. Any other is SESSION_EXISTS.
   */
  private openNewFileSync(data: Buffer): { fd: number; ownNewFile: boolean } {
    try {
      return { fd: openExclusiveSync(this.file, this.header.id), ownNewFile: false };
    } catch (e) {
      if (creatingFiles.get(this.file) !== this || !isArborError(e, 'SESSION_EXISTS')) throw e;
      const fd = fs.openSync(this.file, fs.constants.O_RDWR);
      let own = false;
      try {
        own = holdsOnlyStartOf(fd, data);
      } finally {
        if (!own) fs.closeSync(fd);
      }
      if (!own) throw e;
      return { fd, ownNewFile: true };
    }
  }

  /** This log's exclusive create has answered (or no longer matters): its file is no longer one being created. */
  private createHeard(): void {
    if (creatingFiles.get(this.file) === this) creatingFiles.delete(this.file);
  }

  private rewriteSync(batch: Batch, why: string): number {
    const data = this.wholeFile(batch.linesUpTo);
    const temp = tempNameFor(this.file);
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const fd = fs.openSync(temp, 'wx');
    try {
      let written = 0;
      while (written < data.length) written += fs.writeSync(fd, data, written, data.length - written, written);
      if (this.policy.fsync) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, this.file);
    const stat = fs.statSync(this.file, { bigint: true });
    this.identity = { dev: stat.dev, ino: stat.ino };
    this.reportRestored(why);
    return data.length;
  }

  /** Whether the write being made now is fsynced: always, or when a flush waits for it. */
  private syncs(): boolean {
    return this.policy.fsync || (this.policy.fsyncAtFlush === true && this.waiters.length > 0);
  }

  /** The header and the first `lines - 1` events, as the file should hold them. */
  private wholeFile(lines: number): Buffer {
    return sessionFileBytes(this.header, this.list.slice(0, lines - 1));
  }

  private onBatchWritten(batch: Batch, end: number | undefined): void {
    if (this.inFlight !== batch || end === undefined) return; // flushSync already wrote it
    this.inFlight = undefined;
    this.nextOffset = end;
    this.durableLines = batch.linesUpTo;
    this.settleWaiters();
    this.succeeded();
    if (!this.hasPending) return;
    if (this.waiters.length > 0 || this.pendingBytes >= this.policy.maxBufferedBytes) this.startWrite();
    else this.scheduleWrite();
  }

  private onBatchFailed(batch: Batch, cause: unknown): void {
    if (this.inFlight !== batch) return;
    this.inFlight = undefined;
    // Its lines wait again: the next flush or append writes them again at the same offset.
    this.takenLines = batch.fromLine;
    this.nextOffset = batch.offset;
    this.pendingBytes = 0;
    for (let line = batch.fromLine; line < this.appendedLines; line++) {
      this.pendingBytes += line === 0 ? checksummedLineBytes(this.headerLine()) : approximateLineBytes(this.list[line - 1]);
    }
    const error = this.writeError(cause);
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(error);
    this.fail(error);
  }

  private settleWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.linesUpTo <= this.durableLines) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  private fail(error: ArborError): void {
    this.writeFailure = error;
    this.onError?.(error);
    this.notify(error);
  }

  private succeeded(): void {
    if (!this.writeFailure || this.dirty) return;
    this.writeFailure = undefined;
    this.notify(this.refused);
  }

  private notify(problem: ArborError | undefined): void {
    for (const listener of this.problemListeners) listener(problem);
  }

  private reportRestored(why: string): void {
    this.onError?.(
      new ArborError(
        'SESSION_FILE_LOST',
        `The file of session ${this.header.id} (${this.file}) changed under Arbor while its agent ran: ${why}. Arbor wrote it again from the session in memory, so nothing is lost; keep other programs away from the session folder.`,
        { id: this.header.id, file: this.file },
      ),
    );
  }

  private writeError(cause: unknown): ArborError {
    if (cause instanceof ArborError) return cause;
    const reason = cause instanceof Error ? cause.message : String(cause);
    const unsaved = this.appendedLines - this.durableLines;
    const retry = this.closed
      ? 'Arbor keeps them in memory and tries again every few seconds for a minute, and once more when the window closes'
      : 'Arbor keeps them in memory and tries again at the next write and when the window closes';
    return new ArborError(
      'SESSION_WRITE_FAILED',
      `Could not write session ${this.header.id} to ${this.file}: ${reason}. ${unsaved} line(s) are not saved yet; ${retry}. Check that the disk has free space and the folder is writable.`,
      { id: this.header.id, file: this.file, errno: (cause as NodeJS.ErrnoException | undefined)?.code },
    );
  }
}

/** A whole session file: the header and `events`, one checksummed line each. */
export function sessionFileBytes(header: SessionHeader, events: readonly SessionEvent[]): Buffer {
  const parts = [withChecksum(JSON.stringify(header))];
  for (const event of events) parts.push(withChecksum(JSON.stringify(event)));
  return Buffer.from(parts.join('\n') + '\n', 'utf8');
}

async function writeAll(handle: fs.promises.FileHandle, data: Buffer, offset: number): Promise<void> {
  let written = 0;
  while (written < data.length) {
    const { bytesWritten } = await handle.write(data, written, data.length - written, offset + written);
    written += bytesWritten;
  }
}

/**
 * About how many bytes the line of a checked event takes: its strings' lengths and a few bytes
 * for each key and value. Enough for the size threshold, without serializing the event twice.
 */
function approximateLineBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return 8;
  let bytes = 20; // the checksum, braces and newline
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) bytes += approximateLineBytes(item) + 1;
    return bytes;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) bytes += key.length + 4 + approximateLineBytes(record[key]);
  return bytes;
}

/** Why the file at the path is not the file this log wrote, or undefined if it is. */
function lostBecause(stat: fs.BigIntStats, identity: FileIdentity, expectedSize: number): string | undefined {
  if (stat.ino !== identity.ino || stat.dev !== identity.dev) return 'it was replaced by another file';
  if (stat.size !== BigInt(expectedSize)) {
    return stat.size < BigInt(expectedSize) ? `it was cut to ${stat.size} bytes` : `something else wrote to it (${stat.size} bytes where ${expectedSize} were expected)`;
  }
  return undefined;
}

/** Whether the file open as `fd` holds no more than `data` and nothing but its first bytes. */
function holdsOnlyStartOf(fd: number, data: Buffer): boolean {
  const size = Number(fs.fstatSync(fd, { bigint: true }).size);
  if (size > data.length) return false;
  const found = Buffer.alloc(size);
  let read = 0;
  while (read < size) {
    const n = fs.readSync(fd, found, read, size - read, read);
    if (n === 0) return false;
    read += n;
  }
  return found.equals(data.subarray(0, size));
}

const EXCLUSIVE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL;

function sessionExists(id: string): ArborError {
  return new ArborError('SESSION_EXISTS', `Session ${id} already exists; resume it or choose a new id.`, { id });
}

/** Creates a session file that must not exist yet (and its folder if needed). */
async function openExclusive(file: string, id: string): Promise<fs.promises.FileHandle> {
  try {
    try {
      return await fs.promises.open(file, EXCLUSIVE);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      return await fs.promises.open(file, EXCLUSIVE);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw sessionExists(id);
    throw e;
  }
}

function openExclusiveSync(file: string, id: string): number {
  try {
    try {
      return fs.openSync(file, EXCLUSIVE);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      return fs.openSync(file, EXCLUSIVE);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw sessionExists(id);
    throw e;
  }
}

/** A name beside `file` that the catalog never lists (it does not end in `.jsonl`). */
function tempNameFor(file: string): string {
  return `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

interface SchemaIssue {
  path: PropertyKey[];
  message: string;
}

function refusedEventError(id: string, file: string, event: unknown, issue: SchemaIssue | undefined): ArborError {
  const type = typeof event === 'object' && event !== null && typeof (event as { type?: unknown }).type === 'string' ? (event as { type: string }).type : undefined;
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join('.')}` : '';
  return new ArborError(
    'SESSION_EVENT_INVALID',
    `Session ${id}: a ${type ?? 'malformed'} event was not saved because it does not match the session format${where} (${issue?.message ?? 'unknown problem'}). The rest of the session is saved and stays loadable; the transcript lacks this event.`,
    { id, file, eventType: type, path: issue?.path.map(String) },
  );
}
