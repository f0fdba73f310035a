import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError, errnoOf } from '../errors';
import { fileSystemError } from './fsErrors';
import type { WorkspacePath } from './port';

/**
 * Confines a path a model gave to the workspace folders, by where it REALLY leads, not by how
 * it is spelled. Relative paths are taken from the first folder (or from the folder a
 * multi-root path names first); absolute paths must lie in a folder.
 *
 * - The spelling is checked first (`..` cannot climb out), split only on the platform's
 *   separator: on Linux and macOS a backslash is an ordinary character of a name.
 * - Then every part is walked from the folder's real path with lstat, and every symbolic link
 *   on the way is followed by reading it, the last one and dangling ones included: a link to a
 *   file that does not exist yet still says where a write through it would land. A walk that
 *   ends outside the folder's real path is PATH_OUTSIDE_WORKSPACE.
 * - The result names the real location: `absolute` is the folder joined with the real path
 *   inside it (no link left in it) and `relative` is what rules match and people approve. So a
 *   link `src/hooks -> ../.git/hooks` gives `.git/hooks/pre-commit`, never `src/hooks/...`.
 *
 * This check tells where a path leads now; the port's file access (confinedFs.ts) re-checks that
 * location when it is used, refusing any link that appeared since.
 * A loop of links, a file used as a folder, a name too long are PATH_INVALID; no folder at all is
 * WORKSPACE_NONE.
 */
export async function resolveWorkspacePath(folders: readonly string[], input: string): Promise<WorkspacePath> {
  if (folders.length === 0) throw noWorkspace();
  const given = input.trim();
  if (given.includes('\0')) throw new ArborError('TOOL_ARGUMENTS_INVALID', 'The path contains a NUL character.');
  const { folder, absolute } = lexical(folders, given === '' ? '.' : given);
  const realFolder = await realpathOr(folder);
  // When the whole path exists the system's realpath is that walk, done at once; otherwise (a
  // missing name, a dangling link, a failure to type) the walk below does it step by step. Then
  // the platform's own spelling of what exists (the case of names on a case-insensitive disk).
  const real = (await fs.promises.realpath(absolute).catch(() => undefined)) ?? (await realOfDeepestExisting(await walkReal(realFolder, path.relative(folder, absolute), input))).real;
  if (!isInside(realFolder, real)) {
    throw outside(input, 'it leads through a symbolic link to a place outside the workspace');
  }
  const inside = path.relative(realFolder, real);
  const relative = toPosix(inside) || '.';
  // In a multi-root workspace the folder's name leads, as in the editor's own relative paths.
  return { absolute: path.join(folder, inside), folder, relative: folders.length > 1 ? `${path.basename(folder)}/${relative}` : relative };
}

export function noWorkspace(): ArborError {
  return new ArborError('WORKSPACE_NONE', 'No workspace folder is open, so there are no files to work on. Ask the user to open a folder.');
}

/** The separators of a path on this platform: only `/` on Linux and macOS, `/` and `\` on Windows. */
const SEPARATORS = path.sep === '\\' ? /[\\/]+/ : /\/+/;
/** Links followed in one walk before it is taken for a loop (Linux's own limit). */
const MAX_LINKS = 40;

function lexical(folders: readonly string[], given: string): { folder: string; absolute: string } {
  if (path.isAbsolute(given)) {
    const absolute = path.resolve(given);
    const folder = folders.find((f) => isInside(path.resolve(f), absolute));
    if (!folder) throw outside(given, 'it is not inside a workspace folder');
    return { folder: path.resolve(folder), absolute };
  }
  let folder = path.resolve(folders[0]);
  let rest = given;
  if (folders.length > 1) {
    const [first, ...tail] = given.split(SEPARATORS);
    const named = folders.find((f) => path.basename(f) === first);
    if (named) {
      folder = path.resolve(named);
      rest = tail.join(path.sep) || '.';
    }
  }
  const absolute = path.resolve(folder, rest);
  if (!isInside(folder, absolute)) throw outside(given, 'it climbs out of the workspace folder');
  return { folder, absolute };
}

/**
 * Where `rest` leads from the real folder `start`: each name is looked at with lstat; a link is
 * replaced by its target (relative to the link's folder, or from the root when absolute), so a
 * dangling link is followed as far as it goes. The first name that does not exist ends the
 * walk: nothing below it exists either, so the rest is taken as written.
 */
async function walkReal(start: string, rest: string, input: string): Promise<string> {
  let current = start;
  const pending = namesOf(rest);
  let links = 0;
  while (pending.length > 0) {
    const name = pending.shift()!;
    if (name === '.') continue;
    if (name === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, name);
    let stat: fs.Stats;
    try {
      stat = await fs.promises.lstat(next);
    } catch (err) {
      if (errnoOf(err) !== 'ENOENT') throw fileSystemError(err, input);
      // A `..` below a missing folder has no answer on disk (the system fails there): refused.
      if (pending.includes('..')) throw outside(input, 'it leads through a symbolic link into a folder that does not exist, so where it ends cannot be known');
      return path.join(next, ...pending);
    }
    if (stat.isSymbolicLink()) {
      if (++links > MAX_LINKS) throw fileSystemError(Object.assign(new Error('ELOOP'), { code: 'ELOOP' }), input);
      const target = await fs.promises.readlink(next).catch((err: unknown) => {
        // No longer a link (EINVAL) or gone (ENOENT) a moment after lstat saw one: it is being changed.
        if (errnoOf(err) === 'EINVAL' || errnoOf(err) === 'ENOENT') throw outside(input, 'it changed while it was being checked, so where it leads cannot be known');
        throw fileSystemError(err, input);
      });
      if (path.isAbsolute(target)) {
        const { root } = path.parse(target);
        current = root;
        pending.unshift(...namesOf(target.slice(root.length)));
      } else {
        pending.unshift(...namesOf(target));
      }
      continue;
    }
    if (!stat.isDirectory() && pending.length > 0) {
      throw fileSystemError(Object.assign(new Error('ENOTDIR'), { code: 'ENOTDIR' }), input);
    }
    current = next;
  }
  return current;
}

function namesOf(p: string): string[] {
  return p.split(SEPARATORS).filter((name) => name !== '');
}

/**
 * The real path of `p`, or of its deepest existing ancestor with the missing tail appended, and
 * whether `p` itself exists. Shared by path and glob confinement.
 */
export async function realOfDeepestExisting(p: string): Promise<{ real: string; exists: boolean }> {
  let current = p;
  const tail: string[] = [];
  for (;;) {
    try {
      return { real: path.join(await fs.promises.realpath(current), ...tail.reverse()), exists: tail.length === 0 };
    } catch {
      // Not there (yet): the real path of its parent, with the missing names after it.
      const parent = path.dirname(current);
      if (parent === current) return { real: p, exists: false };
      tail.push(path.basename(current));
      current = parent;
    }
  }
}

/** The real path of `p`, or `p` as given while it does not exist. */
export async function realpathOr(p: string): Promise<string> {
  try {
    return await fs.promises.realpath(p);
  } catch {
    // Not there (yet): the path as given.
    return p;
  }
}

export function isInside(folder: string, candidate: string): boolean {
  const rel = path.relative(folder, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

export function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

export function outside(input: string, why: string): ArborError {
  return new ArborError('PATH_OUTSIDE_WORKSPACE', `"${input}" is refused: ${why}. Use a path relative to the workspace folder.`, { path: input });
}
