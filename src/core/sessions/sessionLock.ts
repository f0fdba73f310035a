import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { isoNow } from '../clock';
import { runAsync, runSync, type Steps } from './fileSteps';
import { FilePool } from './filePool';
import { findHolder, HOST, inUse, LOCK_FOLDER, otherWindowsSteps, replaceWindowFileSteps, windowFileName, type WindowFile, type SessionLockInfo } from './windowFiles';

/**
 * One writer per session across processes. Two editor windows can share a session folder (the
 * global storage when no folder is open), and two writers appending at their own offsets
 * corrupt a file within a few writes. Each store (one per window) keeps one lock file,
 * `locks/window-<pid>-<nonce>.lock` in the session folder, naming its window and process and
 * listing the sessions it has open for writing. A thousand sessions starting at once cost a
 * few rewrites of that file instead of a thousand lock files created and deleted.
 *
 * Invariants:
 * - A session is claimed by listing it in the window's file (replaced whole by a rename, so a
 *   reader never sees half of it) and only then reading the other windows' files. Of two
 *   windows claiming one session at the same moment, at least one sees the other's listing;
 *   a claim that finds the session listed by another live window is withdrawn and fails with
 *   SESSION_IN_USE naming that window. So two windows never hold one session. A session the
 *   store is creating is held once listed (`claim` with `fresh`): its file is created
 *   exclusively, so of two windows creating one id only one ever writes it.
 * - A writer claims a session before it creates or reopens its file and keeps it until the
 *   log is released; a release is on disk before it resolves, so another window may resume
 *   the session at once.
 * - Claims and releases made in one run of code, or while the file is being written, go into
 *   one write; one write runs at a time. The file exists only while it lists a session (the
 *   folder only while it holds a file). A synchronous claim or release (at the end of the
 *   process) writes the file at once, and an asynchronous write that finishes after it is
 *   followed by another synchronous one, so the file on disk always ends with every claim held.
 * - Files of this process (another store, such as one abandoned at deactivation) do not
 *   count: one process keeps its logs apart with the store's map of open logs.
 * - A window whose process is gone (same host, pid not alive) does not count, and its file is
 *   deleted: a crashed window's sessions are taken over. A window on another host holds (its
 *   process cannot be checked from here). A file that cannot be parsed names no session.
 *   (Writing this window's file and reading the others' is windowFiles.)
 * - The synchronous claim and release run the same steps (fileSteps) as the asynchronous
 *   writes: one replacement of the file, one read of the others, each written once.
 */

export interface LockOwner {
  /** Who holds the lock, in words a user recognises (for example "VS Code window for 'shop'"). */
  description: string;
}

/** Unique per process without a random draw per store. */
const PROCESS_NONCE = randomBytes(4).toString('hex');
let storeCounter = 0;

interface Claim {
  id: string;
  since: string;
  resolve: () => void;
  reject: (error: unknown) => void;
  /** Answered already, by a synchronous claim of the same session. */
  answered?: true;
  /** A session this store is creating (an id no file has): no other window can hold it. */
  fresh: boolean;
}

/** The lock file of one store: every session it writes, claimed and released in batches. */
export class WindowLock {
  readonly file: string;
  private readonly folder: string;
  /** Sessions held: id -> since. */
  private readonly held = new Map<string, string>();
  /** Claims waiting for the next write. */
  private claims: Claim[] = [];
  /** Releases waiting for the next write. */
  private released: (() => void)[] = [];
  /** Claims listed in the file while the other windows' files are read. */
  private readonly checking = new Map<string, string>();
  /** The claims of the batch being written and checked right now. */
  private inCheck: readonly Claim[] = [];
  /** The file lists a session it should not (a withdrawn claim, a failed write): write it again. */
  private rewrite = false;
  private running = false;
  /** Counts synchronous writes, so an asynchronous one that lands after them is corrected. */
  private syncWrites = 0;
  /** Batched synchronous releases (closing every log at the end of the process). */
  private deferSync = false;
  private releasedSync = false;
  private written = false;
  private temps = 0;
  /** Its own small pool: transient failures are retried, and no log's write waits behind it. */
  private readonly pool = new FilePool(1);

  constructor(
    root: string,
    private readonly owner: LockOwner,
  ) {
    this.folder = path.join(root, LOCK_FOLDER);
    this.file = path.join(this.folder, windowFileName(`${PROCESS_NONCE}${(++storeCounter).toString(36)}`));
  }

  holds(id: string): boolean {
    return this.held.has(id);
  }

