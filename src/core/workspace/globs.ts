import * as fs from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { ArborError } from '../errors';
import { isInside, noWorkspace, realOfDeepestExisting, realpathOr, toPosix } from './paths';

/**
 * Confines a listing or search glob to the workspace folders before anything walks it. Both
 * walkers (ripgrep and the Node scan) take their scope from here, so they refuse the same globs
 * the same way and start at the same place.
 *
 * Invariants:
 * - a glob that is absolute (a leading separator, a drive, a UNC share) or has a `..` segment is
 *   refused with PATH_OUTSIDE_WORKSPACE before any file is touched;
 * - the glob's literal folder prefix (its leading segments without glob syntax) is where a walk
 *   may start, and only after the real path of its deepest existing part lies inside the real
 *   workspace folder; one that leads out through a symbolic link is refused the same way;
 * - a literal prefix that is a symbolic link to a place inside the workspace is walked as its
 *   real path, and its files are named by their real workspace-relative paths: the names the
 *   walks give everywhere else, since neither walk follows a link it meets;
 * - a walk starts only at `root`, a relative path built from checked segments, never at text
 *   the model wrote.
 * Globs are split on `/`, and on `\` only where it is the platform's separator; elsewhere a
 * backslash is a glob escape inside a name. An escaped backslash (two in a row) is refused
 * (TOOL_ARGUMENTS_INVALID) before the matcher sees it: picomatch 4 loops forever on some such
 * globs (`(\\\\`, `[\\\\`), and a glob the model wrote must never be able to stall the
 * extension host.
 */
export interface GlobScope {
  /** The workspace folder, absolute. */
  readonly folder: string;
  /** Where the walk starts, relative to the folder with forward slashes; '' for the folder itself. */
  readonly root: string;
  /** Whether a file (relative to the folder, forward slashes) is one the glob asks for. */
  readonly match: (relative: string) => boolean;
  /** The glob, when it names no folder: it matches that name at any depth. */
  readonly name?: string;
}

export interface ParsedGlob {
  /** The glob's segments, without `.` and empty ones. */
  readonly segments: readonly string[];
  /** The glob has no separator: it matches the name at any depth, like the editor's search include. */
  readonly nameOnly: boolean;
}

/** A segment with any of these is a pattern, not a folder name to start a walk at. */
const GLOB_SYNTAX = /[*?[\]{}()!|\\]/;
const MATCH_OPTIONS = { dot: true, windows: false } as const;

/** The lexical checks, which need no disk: absolute globs and `..` are refused. */
export function parseGlob(glob: string, api: path.PlatformPath = path): ParsedGlob {
  if (glob.includes('\0')) throw new ArborError('TOOL_ARGUMENTS_INVALID', 'The glob contains a NUL character.', { glob });
  const windows = api.sep === '\\';
  const separator = windows ? /[\\/]/ : /\//;
  if (separator.test(glob.charAt(0)) || api.isAbsolute(glob) || (windows && /^[A-Za-z]:/.test(glob))) {
    throw refused(glob, 'it is an absolute path');
  }
  const raw = glob.split(separator);
  if (raw.includes('..')) throw refused(glob, 'it climbs out of the workspace folder with ".."');
  return { segments: raw.filter((s) => s !== '' && s !== '.'), nameOnly: raw.length === 1 };
}

/**
 * The scope of each folder a glob reaches (none for a folder that lacks its literal prefix).
 * In a multi-root workspace a glob led by a folder's name reaches that folder only, as paths do.
 */
export async function confineGlob(folders: readonly string[], glob: string | undefined): Promise<GlobScope[]> {
  if (folders.length === 0) throw noWorkspace();
  const resolved = folders.map((f) => path.resolve(f));
  if (glob === undefined || glob === '') return resolved.map((folder) => ({ folder, root: '', match: () => true }));
  const { segments, nameOnly } = parseGlob(glob);
  let targets = resolved.map((folder) => ({ folder, segments }));
  if (resolved.length > 1 && !nameOnly && segments.length > 0) {
    const named = resolved.find((f) => path.basename(f) === segments[0]);
    if (named) targets = [{ folder: named, segments: segments.slice(1) }];
  }
  const scopes: GlobScope[] = [];
  for (const target of targets) {
    const scope = await scopeIn(glob, target.folder, target.segments, nameOnly);
    if (scope) scopes.push(scope);
  }
  return scopes;
}

