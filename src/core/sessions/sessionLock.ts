import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as z from 'zod';
import { ArborError } from '../errors';

/**
 * One writer per session across processes. Two editor windows can share a session folder (the
 * global storage when no folder is open), and two writers appending at their own offsets
 * corrupt a file within a few writes. Whoever writes a session holds `<session file>.lock`,
 * created exclusively (O_EXCL) and holding who owns it.
 *
 * Invariants:
 * - A writer takes the lock before it creates or reopens the file, and keeps it until the log
 *   is released; a second writer gets SESSION_IN_USE naming the owner.
 * - The lock is between processes: each window has its own extension host process, and one
 *   process keeps its own logs apart (the store's map of open logs). A lock this process holds
 *   is taken over by another store of the same process (a store abandoned at deactivation).
 * - A lock whose owner process is gone (same host, pid not alive) is taken over. Takeovers are
 *   serialised by a second exclusive file (`.lock.takeover`): only its holder may delete the
 *   stale lock, and only after checking, while holding it, that the lock is still the stale one
 *   it inspected. So a live owner's lock is never deleted.
 * - A lock file that cannot be read (its owner died between creating and filling it) counts as
 *   stale once it is older than a few seconds.
 */

const lockInfoSchema = z.object({
  lockId: z.string(),
  pid: z.number().int(),
  host: z.string(),
  since: z.string(),
  owner: z.string(),
  session: z.string(),
});
export type SessionLockInfo = z.infer<typeof lockInfoSchema>;

const UNREADABLE_STALE_MS = 5_000;
/** Lock ids: unique per process without a random draw per lock. */
const PROCESS_NONCE = randomBytes(6).toString('hex');
let lockCounter = 0;
const TAKEOVER_STALE_MS = 10_000;

export interface LockOwner {
  /** Who holds the lock, in words a user recognises (for example "VS Code window for 'shop'"). */
  description: string;
}

export function lockFileOf(sessionFile: string): string {
  return `${sessionFile}.lock`;
}

export class SessionLock {
  readonly file: string;
  private held: SessionLockInfo | undefined;

  constructor(
    sessionFile: string,
    private readonly sessionId: string,
    private readonly owner: LockOwner,
  ) {
    this.file = lockFileOf(sessionFile);
  }

  get isHeld(): boolean {
    return this.held !== undefined;
  }

  private newInfo(): SessionLockInfo {
    return {
      lockId: `${PROCESS_NONCE}-${++lockCounter}`,
      pid: process.pid,
      host: HOST,
      since: new Date().toISOString(),
      owner: this.owner.description,
      session: this.sessionId,
    };
  }

