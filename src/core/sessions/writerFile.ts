import type { ArborError } from '../errors';
import type { FilePool } from './filePool';
import type { FlushScheduler } from './flushScheduler';
import type { Journal } from './journalSeat';
import { createHeard, type FileIdentity, type LogFile } from './logFileWrite';
import { LogLines } from './logLines';
import { fileRestoredError, type LogProblems } from './logProblems';
import type { SessionLock } from './sessionLock';
import type { SessionEvent, SessionHeader } from './types';
import type { JsonlWritePolicy } from './writePolicy';

/**
 * A log writer's side that the write steps (logFileWrite) see, apart from its batches
 * (logWriter): which file it writes and whether it knows that file's identity, whether a batch is
 * its last, whether a write is fsynced, the file as it should be, and what a rewrite reports.
 *
 * Invariant: a file created and written by what seemed the log's last write has no identity
 * read ('unseen'); a later write takes the file at the path as the log's own only when it holds
 * exactly the bytes written (logFileWrite).
 */

export interface Batch {
  offset: number;
  /** The first line it writes (line 0 is the header). */
  fromLine: number;
  /** How many lines are durable once this batch is written. */
  linesUpTo: number;
  /** Its bytes, made when the write runs (in its pool slot; a retry reuses them), or at once by the synchronous flush. */
  data?: Buffer;
  /** Written to the store's journal, not to the file. */
  journal?: true;
}

/** A flush waiting for the lines up to `linesUpTo`: `done()` once they are written, `done(error)` if their write failed. */
export interface Waiter {
  linesUpTo: number;
  done: (error: ArborError | undefined) => void;
}

/** Calls back the waiters whose lines are written (`durableLines`); returns those still waiting. */
export function settledWaiters(waiters: Waiter[], durableLines: number): Waiter[] {
  if (waiters.length === 0) return waiters;
  const still: Waiter[] = [];
  for (const w of waiters) {
    if (w.linesUpTo <= durableLines) w.done(undefined);
    else still.push(w);
  }
  return still;
}

export interface LogWriterInit {
  file: string;
  header: SessionHeader;
  /** The log's events, appended to by the log (line i > 0 is event i - 1). */
  events: SessionEvent[];
  policy: JsonlWritePolicy;
  pool: FilePool;
  scheduler: FlushScheduler;
  lock?: SessionLock;
  /** A new one-shot session's: its batches go to the store's journal until it leaves it for its own file. */
  journal?: Journal;
  problems: LogProblems;
  /** The length of the file holding the header and `events`, and its identity; else a new file. */
  existing?: { bytes: number; identity: FileIdentity };
  /** Whether the log was closed (a failure then says the write is tried again every few seconds). */
  closed: () => boolean;
}

export abstract class WriterFile implements LogFile {
  readonly file: string;
  readonly sessionId: string;
  /** Read at every append: kept here rather than behind `log`. */
  protected readonly policy: JsonlWritePolicy;
  protected readonly lines: LogLines;
  /** The file it wrote; 'unseen' when it created and wrote it without reading that (its last write, as it seemed). */
  protected identity: FileIdentity | 'unseen' | undefined;
  /** The log is closing: what it writes now is meant to be its last. */
  protected closing = false;

  constructor(protected readonly log: LogWriterInit) {
    this.file = log.file;
    this.sessionId = log.header.id;
    this.policy = log.policy;
    this.lines = new LogLines(log.header, log.events, !log.existing);
    this.identity = log.existing?.identity;
  }

  /** Lines handed to the writer (the header counts as one). */
  protected abstract lineCount(): number;
  /** Whether a flush waits for the write being made. */
  protected abstract flushWaits(): boolean;

  fileIdentity(): FileIdentity | undefined {
    return this.identity === 'unseen' ? undefined : this.identity;
  }

  learned(identity: FileIdentity): void {
    this.identity = identity;
  }

  createdUnseen(): boolean {
    return this.identity === 'unseen';
  }

  /** Its last batch is written, so no later write needs the file's identity: its create has answered. */
  wroteUnseen(): void {
    this.identity ??= 'unseen';
    createHeard(this);
  }

  isLastWrite(linesUpTo: number): boolean {
    return this.closing && linesUpTo === this.lineCount();
  }

  /** Always, or when a flush waits for this write (a rewrite: only always). */
  syncs(rewrite: boolean): boolean {
    return this.policy.fsync || (!rewrite && this.policy.fsyncAtFlush === true && this.flushWaits());
  }

  wholeFile(lines: number): Buffer {
    return this.lines.whole(lines);
  }

  restored(why: string): void {
    this.log.problems.inform(fileRestoredError(this.log.header.id, this.log.file, why));
  }
}