async function scopeIn(glob: string, folder: string, segments: readonly string[], nameOnly: boolean): Promise<GlobScope | undefined> {
  if (segments.length === 0) return { folder, root: '', match: () => true };
  const tail = nameOnly ? segments[0] : '';
  if (nameOnly) return { folder, root: '', match: globMatcher(tail), name: tail };
  const literal: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (GLOB_SYNTAX.test(segment)) break;
    literal.push(segment);
  }
  const rest = safeMatcher(glob, segments.slice(literal.length).join('/'));
  if (literal.length === 0) return { folder, root: '', match: rest };
  const realFolder = await realpathOr(folder);
  const { real, exists } = await realOfDeepestExisting(path.join(folder, ...literal));
  if (!isInside(realFolder, real)) throw refused(glob, `"${literal.join('/')}" leads through a symbolic link to a place outside the workspace`);
  if (!exists) return undefined;
  const root = toPosix(path.relative(realFolder, real));
  const prefix = root === '' ? '' : `${root}/`;
  return { folder, root, match: (relative) => relative.length > prefix.length && relative.startsWith(prefix) && rest(relative.slice(prefix.length)) };
}

/** A glob with the editor's meaning: `*.ts` matches at any depth, like the search view's include. */
export function globMatcher(glob: string): (relative: string) => boolean {
  const patterns = glob.includes('/') ? [glob] : [glob, `**/${glob}`];
  return safeMatcher(glob, patterns);
}

/**
 * picomatch's own answer for one text and one glob, for matching outside the walks (approval
 * rules): they load file search for it rather than holding picomatch at start.
 */
export function globIsMatch(text: string, glob: string, options: picomatch.PicomatchOptions): boolean {
  return picomatch.isMatch(text, glob, options);
}

/** Whether picomatch can be trusted with `glob` (see the module's note on escaped backslashes). */
export function matcherCanTake(glob: string): boolean {
  return !glob.includes('\\\\');
}

function safeMatcher(glob: string, patterns: string | string[]): (relative: string) => boolean {
  if (!matcherCanTake(glob)) {
    throw new ArborError(
      'TOOL_ARGUMENTS_INVALID',
      `The glob "${glob}" is refused: it has two backslashes in a row (an escaped backslash), which Arbor's glob matching does not take. Use a glob without it, such as the folder's name followed by "/**".`,
      { glob },
    );
  }
  return picomatch(patterns, MATCH_OPTIONS);
}

/**
 * The items whose path (relative to `folder`, forward slashes) lies inside the folder,
 * on paper and on disk: the real path of its folder is checked once per folder, so a walk that
 * was led out after its start was checked still returns nothing from outside.
 */
export async function dropOutside<T>(folder: string, items: readonly T[], pathOf: (item: T) => string): Promise<T[]> {
  const realFolder = await realpathOr(folder);
  const checked = new Map<string, Promise<boolean>>();
  const inside = (dir: string): Promise<boolean> => {
    let answer = checked.get(dir);
    if (!answer) {
      answer = fs.promises.realpath(path.join(folder, dir)).then((real) => isInside(realFolder, real), () => false);
      checked.set(dir, answer);
    }
    return answer;
  };
  const kept = await Promise.all(
    items.map(async (item) => {
      const relative = pathOf(item);
      if (path.isAbsolute(relative) || relative.split('/').includes('..')) return false;
      return inside(path.dirname(relative));
    }),
  );
  return items.filter((_, i) => kept[i]);
}

function refused(glob: string, why: string): ArborError {
  return new ArborError(
    'PATH_OUTSIDE_WORKSPACE',
    `The glob "${glob}" is refused: ${why}. Use a glob relative to the workspace folder, such as "src/**/*.ts".`,
    { glob },
  );
}