  /** Takes the lock or throws SESSION_IN_USE, without blocking the event loop. */
  async acquire(): Promise<void> {
    if (this.held) return;
    const info = this.newInfo();
    const content = JSON.stringify(info) + '\n';
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await writeExclusive(this.file, content)) {
        this.held = info;
        return;
      }
      const current = await readLock(this.file);
      if (current === 'missing') continue;
      if (!(await isStaleAsync(current, this.file))) throw inUse(this.sessionId, current);
      // Rare (a crashed window): the takeover runs synchronously, under its guard file.
      this.takeOverSync(current);
    }
    throw inUse(this.sessionId, await readLock(this.file));
  }

  /** Deletes the lock if this object still holds it, without blocking. Never rejects. */
  async release(): Promise<void> {
    if (!this.held) return;
    const mine = this.held;
    this.held = undefined;
    try {
      const current = await readLock(this.file);
      if (typeof current === 'object' && current.lockId === mine.lockId) await fs.promises.rm(this.file, { force: true });
    } catch {
      // A lock left behind names a process that is gone: the next writer takes it over.
    }
  }

  /** Takes the lock or throws SESSION_IN_USE; other failures are the file system's errors. */
  acquireSync(): void {
    if (this.held) return;
    const info = this.newInfo();
    const content = JSON.stringify(info) + '\n';
    for (let attempt = 0; attempt < 3; attempt++) {
      if (writeExclusiveSync(this.file, content)) {
        this.held = info;
        return;
      }
      const current = readLockSync(this.file);
      if (current === 'missing') continue;
      if (!isStale(current, this.file)) throw inUse(this.sessionId, current);
      this.takeOverSync(current);
    }
    throw inUse(this.sessionId, readLockSync(this.file));
  }

  /** Deletes the lock if this object still holds it. Never throws. */
  releaseSync(): void {
    if (!this.held) return;
    const mine = this.held;
    this.held = undefined;
    try {
      const current = readLockSync(this.file);
      if (typeof current === 'object' && current.lockId === mine.lockId) fs.rmSync(this.file, { force: true });
    } catch {
      // A lock left behind names a process that is gone: the next writer takes it over.
    }
  }

  private takeOverSync(stale: SessionLockInfo | 'unreadable'): void {
    const guard = `${this.file}.takeover`;
    if (!writeExclusiveSync(guard, String(process.pid))) {
      // Someone else is taking over right now, unless a taker died half-way long ago.
      if (Date.now() - mtimeMs(guard) < TAKEOVER_STALE_MS) throw inUse(this.sessionId, readLockSync(this.file));
      fs.rmSync(guard, { force: true });
      return;
    }
    try {
      const now = readLockSync(this.file);
      const same = now === 'unreadable' ? stale === 'unreadable' : typeof now === 'object' && typeof stale === 'object' && now.lockId === stale.lockId;
      if (same) fs.rmSync(this.file, { force: true });
    } finally {
      fs.rmSync(guard, { force: true });
    }
  }
}

function writeExclusiveSync(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'ENOENT') throw e;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    return writeExclusiveSync(file, content);
  }
  try {
    fs.writeSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

async function writeExclusive(file: string, content: string): Promise<boolean> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'wx');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'ENOENT') throw e;
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    return writeExclusive(file, content);
  }
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return true;
}

async function readLock(file: string): Promise<SessionLockInfo | 'unreadable' | 'missing'> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw e;
  }
  return lockFromText(text);
}

function lockFromText(text: string): SessionLockInfo | 'unreadable' {
  try {
    const parsed = lockInfoSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

async function isStaleAsync(info: SessionLockInfo | 'unreadable', file: string): Promise<boolean> {
  if (info !== 'unreadable') return isStale(info, file);
  try {
    return Date.now() - (await fs.promises.stat(file)).mtimeMs > UNREADABLE_STALE_MS;
  } catch {
    return true;
  }
}

function readLockSync(file: string): SessionLockInfo | 'unreadable' | 'missing' {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw e;
  }
  return lockFromText(text);
}

function mtimeMs(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function isStale(info: SessionLockInfo | 'unreadable', file: string): boolean {
  if (info === 'unreadable') return Date.now() - mtimeMs(file) > UNREADABLE_STALE_MS;
  // Another machine's process cannot be checked from here: its lock holds.
  if (info.host !== HOST) return false;
  return info.pid === process.pid || !isProcessAlive(info.pid);
}

const HOST = os.hostname();

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function inUse(id: string, info: SessionLockInfo | 'unreadable' | 'missing'): ArborError {
  if (typeof info !== 'object') {
    return new ArborError('SESSION_IN_USE', `Session ${id} is being opened by another window right now. Try again in a moment.`, { id });
  }
  const where = info.host === os.hostname() ? `process ${info.pid}` : `process ${info.pid} on ${info.host}`;
  return new ArborError(
    'SESSION_IN_USE',
    `Session ${id} is open for writing in another window: ${info.owner} (${where}), since ${info.since}. End its agent there or close that window, then resume it here.`,
    { id, owner: info.owner, pid: info.pid, host: info.host, since: info.since },
  );
}
