import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError } from '../errors';
import type { WorkspacePath } from './port';

/**
 * Confines a path a model gave to the workspace folders. Relative paths are taken from the first
 * folder (or from the folder a multi-root path names first); absolute paths must lie in a folder.
 * The check is made twice: on the path as written (`..` cannot climb out) and on the real path
 * of its deepest existing part, so a symlink inside the workspace that leads elsewhere is
 * refused too. Everything refused is PATH_OUTSIDE_WORKSPACE; no folder at all is WORKSPACE_NONE.
 */
export async function resolveWorkspacePath(folders: readonly string[], input: string): Promise<WorkspacePath> {
  if (folders.length === 0) throw noWorkspace();
  const given = input.trim();
  if (given.includes('\0')) throw new ArborError('TOOL_ARGUMENTS_INVALID', 'The path contains a NUL character.');
  const { folder, absolute } = lexical(folders, given === '' ? '.' : given);
  const realFolder = await realpathOr(folder);
  const real = await realOfDeepestExisting(absolute);
  if (!isInside(realFolder, real)) {
    throw outside(input, 'it leads through a symbolic link to a place outside the workspace');
  }
  const relative = toPosix(path.relative(folder, absolute)) || '.';
  // In a multi-root workspace the folder's name leads, as in the editor's own relative paths.
  return { absolute, folder, relative: folders.length > 1 ? `${path.basename(folder)}/${relative}` : relative };
}

export function noWorkspace(): ArborError {
  return new ArborError('WORKSPACE_NONE', 'No workspace folder is open, so there are no files to work on. Ask the user to open a folder.');
}

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
    const [first, ...tail] = given.split(/[\\/]/);
    const named = folders.find((f) => path.basename(f) === first);
    if (named) {
      folder = path.resolve(named);
      rest = tail.join('/') || '.';
    }
  }
  const absolute = path.resolve(folder, rest);
  if (!isInside(folder, absolute)) throw outside(given, 'it climbs out of the workspace folder');
  return { folder, absolute };
}

/** The real path of `p`, or of its deepest existing ancestor with the missing tail appended. */
async function realOfDeepestExisting(p: string): Promise<string> {
  let current = p;
  const tail: string[] = [];
  for (;;) {
    try {
      return path.join(await fs.promises.realpath(current), ...tail.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return p;
      tail.push(path.basename(current));
      current = parent;
    }
  }
}

async function realpathOr(p: string): Promise<string> {
  try {
    return await fs.promises.realpath(p);
  } catch {
    return p;
  }
}

export function isInside(folder: string, candidate: string): boolean {
  const rel = path.relative(folder, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

function outside(input: string, why: string): ArborError {
  return new ArborError('PATH_OUTSIDE_WORKSPACE', `"${input}" is refused: ${why}. Use a path relative to the workspace folder.`, { path: input });
}
