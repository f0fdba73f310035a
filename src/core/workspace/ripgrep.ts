import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import * as z from 'zod';
import { ArborError } from '../errors';
import { once } from '../once';
import type { ListFilesResult, SearchTextResult, TextMatch } from './port';
import { MAX_FILE_BYTES, clipMatchLine, lineMatcher } from './text';
import { confineGlob, dropOutside, type GlobScope } from './globs';

/**
 * Listing and search with ripgrep, the engine of the editor's own search view: it honours
 * `.gitignore` (with or without a git repository), skips binary files and walks in parallel.
 * Each folder is searched by one `rg` process reading JSON lines; the process is killed as soon
 * as the cap is reached or the signal aborts (Stop ends a long search at once). The glob is
 * confined first (`confineGlob`): rg starts only at a root inside the workspace, never for a
 * refused glob, and every path it prints is checked to lie inside before it is returned.
 */
export interface RipgrepScope {
  /** The folders to search, absolute. */
  folders: readonly string[];
  /** Globs (workspace-relative) to leave out: the editor's `files.exclude` and `search.exclude`. */
  exclude: readonly string[];
  signal?: AbortSignal;
}

const COMMON_ARGS = ['--no-config', '--hidden', '--no-require-git', '--glob', '!.git', '--max-filesize', String(MAX_FILE_BYTES)];

/**
 * rg's arguments for a folder's scope, and the path to walk, which `confineGlob` checked: rg is
 * started only for a glob it accepted, and only at its checked root (after `--`, so no folder
 * name is read as a flag). Exclusions are negated `--glob`s. An include glob cannot be one (a
 * positive `--glob` overrides `.gitignore`): a name-only glob becomes a file type, which honours
 * ignore files (unless it has a `:`, which a type's definition cannot hold: then the walk is
 * the whole folder); a glob with folders starts the walk at its literal folder prefix;
 * `scope.match` then checks every path against the whole glob, and `dropOutside` every path kept.
 */
function scopeArgs(scope: GlobScope, exclude: readonly string[]): { args: string[]; roots: string[] } {
  const args = [...COMMON_ARGS];
  for (const glob of exclude) args.push('--glob', `!${glob}`);
  if (scope.name !== undefined && !scope.name.includes(':')) args.push('--type-add', `arborinclude:${scope.name}`, '--type', 'arborinclude');
  return { args, roots: ['--', scope.root || '.'] };
}

export async function ripgrepListFiles(rg: string, scope: RipgrepScope, glob: string | undefined, limit: number): Promise<ListFilesResult> {
  const scopes = await confineGlob(scope.folders, glob);
  const files: string[] = [];
  let truncated = false;
  for (const folderScope of scopes) {
    const prefix = scope.folders.length > 1 ? `${path.basename(folderScope.folder)}/` : '';
    const { args, roots } = scopeArgs(folderScope, scope.exclude);
    const room = limit - files.length;
    const found: string[] = [];
    // Sorted, so the first `limit` files are always the same ones and rg can stop early.
    await runLines(rg, [...args, '--files', '--sort', 'path', ...roots], folderScope.folder, scope.signal, (line) => {
      const file = stripDotSlash(line);
      if (!folderScope.match(file)) return true;
      if (found.length === room) {
        truncated = true;
        return false;
      }
      found.push(file);
      return true;
    });
    for (const file of await dropOutside(folderScope.folder, found, (f) => f)) files.push(prefix + file);
    if (truncated) break;
  }
  return { files, truncated };
}

const rgMatchSchema = once(() => z.object({
  type: z.literal('match'),
  data: z.object({
    path: z.object({ text: z.string() }),
    line_number: z.number().int(),
    lines: z.object({ text: z.string() }).or(z.object({ bytes: z.string() })),
    submatches: z.array(z.object({ start: z.number().int() })),
  }),
}));

export interface RipgrepSearch {
  pattern: string;
  isRegex: boolean;
  caseSensitive: boolean;
  glob?: string;
  limit: number;
}

export async function ripgrepSearch(rg: string, scope: RipgrepScope, query: RipgrepSearch): Promise<SearchTextResult> {
  // The model writes JavaScript regular expressions: an invalid one is named before rg runs.
  lineMatcher(query.pattern, query.isRegex, query.caseSensitive);
  const scopes = await confineGlob(scope.folders, query.glob);
  const matches: TextMatch[] = [];
  let truncated = false;
  for (const folderScope of scopes) {
    const prefix = scope.folders.length > 1 ? `${path.basename(folderScope.folder)}/` : '';
    const { args, roots } = scopeArgs(folderScope, scope.exclude);
    args.push('--json', query.caseSensitive ? '--case-sensitive' : '--ignore-case');
    if (!query.isRegex) args.push('--fixed-strings');
    args.push('--regexp', query.pattern, ...roots);
    const room = query.limit - matches.length;
    const found: TextMatch[] = [];
    await runLines(rg, args, folderScope.folder, scope.signal, (line) => {
      if (!line.startsWith('{"type":"match"')) return true;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        // Not a line of rg's JSON: skipped.
        return true;
      }
      const parsed = rgMatchSchema().safeParse(json);
      if (!parsed.success) return true;
      const { data } = parsed.data;
      const file = stripDotSlash(data.path.text);
      if (!('text' in data.lines) || !folderScope.match(file)) return true;
      if (found.length === room) {
        truncated = true;
        return false;
      }
      const text = data.lines.text.replace(/\r?\n$/, '');
      found.push({ path: file, line: data.line_number, text: clipMatchLine(text, data.submatches[0]?.start ?? 0) });
      return true;
    });
    for (const m of await dropOutside(folderScope.folder, found, (f) => f.path)) matches.push({ ...m, path: prefix + m.path });
    if (truncated) break;
  }
  // rg finds files in parallel: sort so the same search reads the same way every time.
  matches.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
  return { matches, truncated };
}

/**
 * Runs rg in `cwd` and feeds `onLine` every stdout line until it returns false (then rg is
 * killed). Exit code 1 ("nothing found") is success; 2 with nothing printed is an error whose
 * message says what rg disliked (a regular expression it cannot compile, a bad glob).
 */
function runLines(rg: string, args: string[], cwd: string, signal: AbortSignal | undefined, onLine: (line: string) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const child = spawn(rg, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stopped = false;
    let stderr = '';
    let sawOutput = false;
    const onAbort = (): void => {
      stopped = true;
      child.kill();
      reject(abortReason(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (stopped) return;
      sawOutput = true;
      if (!onLine(line)) {
        stopped = true;
        lines.close();
        child.kill();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4_000) stderr += chunk.toString('utf8');
    });
    child.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(new ArborError('TOOL_FAILED', `ripgrep could not start (${err.message}).`));
    });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) return;
      if (stopped || code === 0 || code === 1 || (code === 2 && sawOutput)) return resolve();
      reject(new ArborError('SEARCH_INVALID', `The search failed: ${stderr.trim() || `ripgrep exited with code ${String(code)}`}`));
    });
  });
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}

function stripDotSlash(p: string): string {
  const posix = p.split(path.sep).join('/');
  return posix.startsWith('./') ? posix.slice(2) : posix;
}
