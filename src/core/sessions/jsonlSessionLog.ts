import { ArborError } from '../errors';
import { fastCheckedEvent } from './eventFastCheck';
import { FilePool } from './filePool';
import { FlushScheduler } from './flushScheduler';
import { createHeard, type FileIdentity } from './logFileWrite';
import { LogProblems, refusedEventError } from './logProblems';
import { LogWriter } from './logWriter';
import { sessionEventSchema } from './schema';
import type { Journal } from './journalSeat';
import { SessionLock } from './sessionLock';
import { anchorShape, STAND_IN } from '../shapeAnchor';
import type { SessionEvent, SessionHeader, SessionLog } from './types';
import type { JsonlWritePolicy } from './writePolicy';

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
  /** The store's journal, for a new one-shot session (sessionJournal.ts). */
  journal?: Journal;
  /** Problems no caller is waiting for (the store logs them). */
  onError?: (error: ArborError) => void;
  onClose?: (log: JsonlSessionLog) => void;
}

/** How many times what a failed close left is tried again (every few seconds). */
const CLOSE_RETRIES = 12;

/**
 * A session log backed by a JSONL file: the events in memory, and their way to disk through
 * its writer (logWriter: batches, one write at a time, the exit flush) and the write steps
 * (logFileWrite: exclusive creation, the check that the file is still the one written, the
 * rewrite of a lost file). This class checks what is appended and owns the log's life: open,
 * closed (appends throw), released from its store with its lock.
 *
 * Invariants:
 * - Every event is checked against the schema the loader uses before it is queued: an event
 *   the loader would reject is refused (SESSION_EVENT_INVALID, reported through `onProblem`
 *   and `onError`) and never written, so any file this writer produces can be loaded again.
 * - A log is released by its store only once everything is written: a close whose write fails
 *   keeps the log (the window's exit flush writes it) and tries again every few seconds.
 * - After the exit flush (`closeSync`) the log is let go: later appends (the end of a turn the
 *   shutdown aborted) stay in memory only, and the next load closes that turn as interrupted.
 */
export class JsonlSessionLog implements SessionLog {
  readonly header: SessionHeader;
  readonly file: string;
  private readonly list: SessionEvent[];
  private readonly lock?: SessionLock;
  private readonly onClose?: (log: JsonlSessionLog) => void;
  private readonly problems: LogProblems;
  private readonly writer: LogWriter;
  private closed = false;
  /** Let go by `closeSync`: appends are kept in memory only. */
  private detached = false;
  private released = false;

  constructor(init: JsonlSessionLogInit) {
    this.header = init.header;
    this.file = init.file;
    this.lock = init.lock;
    this.onClose = init.onClose;
    this.problems = new LogProblems(init.onError);
    this.list = init.existing ? [...init.existing.events] : [];
    this.writer = new LogWriter({
      file: init.file,
      header: init.header,
      events: this.list,
      policy: init.policy,
      pool: init.pool ?? new FilePool(),
      scheduler: init.scheduler ?? new FlushScheduler(init.policy.flushDelayMs),
      lock: init.lock,
      journal: init.journal,
      problems: this.problems,
      existing: init.existing && { bytes: init.existing.bytes, identity: init.existing.identity },
      closed: () => this.closed,
    });
  }

  get events(): readonly SessionEvent[] {
    return this.list;
  }

  /** True while some appended event is not yet written. */
  get dirty(): boolean {
    return this.writer.dirty;
  }

  /** The problem the owner should see now: a refused event, or a write not yet done. */
  get problem(): ArborError | undefined {
    return this.problems.current;
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
        this.problems.refusedEvent(refusedEventError(this.header.id, this.file, event, parsed.error.issues[0]));
        return;
      }
      data = parsed.data;
    }
    this.list.push(data);
    if (this.detached) return;
    this.writer.added(data);
  }

  /** `listener(undefined)` means the write problem reported before is solved. Returns what stops the reports. */
  onProblem(listener: (problem: ArborError | undefined) => void): () => void {
    return this.problems.listen(listener);
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** `flush` with a callback, for a store waiting on many logs at once (no promise for each). */
  whenFlushed(done: (error: ArborError | undefined) => void): void {
    this.writer.whenFlushed(done);
  }

  /**
   * Writes everything appended so far before returning, for a process 'exit' handler or
   * extension deactivation where nothing asynchronous runs any more. Throws SESSION_WRITE_FAILED.
   */
  flushSync(): void {
    if (this.writer.flushSync() && this.closed) this.release(true);
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
  close(): Promise<void> {
    return new Promise((resolve, reject) => this.closeThen((error) => (error ? reject(error) : resolve())));
  }

  /** `close` with a callback, for the runtime closing a fan-out's thousand logs (no promise for each). */
  closeThen(done: (error?: ArborError) => void): void {
    if (this.closed) return done();
    // What it writes now is its last batch: the new file's identity need not be read (logFileWrite).
    this.writer.closeStarted();
    // A one-shot session's lines may be in the store's journal only: the log is let go once its file holds them.
    this.writer.whenInFile((error) => {
      this.closed = true;
      if (error) {
        this.writer.retry(CLOSE_RETRIES, () => this.release());
        return done(error);
      }
      const unlocked = this.lock?.release();
      if (!unlocked) {
        this.release();
        return done();
      }
      const finish = (): void => {
        this.release();
        done();
      };
      void unlocked.then(finish, finish);
    });
  }

  private release(sync = false): void {
    if (this.released) return;
    this.released = true;
    this.writer.stop();
    createHeard(this.writer);
    if (sync) this.lock?.releaseSync();
    else void this.lock?.release();
    this.onClose?.(this);
  }
}

/**
 * Resolves when each of `logs` has written everything appended so far; rejects with the failure
 * of the first of them whose write failed. One promise for all of them: a fan-out's thousand
 * logs cost no promise each, nor a reaction each to gather them.
 */
export function allFlushed(logs: readonly JsonlSessionLog[]): Promise<void> {
  if (logs.length === 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const failures = new Array<ArborError | undefined>(logs.length);
    let left = logs.length;
    logs.forEach((log, i) =>
      log.whenFlushed((error) => {
        failures[i] = error;
        if (--left > 0) return;
        const failed = failures.find((f) => f !== undefined);
        if (failed) reject(failed);
        else resolve();
      }),
    );
  });
}

/**
 * The shapes of a durable log and of its parts (its writer, lines, problems, lock and place in
 * the journal) outlive the last agent (shapeAnchor.ts): one made the way the store makes a new
 * one-shot session's log, over stand-ins that hold nothing, its scheduler one that never arms a
 * timer.
 */
anchorShape(
  new JsonlSessionLog({
    file: '',
    header: Object.freeze({ id: '' }) as never,
    policy: Object.freeze({ flushDelayMs: 0, maxBufferedBytes: Number.MAX_SAFE_INTEGER, fsync: false }),
    pool: STAND_IN,
    scheduler: Object.freeze({ schedule: () => undefined, cancel: () => undefined }) as never,
    lock: new SessionLock(STAND_IN, ''),
    journal: STAND_IN,
    onError: () => undefined,
    onClose: () => undefined,
  }),
);
