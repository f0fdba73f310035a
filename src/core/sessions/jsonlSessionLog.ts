import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError } from '../errors';
import { sessionEventSchema } from './schema';
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
}

export const DEFAULT_WRITE_POLICY: JsonlWritePolicy = { flushDelayMs: 100, maxBufferedBytes: 64 * 1024, fsync: false };

/** Write-only, create if missing, never truncate; every write names its own offset. */
const OPEN_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT;

interface Batch {
  offset: number;
  text: string;
  data: Buffer;
  /** How many lines are durable once this batch is written. */
  linesUpTo: number;
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
  /** Events already on disk (a reopened log), and the byte length they occupy with the header. */
  existing?: { events: SessionEvent[]; bytes: number };
  /** Background write failures, which no caller is waiting for. */
  onError?: (error: ArborError) => void;
  onClose?: (log: JsonlSessionLog) => void;
}

/**
 * A session log backed by a JSONL file. `append` only serializes the event and queues the
 * line; a timer or the size threshold starts one batched write at a time. Each batch is
 * written at the byte offset it was assigned, so a batch can be written again (a retry after
 * a failed write, or the synchronous flush at exit while an asynchronous write is still in
 * flight) without duplicating or reordering lines.
 *
 * Every event is checked against the schema the loader uses before it is queued: an event the
 * loader would reject is refused (SESSION_EVENT_INVALID, reported through `onProblem` and
 * `onError`) and never written, so any file this writer produces can be loaded again.
 */
export class JsonlSessionLog implements SessionLog {
  readonly header: SessionHeader;
  readonly file: string;
  private readonly list: SessionEvent[];
  private readonly policy: JsonlWritePolicy;
  private readonly onError?: (error: ArborError) => void;
  private readonly onClose?: (log: JsonlSessionLog) => void;

  private pending: string[] = [];
  private pendingChars = 0;
  /** Lines handed to this log (the header counts as one). */
  private appendedLines: number;
  /** Lines known to be written. */
  private durableLines: number;
  private nextOffset: number;
  private inFlight: Batch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private waiters: Waiter[] = [];
  private closed = false;
  private readonly problemListeners: ((problem: ArborError) => void)[] = [];

  constructor(init: JsonlSessionLogInit) {
    this.header = init.header;
    this.file = init.file;
    this.policy = init.policy;
    this.onError = init.onError;
    this.onClose = init.onClose;
    if (init.existing) {
      this.list = [...init.existing.events];
      this.appendedLines = this.durableLines = 1 + this.list.length;
      this.nextOffset = init.existing.bytes;
    } else {
      this.list = [];
      this.appendedLines = this.durableLines = 0;
      this.nextOffset = 0;
      this.enqueue(JSON.stringify(init.header) + '\n');
    }
  }

  get events(): readonly SessionEvent[] {
    return this.list;
  }

  /** True while some appended event is not yet written. */
  get dirty(): boolean {
    return this.durableLines < this.appendedLines;
  }

  append(event: SessionEvent): void {
    if (this.closed) throw new ArborError('INTERNAL', `The log of session ${this.header.id} is closed; reopen it to append.`);
    // Checked and serialized now: the line is the event as it was when appended, and an event
    // that cannot be loaded back is refused at its source instead of inside a later batch.
    // The line is made from the parsed copy (plain data with only the schema's keys), so what
    // is written is exactly what was checked, whatever the object appended looked like.
    const parsed = sessionEventSchema.safeParse(event);
    if (!parsed.success) {
      this.report(refusedEventError(this.header.id, this.file, event, parsed.error.issues[0]));
      return;
    }
    this.list.push(parsed.data);
    this.enqueue(JSON.stringify(parsed.data) + '\n');
  }

