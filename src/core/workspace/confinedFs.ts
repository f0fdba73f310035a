import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError, errnoOf } from '../errors';
import { fileSystemError } from './fsErrors';
import { CheckedCursor, O_CREAT, O_EXCL, O_NONBLOCK, O_RDONLY, O_RDWR, O_WRONLY, PinnedCursor, linkAppeared, openFinal, procFdWorks, type Cursor } from './folderWalk';
import { isInside, outside } from './paths';
import type { WorkspacePath } from './port';

/**
 * File access that stays at the location a path was confined to, at the moment it happens, not
 * only when the path was checked (`resolveWorkspacePath` tells where a path leads; an approval
 * prompt can stay open for minutes and another process can swap a folder for a link meanwhile).
 *
 * Invariants:
 * - every name between the workspace folder and the file is entered without following a link,
 *   and the file itself is opened without following one (O_NOFOLLOW; O_CREAT|O_EXCL to create):
 *   a link found anywhere on the way, which `resolveWorkspacePath` never leaves in a path, means
 *   the path changed since it was checked, and the call is refused (PATH_OUTSIDE_WORKSPACE)
 *   having read or written nothing;
 * - an edit opens the file without truncating it, checks it still holds the expected text, and
 *   only then truncates and writes through the same handle, so what was checked is what is written;
 * - every failure is a typed ArborError naming the workspace path (fsErrors.ts).
 *
 * On Linux each folder is opened (O_DIRECTORY|O_NOFOLLOW) through the open handle of its parent
 * (`/proc/self/fd/<fd>/<name>`, Node's way to an openat): a link swapped in at any moment, even
 * between two steps, is refused, and a folder moved after it was entered is still the one
 * written in (the write follows the folder it checked, never a link). Where that is not available (macOS, Windows, no /proc) each folder is checked with
 * lstat right before the next step and the file is opened with O_NOFOLLOW where the platform has
 * it: a link swapped in during that short window between a check and its use remains possible.
 */
export class ConfinedFiles {
  private pinnedOk?: Promise<boolean>;

  /** `pinned: false` forces the check-then-use walk of the platforms without /proc. */
  constructor(private readonly options: { pinned?: boolean } = {}) {}

  /** The bytes of a regular file, at most `maxBytes`; FILE_NOT_FOUND for a missing file or a folder. */
  readFile(p: WorkspacePath, maxBytes: number): Promise<Buffer> {
    return this.within(p, false, async (at, name) => {
      if (name === undefined) throw isFolder(p.relative);
      const handle = await openFinal(at, name, O_RDONLY | O_NONBLOCK, p.relative);
      try {
        const stat = await handle.stat();
        if (stat.isDirectory()) throw isFolder(p.relative);
        if (!stat.isFile()) throw notRegular(p.relative);
        if (stat.size > maxBytes) {
          throw new ArborError('FILE_TOO_LARGE', `"${p.relative}" is ${stat.size} bytes, more than the ${maxBytes} Arbor reads; use search_text to find what you need in it.`, { path: p.relative });
        }
        return await handle.readFile();
      } finally {
        await handle.close();
      }
    });
  }

  /** Whether anything is at the path now (a link found on the way is refused, not followed). */
  async exists(p: WorkspacePath): Promise<boolean> {
    try {
      return await this.within(p, false, async (at, name) => {
        if (name !== undefined) await fs.promises.lstat(at(name));
        return true;
      });
    } catch (err) {
      // Nothing can be there: a missing name, or a file where a folder would have to be.
      if (err instanceof ArborError && (err.code === 'FILE_NOT_FOUND' || err.code === 'PATH_INVALID')) return false;
      throw err;
    }
  }

