import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError, errnoOf } from '../errors';

/**
 * The walk from a workspace folder down to a file, one name at a time, never following a link:
 * the mechanics behind ConfinedFiles (see confinedFs.ts for the guarantees and their limits).
 * A link met anywhere on the way is `linkAppeared` (PATH_OUTSIDE_WORKSPACE); other failures are
 * left as the system's errors for the caller to type.
 */
export const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL } = fs.constants;
// Absent on Windows: there openFinal looks with lstat right before it opens.
export const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
export const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;
// A FIFO put in a file's place must not block the read forever.
export const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** Where the walk stands: a folder inside the workspace, entered without following a link. */
export interface Cursor {
  /** The path that names `name` in this folder, for one system call that does not follow it. */
  at(name: string): string;
  enter(name: string, create: boolean, relative: string): Promise<void>;
  close(): Promise<void>;
}

/** Linux: each folder held open, the next name looked up in it through /proc/self/fd. */
export class PinnedCursor implements Cursor {
  private constructor(private dir: fs.promises.FileHandle) {}

  static async open(folder: string): Promise<PinnedCursor> {
    return new PinnedCursor(await fs.promises.open(folder, O_RDONLY | O_DIRECTORY));
  }

  at(name: string): string {
    return `/proc/self/fd/${this.dir.fd}/${name}`;
  }

  async enter(name: string, create: boolean, relative: string): Promise<void> {
    const flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
    let next: fs.promises.FileHandle;
    try {
      next = await fs.promises.open(this.at(name), flags);
    } catch (err) {
      if (!(create && errnoOf(err) === 'ENOENT')) throw await classified(err, this.at(name), relative);
      await fs.promises.mkdir(this.at(name)).catch((e: unknown) => (errnoOf(e) === 'EEXIST' ? undefined : Promise.reject(e)));
      next = await fs.promises.open(this.at(name), flags).catch(async (e: unknown) => Promise.reject(await classified(e, this.at(name), relative)));
    }
    await this.dir.close();
    this.dir = next;
  }

  close(): Promise<void> {
    return this.dir.close();
  }
}

/** Elsewhere: the real path of each folder, checked with lstat right before the next step. */
export class CheckedCursor implements Cursor {
  private constructor(private dir: string) {}

  static async open(folder: string): Promise<CheckedCursor> {
    return new CheckedCursor(await fs.promises.realpath(folder));
  }

  at(name: string): string {
    return path.join(this.dir, name);
  }

  async enter(name: string, create: boolean, relative: string): Promise<void> {
    const next = this.at(name);
    let stat = await fs.promises.lstat(next).catch((err: unknown) => (create && errnoOf(err) === 'ENOENT' ? undefined : Promise.reject(err)));
    if (!stat) {
      await fs.promises.mkdir(next).catch((e: unknown) => (errnoOf(e) === 'EEXIST' ? undefined : Promise.reject(e)));
      stat = await fs.promises.lstat(next);
    }
    if (stat.isSymbolicLink()) throw linkAppeared(relative);
    if (!stat.isDirectory()) throw Object.assign(new Error('ENOTDIR'), { code: 'ENOTDIR' });
    this.dir = next;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Opens the file itself without following a link; a link there is refused as a changed path. */
export async function openFinal(at: (name: string) => string, name: string, flags: number, relative: string): Promise<fs.promises.FileHandle> {
  const target = at(name);
  if (O_NOFOLLOW === 0) {
    // No O_NOFOLLOW on this platform: the best left is to look right before opening.
    const stat = await fs.promises.lstat(target).catch(() => undefined);
    if (stat?.isSymbolicLink()) throw linkAppeared(relative);
  }
  try {
    return await fs.promises.open(target, flags | O_NOFOLLOW, 0o666);
  } catch (err) {
    throw await classified(err, target, relative);
  }
}

/**
 * What a failure of a call that does not follow links says about the name it was made on.
 * ELOOP (EMLINK on the BSDs) from O_NOFOLLOW means the name was a link at that very moment.
 * ENOTDIR and EEXIST may mean a link too: the name is looked at again (lstat, which does not
 * follow it either); a link there, or a folder where the system just said "not a folder" (it
 * changed in between), is a path that changed since it was checked.
 */
async function classified(err: unknown, target: string, relative: string): Promise<unknown> {
  const errno = errnoOf(err);
  if (errno === 'ELOOP' || errno === 'EMLINK') return linkAppeared(relative);
  if (errno !== 'ENOTDIR' && errno !== 'EEXIST') return err;
  // What cannot be looked at is not a link that appeared: `err` stands.
  const stat = await fs.promises.lstat(target).catch(() => undefined);
  if (stat?.isSymbolicLink() || (errno === 'ENOTDIR' && stat?.isDirectory())) return linkAppeared(relative);
  return err;
}

/** The refusal of a path whose walk met a link: it changed since it was confined, and may lead anywhere. */
export function linkAppeared(relative: string): ArborError {
  return new ArborError(
    'PATH_OUTSIDE_WORKSPACE',
    `"${relative}" is refused: a symbolic link now stands where it was checked to be a plain folder or file, so it could lead outside the workspace. Nothing was read or written; check the path and ask again.`,
    { path: relative },
  );
}

/** Whether /proc/self/fd leads into an open folder here (Linux with /proc mounted). */
export async function procFdWorks(): Promise<boolean> {
  if (process.platform !== 'linux' || !fs.constants.O_NOFOLLOW || !fs.constants.O_DIRECTORY) return false;
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(path.parse(process.cwd()).root, O_RDONLY | O_DIRECTORY);
    const [through, direct] = await Promise.all([fs.promises.stat(`/proc/self/fd/${handle.fd}/.`), handle.stat()]);
    return through.ino === direct.ino && through.dev === direct.dev;
  } catch {
    // No /proc, or it does not lead into the folder: the walk does without it.
    return false;
  } finally {
    await handle?.close();
  }
}