  onProblem(listener: (problem: ArborError) => void): void {
    this.problemListeners.push(listener);
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
    const start = this.inFlight ? this.inFlight.offset : this.nextOffset;
    const text = (this.inFlight ? this.inFlight.text : '') + this.pending.join('');
    const data = Buffer.from(text, 'utf8');
    try {
      writeAtSync(this.file, data, start, this.policy.fsync);
    } catch (e) {
      throw this.writeError(e);
    }
    // The in-flight write, if it still lands, writes the same bytes at the same offset.
    this.inFlight = undefined;
    this.pending = [];
    this.pendingChars = 0;
    this.nextOffset = start + data.length;
    this.durableLines = this.appendedLines;
    this.settleWaiters();
  }

  /** Flushes, then releases the log from its store. Appends after this throw. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      this.clearTimer();
      this.onClose?.(this);
    }
  }

  private enqueue(line: string): void {
    this.pending.push(line);
    this.pendingChars += line.length;
    this.appendedLines++;
    if (this.pendingChars >= this.policy.maxBufferedBytes) this.startWrite();
    else this.scheduleWrite();
  }

  private scheduleWrite(): void {
    if (this.timer || this.inFlight) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.startWrite();
    }, this.policy.flushDelayMs);
    // A pending write must not keep the process alive; exit paths call flushSync.
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private startWrite(): void {
    this.clearTimer();
    if (this.inFlight || this.pending.length === 0) return;
    const text = this.pending.join('');
    const data = Buffer.from(text, 'utf8');
    const batch: Batch = { offset: this.nextOffset, text, data, linesUpTo: this.appendedLines };
    this.pending = [];
    this.pendingChars = 0;
    this.nextOffset += data.length;
    this.inFlight = batch;
    writeAt(this.file, data, batch.offset, this.policy.fsync).then(
      () => this.onBatchWritten(batch),
      (e: unknown) => this.onBatchFailed(batch, e),
    );
  }

  private onBatchWritten(batch: Batch): void {
    if (this.inFlight !== batch) return; // flushSync already wrote it
    this.inFlight = undefined;
    this.durableLines = batch.linesUpTo;
    this.settleWaiters();
    if (this.pending.length === 0) return;
    if (this.waiters.length > 0 || this.pendingChars >= this.policy.maxBufferedBytes) this.startWrite();
    else this.scheduleWrite();
  }

  private onBatchFailed(batch: Batch, cause: unknown): void {
    if (this.inFlight !== batch) return;
    this.inFlight = undefined;
    // Put the batch back in front: the next flush or append writes it again at the same offset.
    this.pending.unshift(batch.text);
    this.pendingChars += batch.text.length;
    this.nextOffset = batch.offset;
    const error = this.writeError(cause);
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(error);
    if (waiters.length === 0) this.onError?.(error);
  }

  /** Tells the store's error handler (the log) and the owner of this log (the agent). */
  private report(problem: ArborError): void {
    this.onError?.(problem);
    for (const listener of this.problemListeners) listener(problem);
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

  private writeError(cause: unknown): ArborError {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new ArborError('SESSION_WRITE_FAILED', `Could not write session ${this.header.id} to ${this.file}: ${reason}. The events stay in memory and are written again at the next flush.`, {
      file: this.file,
      errno: (cause as NodeJS.ErrnoException | undefined)?.code,
    });
  }
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

async function writeAt(file: string, data: Buffer, offset: number, fsync: boolean): Promise<void> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, OPEN_FLAGS);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    handle = await fs.promises.open(file, OPEN_FLAGS);
  }
  try {
    let written = 0;
    while (written < data.length) {
      const { bytesWritten } = await handle.write(data, written, data.length - written, offset + written);
      written += bytesWritten;
    }
    if (fsync) await handle.sync();
  } finally {
    await handle.close();
  }
}

function writeAtSync(file: string, data: Buffer, offset: number, fsync: boolean): void {
  let fd: number;
  try {
    fd = fs.openSync(file, OPEN_FLAGS);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fd = fs.openSync(file, OPEN_FLAGS);
  }
  try {
    let written = 0;
    while (written < data.length) written += fs.writeSync(fd, data, written, data.length - written, offset + written);
    if (fsync) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