  /**
   * Writes the whole text. `expected` null: create, only if nothing is there (FILE_EXISTS);
   * a string: the file must hold exactly it right before the write (EDIT_STALE); omitted: create
   * or replace. Missing folders are made, except for an edit (its file was there).
   */
  writeText(p: WorkspacePath, text: string, expected?: string | null): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    if (expected === null) {
      return this.within(p, true, async (at, name) => {
        const handle = await openFinal(at, fileName(p, name), O_WRONLY | O_CREAT | O_EXCL, p.relative);
        await writeAll(handle, bytes);
      });
    }
    if (expected === undefined) {
      return this.within(p, true, async (at, name) => {
        const handle = await openFinal(at, fileName(p, name), O_RDWR | O_CREAT | O_NONBLOCK, p.relative);
        await writeAll(handle, bytes, true);
      });
    }
    return this.within(p, false, async (at, name) => {
      const handle = await openFinal(at, fileName(p, name), O_RDWR | O_NONBLOCK, p.relative);
      try {
        if (!(await handle.stat()).isFile()) throw notRegular(p.relative);
        const current = await handle.readFile();
        checkExpected(p.relative, decodeForCheck(current), expected);
      } catch (err) {
        await handle.close();
        throw err;
      }
      await writeAll(handle, bytes, true);
    }).catch((err: unknown) => {
      // A folder on the way that is gone means the file is gone: the edit is stale, not an error of the path.
      if (err instanceof ArborError && err.code === 'FILE_NOT_FOUND') checkExpected(p.relative, null, expected);
      throw err;
    });
  }

  /** Removes the file (not a folder); nothing to do when it is not there. */
  async deleteFile(p: WorkspacePath): Promise<void> {
    try {
      await this.within(p, false, async (at, name) => {
        await fs.promises.unlink(at(fileName(p, name)));
      });
    } catch (err) {
      if (err instanceof ArborError && err.code === 'FILE_NOT_FOUND') return;
      throw err;
    }
  }

  /**
   * Checks, without using the file, that the path still leads where it was confined to: for a
   * writer that cannot open the file itself (the editor's WorkspaceEdit), right before it writes.
   */
  async confirm(p: WorkspacePath): Promise<void> {
    try {
      await this.within(p, false, async (at, name) => {
        if (name === undefined) return;
        const stat = await fs.promises.lstat(at(name)).catch((err: unknown) => (errnoOf(err) === 'ENOENT' ? undefined : Promise.reject(err)));
        if (stat?.isSymbolicLink()) throw linkAppeared(p.relative);
      });
    } catch (err) {
      if (!(err instanceof ArborError && err.code === 'FILE_NOT_FOUND')) throw err;
    }
  }

  /** Walks to the file's folder (making missing folders when `create`) and runs `use` there. */
  private async within<T>(p: WorkspacePath, create: boolean, use: (at: (name: string) => string, name: string | undefined) => Promise<T>): Promise<T> {
    if (!isInside(p.folder, p.absolute)) throw outside(p.relative, 'it is not inside a workspace folder');
    const names = path.relative(p.folder, p.absolute).split(path.sep).filter((n) => n !== '');
    const name = names.pop();
    let cursor: Cursor | undefined;
    try {
      cursor = (await this.pinned()) ? await PinnedCursor.open(p.folder) : await CheckedCursor.open(p.folder);
      for (const dir of names) await cursor.enter(dir, create, p.relative);
      const here = cursor;
      return await use((n) => here.at(n), name);
    } catch (err) {
      throw fileSystemError(err, p.relative);
    } finally {
      await cursor?.close();
    }
  }

  private pinned(): Promise<boolean> {
    if (this.options.pinned === false) return Promise.resolve(false);
    return (this.pinnedOk ??= procFdWorks());
  }
}

/** The stale/exists check of `writeText`, shared by the implementations. */
export function checkExpected(relative: string, current: string | null, expected: string | null): void {
  if (expected === null && current !== null) {
    throw new ArborError('FILE_EXISTS', `"${relative}" already exists; use edit_file to change it.`, { path: relative });
  }
  if (expected !== null && current !== expected) {
    throw new ArborError(
      'EDIT_STALE',
      current === null
        ? `"${relative}" was deleted after you read it; nothing was written.`
        : `"${relative}" changed after you read it (someone edited or saved it meanwhile); nothing was written. Read it again and redo the edit.`,
      { path: relative },
    );
  }
}

/** Writes all of `bytes` from the start of the file (truncating it first when `truncate`), then closes it. */
async function writeAll(handle: fs.promises.FileHandle, bytes: Buffer, truncate = false): Promise<void> {
  try {
    if (truncate) await handle.truncate(0);
    for (let done = 0; done < bytes.length; ) done += (await handle.write(bytes, done, bytes.length - done, done)).bytesWritten;
  } finally {
    await handle.close();
  }
}

/** The file's own name; the workspace folder itself is never written as a file. */
function fileName(p: WorkspacePath, name: string | undefined): string {
  if (name === undefined) throw new ArborError('PATH_INVALID', `"${p.relative}" is the workspace folder, not a file. Name a file inside it.`, { path: p.relative });
  return name;
}

/** The file's text as the edit tools compare it (a BOM is not part of the text they read). */
function decodeForCheck(bytes: Buffer): string {
  const text = new TextDecoder('utf-8').decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function isFolder(relative: string): ArborError {
  return new ArborError('FILE_NOT_FOUND', `"${relative}" is a folder, not a file. Use list_files to see what it holds.`, { path: relative });
}

function notRegular(relative: string): ArborError {
  return new ArborError('PATH_INVALID', `"${relative}" is not a regular file (a device, a pipe or a socket); only text files can be read or edited.`, { path: relative });
}