  /**
   * Takes session `id` or rejects with SESSION_IN_USE (other failures are the file system's).
   * `fresh`: a session this store creates, whose file it will create exclusively. No other
   * window can hold it (a window holds only a session whose file it found or created, and the
   * exclusive create fails on a file that exists), so a batch of fresh claims is held once the
   * window's file lists it, without reading the other windows' files.
   */
  claim(id: string, fresh = false): Promise<void> {
    if (this.held.has(id)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.claims.push({ id, since: isoNow(), resolve, reject, fresh });
      this.schedule();
    });
  }

  /** Lets session `id` go; resolves once the file no longer lists it. Never rejects. */
  release(id: string): Promise<void> {
    if (!this.held.delete(id)) return Promise.resolve();
    return new Promise((resolve) => {
      this.released.push(resolve);
      this.schedule();
    });
  }

  /** `claim`, synchronously: throws SESSION_IN_USE or the file system's error. */
  claimSync(id: string): void {
    if (this.held.has(id)) return;
    this.held.set(id, isoNow());
    try {
      this.writeSync();
      const other = findHolder(runSync(otherWindowsSteps(this.folder, this.file)), id);
      if (other) throw inUse(id, other);
    } catch (e) {
      this.held.delete(id);
      this.tryWriteSync();
      throw e;
    }
    this.answerPending(id);
  }

  /**
   * The asynchronous claims of `id` still on their way are answered by the synchronous claim
   * that took it: checked later, after a release that came in between (a log closed at the end
   * of the process while its first write was claiming), they would take the session again and
   * leave it listed for a window that let it go.
   */
  private answerPending(id: string): void {
    for (const c of [...this.claims, ...this.inCheck]) {
      if (c.id !== id || c.answered) continue;
      c.answered = true;
      c.resolve();
    }
    this.claims = this.claims.filter((c) => c.id !== id);
    // Listed from now on as held, and no longer once released.
    this.checking.delete(id);
  }

  /** `release`, synchronously. Never throws (a file left listing it names a process that is gone by then). */
  releaseSync(id: string): void {
    if (!this.held.delete(id)) return;
    if (this.deferSync) this.releasedSync = true;
    else this.tryWriteSync();
  }

  /** Runs `work` (synchronous releases) and writes the file once after it. */
  batchSync(work: () => void): void {
    this.deferSync = true;
    try {
      work();
    } finally {
      this.deferSync = false;
      if (this.releasedSync) this.tryWriteSync();
      this.releasedSync = false;
    }
  }

  private schedule(): void {
    if (this.running) return;
    this.running = true;
    // After the current run of code: the claims it makes go into one write.
    queueMicrotask(() => void this.drain());
  }

  private async drain(): Promise<void> {
    try {
      while (this.claims.length > 0 || this.released.length > 0 || this.rewrite) {
        const claims = this.claims;
        const released = this.released;
        this.claims = [];
        this.released = [];
        this.rewrite = false;
        // Listed while checked; held only once no other window lists them.
        for (const c of claims) if (!this.held.has(c.id)) this.checking.set(c.id, c.since);
        this.inCheck = claims;
        try {
          await this.writeAsync();
          if (claims.length > 0) await this.settle(claims);
        } catch (e) {
          for (const c of claims) c.reject(e);
          this.rewrite = true;
          this.checking.clear();
          // Nothing else waits: the next claim or release writes the file again.
          if (this.claims.length === 0 && this.released.length === 0) this.rewrite = false;
        }
        this.inCheck = [];
        for (const r of released) r();
      }
    } finally {
      this.running = false;
    }
  }

  /** Holds each claim no other window lists; the others are withdrawn from the file, then refused. */
  private async settle(claims: readonly Claim[]): Promise<void> {
    const others = claims.every((c) => c.fresh) ? [] : await this.pool.run(() => runAsync(otherWindowsSteps(this.folder, this.file)));
    this.checking.clear();
    const refused: [Claim, SessionLockInfo][] = [];
    for (const c of claims) {
      if (c.answered) continue;
      const other = this.held.has(c.id) ? undefined : findHolder(others, c.id);
      if (other) {
        refused.push([c, other]);
      } else {
        this.held.set(c.id, c.since);
        c.resolve();
      }
    }
    if (refused.length === 0) return;
    try {
      await this.writeAsync();
    } catch {
      // The file still lists the refused claims: the next claim or release writes it again.
      this.rewrite = true;
    }
    for (const [c, other] of refused) c.reject(inUse(c.id, other));
  }

  /** What the file lists: the sessions held, and those being claimed right now (undefined: none). */
  private content(): string | undefined {
    if (this.held.size === 0 && this.checking.size === 0) return undefined;
    const sessions: Record<string, string> = {};
    for (const [id, since] of this.held) sessions[id] = since;
    for (const [id, since] of this.checking) sessions[id] ??= since;
    const file: WindowFile = { pid: process.pid, host: HOST, owner: this.owner.description, sessions };
    return JSON.stringify(file) + '\n';
  }

  private async writeAsync(): Promise<void> {
    const syncWrites = this.syncWrites;
    await this.pool.run(() => runAsync(this.writeSteps()));
    // A synchronous write made meanwhile may have landed first: this one then undid it.
    if (this.syncWrites !== syncWrites) this.writeSync();
  }

  private writeSync(): void {
    this.syncWrites++;
    runSync(this.writeSteps());
  }

  /** Replaces the file with what it should list (read when the write runs), or deletes it when that is nothing. */
  private *writeSteps(): Steps<void> {
    const data = this.content();
    if (data === undefined && !this.written) return;
    this.written = yield* replaceWindowFileSteps(this.folder, this.file, data, () => `${this.file}.${++this.temps}.tmp`, !this.written);
  }

  private tryWriteSync(): void {
    try {
      this.writeSync();
    } catch {
      // The file keeps naming sessions this process let go: once it is gone, they are taken over.
    }
  }
}

/** One session's view of its store's lock, as a log uses it. */
export class SessionLock {
  constructor(
    private readonly window: WindowLock,
    readonly sessionId: string,
    /** A new session of this store (WindowLock.claim). */
    private readonly fresh = false,
  ) {}

  get isHeld(): boolean {
    return this.window.holds(this.sessionId);
  }

  /** Takes the lock or throws SESSION_IN_USE, without blocking the event loop. */
  acquire(): Promise<void> {
    return this.window.claim(this.sessionId, this.fresh);
  }

  /** Lets the session go, without blocking. Never rejects. */
  release(): Promise<void> {
    return this.window.release(this.sessionId);
  }

  /** Takes the lock or throws SESSION_IN_USE; other failures are the file system's errors. */
  acquireSync(): void {
    this.window.claimSync(this.sessionId);
  }

  /** Lets the session go. Never throws. */
  releaseSync(): void {
    this.window.releaseSync(this.sessionId);
  }
}
