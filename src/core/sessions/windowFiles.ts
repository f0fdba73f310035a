import * as os from 'node:os';
import * as path from 'node:path';
import * as z from 'zod';
import { ArborError, errnoOf } from '../errors';
import { once } from '../once';
import { mkdir, readdir, readText, rename, rm, rmdir, writeFile, type Steps } from './fileSteps';

/**
 * The windows' lock files in a session folder (`locks/window-<pid>-<nonce>.lock`), as the
 * window lock writes its own and reads the others: who each names, which sessions it lists,
 * and whether its process is gone. A window's file is replaced whole by a rename, so a reader
 * never sees half of it, and exists only while it lists a session. A window whose process is gone (same host, pid not alive) does not count, and its file
 * is deleted as it is read; a window on another host holds (its process cannot be checked from
 * here). A file that cannot be parsed, or that names this process, names no other window.
 */

const windowFileSchema = once(() => z.object({
  pid: z.number().int(),
  host: z.string(),
  owner: z.string(),
  /** Session id -> when it was claimed. */
  sessions: z.record(z.string(), z.string()),
}));
export type WindowFile = z.infer<ReturnType<typeof windowFileSchema>>;

/** Who holds a session, as a SESSION_IN_USE error names it. */
export interface SessionLockInfo {
  pid: number;
  host: string;
  owner: string;
  since: string;
}

/** The folder of the windows' lock files, inside the session folder. */
export const LOCK_FOLDER = 'locks';
const FILE_PREFIX = 'window-';
const FILE_SUFFIX = '.lock';
export const HOST = os.hostname();

/** The name of a window's lock file; `unique` tells the stores of one process apart. */
export function windowFileName(unique: string): string {
  return `${FILE_PREFIX}${process.pid}-${unique}${FILE_SUFFIX}`;
}

/**
 * Replaces the window's lock file `file` with `data` through a temporary file named by
 * `tempName`, or deletes it (and the folder, once no window's file is in it) when `data` is
 * undefined. Returns whether the file now exists. `absent`: the file is not there, so neither is the
 * folder, most likely (it goes with the last window's file): it is made first, one step where a
 * write failing for want of it and the folder made after are two.
 */
export function* replaceWindowFileSteps(folder: string, file: string, data: string | undefined, tempName: () => string, absent = false): Steps<boolean> {
  if (data === undefined) {
    yield* rm(file);
    try {
      // The folder goes with the last window's file (one another window writes meanwhile keeps it).
      yield* rmdir(folder);
    } catch {
      // Another window's file is in it.
    }
    return false;
  }
  const temp = tempName();
  for (let attempt = 1; ; attempt++) {
    try {
      if (absent || attempt > 1) yield* mkdir(folder);
      yield* writeFile(temp, data);
      break;
    } catch (e) {
      // No folder yet, or the last other window removed it just now: as its make found it, or after.
      if (errnoOf(e) !== 'ENOENT' || attempt >= 3) throw e;
    }
  }
  try {
    yield* rename(temp, file);
  } catch (e) {
    yield* rm(temp);
    throw e;
  }
  return true;
}

/** The lock files of the other live windows; those of dead processes are deleted. */
export function* otherWindowsSteps(folder: string, own: string): Steps<WindowFile[]> {
  let names: string[];
  try {
    names = yield* readdir(folder);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return [];
    throw e;
  }
  const found: WindowFile[] = [];
  for (const name of names) {
    if (!name.startsWith(FILE_PREFIX) || !name.endsWith(FILE_SUFFIX)) continue;
    const file = path.join(folder, name);
    if (file === own) continue;
    let text: string;
    try {
      text = yield* readText(file);
    } catch {
      continue; // deleted since the listing: that window let go of everything
    }
    const other = otherWindow(text);
    if (other?.gone) {
      try {
        yield* rm(file);
      } catch {
        // Left for the next reader: it still names a process that is gone.
      }
    } else if (other) {
      found.push(other.window);
    }
  }
  return found;
}

/** Another window's lock file as read, and whether its process is gone; undefined when it names no window or this process. */
function otherWindow(text: string): { window: WindowFile; gone: boolean } | undefined {
  const window = parseWindowFile(text);
  if (window === undefined || (window.pid === process.pid && window.host === HOST)) return undefined;
  // Another host's process cannot be checked from here: its lock holds.
  return { window, gone: window.host === HOST && !isProcessAlive(window.pid) };
}

function parseWindowFile(text: string): WindowFile | undefined {
  try {
    const parsed = windowFileSchema().safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // not JSON: a file that cannot be parsed names no session
  }
}

export function findHolder(windows: readonly WindowFile[], id: string): SessionLockInfo | undefined {
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
    return errnoOf(e) === 'EPERM';
  }
}

export function inUse(id: string, info: SessionLockInfo): ArborError {
  const where = info.host === HOST ? `process ${info.pid}` : `process ${info.pid} on ${info.host}`;
  return new ArborError(
    'SESSION_IN_USE',
    `Session ${id} is open for writing in another window: ${info.owner} (${where}), since ${info.since}. End its agent there or close that window, then resume it here.`,
    { id, owner: info.owner, pid: info.pid, host: info.host, since: info.since },
  );
}
