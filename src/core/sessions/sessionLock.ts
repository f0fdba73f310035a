// Why this file stays whole: the claim protocol (list the claim in the window's own file,
// then read the others), stale-owner takeover and the batching of writes are one algorithm
// whose invariants (below) only hold together; splitting it would scatter its proof.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as z from 'zod';
import { isoNow } from '../clock';
import { ArborError } from '../errors';
import { once } from '../once';
import { FilePool } from './filePool';

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
 *   SESSION_IN_USE naming that window. So two windows never hold one session.
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
 */

const windowFileSchema = once(() => z.object({
  pid: z.number().int(),
  host: z.string(),
  owner: z.string(),
  /** Session id -> when it was claimed. */
  sessions: z.record(z.string(), z.string()),
}));
type WindowFile = z.infer<ReturnType<typeof windowFileSchema>>;

/** Who holds a session, as a SESSION_IN_USE error names it. */
export interface SessionLockInfo {
  pid: number;
  host: string;
  owner: string;
  since: string;
}

export interface LockOwner {
  /** Who holds the lock, in words a user recognises (for example "VS Code window for 'shop'"). */
  description: string;
}

/** The folder of the windows' lock files, inside the session folder. */
export const LOCK_FOLDER = 'locks';
const FILE_PREFIX = 'window-';
const FILE_SUFFIX = '.lock';
/** Unique per process without a random draw per store. */
const PROCESS_NONCE = randomBytes(4).toString('hex');
let storeCounter = 0;
const HOST = os.hostname();

interface Claim {
  id: string;
  since: string;
  resolve: () => void;
  reject: (error: unknown) => void;
  /** Answered already, by a synchronous claim of the same session. */
  answered?: true;
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
    this.file = path.join(this.folder, `${FILE_PREFIX}${process.pid}-${PROCESS_NONCE}${(++storeCounter).toString(36)}${FILE_SUFFIX}`);
  }

  holds(id: string): boolean {
    return this.held.has(id);
  }

  /** Takes session `id` or rejects with SESSION_IN_USE (other failures are the file system's). */
  claim(id: string): Promise<void> {
    if (this.held.has(id)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.claims.push({ id, since: isoNow(), resolve, reject });
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
      const other = findHolder(readOtherWindowsSync(this.folder, this.file), id);
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
    const others = await this.pool.run(() => readOtherWindows(this.folder, this.file));
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
    await this.pool.run(() => this.write());
    // A synchronous write made meanwhile may have landed first: this one then undid it.
    if (this.syncWrites !== syncWrites) this.writeSync();
  }

  /** Replaces the file with what it should list, or deletes it when that is nothing. */
  private async write(): Promise<void> {
    const data = this.content();
    if (data === undefined) {
      if (!this.written) return;
      await fs.promises.rm(this.file, { force: true });
      this.written = false;
      // The folder goes with the last window's file (one another window writes meanwhile keeps it).
      await fs.promises.rmdir(this.folder).catch(() => undefined);
      return;
    }
    const temp = `${this.file}.${++this.temps}.tmp`;
    for (let attempt = 1; ; attempt++) {
      try {
        await fs.promises.writeFile(temp, data);
        break;
      } catch (e) {
        // No folder yet, or the last other window removed it just now.
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 3) throw e;
        await fs.promises.mkdir(this.folder, { recursive: true });
      }
    }
    try {
      await fs.promises.rename(temp, this.file);
    } catch (e) {
      await fs.promises.rm(temp, { force: true });
      throw e;
    }
    this.written = true;
  }

  private writeSync(): void {
    this.syncWrites++;
    const data = this.content();
    if (data === undefined) {
      if (!this.written) return;
      fs.rmSync(this.file, { force: true });
      this.written = false;
      try {
        fs.rmdirSync(this.folder);
      } catch {
        // Another window's file is in it.
      }
      return;
    }
    const temp = `${this.file}.${++this.temps}.tmp`;
    for (let attempt = 1; ; attempt++) {
      try {
        fs.writeFileSync(temp, data);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 3) throw e;
        fs.mkdirSync(this.folder, { recursive: true });
      }
    }
    try {
      fs.renameSync(temp, this.file);
    } catch (e) {
      fs.rmSync(temp, { force: true });
      throw e;
    }
    this.written = true;
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
  ) {}

  get isHeld(): boolean {
    return this.window.holds(this.sessionId);
  }

  /** Takes the lock or throws SESSION_IN_USE, without blocking the event loop. */
  acquire(): Promise<void> {
    return this.window.claim(this.sessionId);
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

function isWindowFile(name: string): boolean {
  return name.startsWith(FILE_PREFIX) && name.endsWith(FILE_SUFFIX);
}

/** The lock files of the other live windows; those of dead processes are deleted. */
async function readOtherWindows(folder: string, own: string): Promise<WindowFile[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(folder);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const found: WindowFile[] = [];
  for (const file of otherLockFiles(folder, own, names)) {
    let text: string;
    try {
      text = await fs.promises.readFile(file, 'utf8');
    } catch {
      continue; // deleted since the listing: that window let go of everything
    }
    const other = otherWindow(text);
    if (other?.gone) await fs.promises.rm(file, { force: true }).catch(() => undefined);
    else if (other) found.push(other.window);
  }
  return found;
}

/** The same, synchronously (a claim or release at the end of the process). */
function readOtherWindowsSync(folder: string, own: string): WindowFile[] {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const found: WindowFile[] = [];
  for (const file of otherLockFiles(folder, own, names)) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const other = otherWindow(text);
    if (other?.gone) fs.rmSync(file, { force: true });
    else if (other) found.push(other.window);
  }
  return found;
}

/** The paths of the window lock files in the folder's listing, except this window's own. */
function otherLockFiles(folder: string, own: string, names: readonly string[]): string[] {
  return names.filter(isWindowFile).map((name) => path.join(folder, name)).filter((file) => file !== own);
}

/** Another window's lock file as read, and whether its process is gone; undefined when it names no window or this process. */
function otherWindow(text: string): { window: WindowFile; gone: boolean } | undefined {
  const window = parseWindowFile(text);
  if (window === undefined || (window.pid === process.pid && window.host === HOST)) return undefined;
  return { window, gone: isGone(window) };
}

function parseWindowFile(text: string): WindowFile | undefined {
  try {
    const parsed = windowFileSchema().safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Another host's process cannot be checked from here: its lock holds. */
function isGone(window: WindowFile): boolean {
  return window.host === HOST && !isProcessAlive(window.pid);
}

function findHolder(windows: readonly WindowFile[], id: string): SessionLockInfo | undefined {
  for (const w of windows) {
    const since = Object.hasOwn(w.sessions, id) ? w.sessions[id] : undefined;
    if (since !== undefined) return { pid: w.pid, host: w.host, owner: w.owner, since };
  }
  return undefined;
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function inUse(id: string, info: SessionLockInfo): ArborError {
  const where = info.host === HOST ? `process ${info.pid}` : `process ${info.pid} on ${info.host}`;
  return new ArborError(
    'SESSION_IN_USE',
    `Session ${id} is open for writing in another window: ${info.owner} (${where}), since ${info.since}. End its agent there or close that window, then resume it here.`,
    { id, owner: info.owner, pid: info.pid, host: info.host, since: info.since },
  );
}
