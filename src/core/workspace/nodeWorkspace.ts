import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { ConfinedFiles } from './confinedFs';
import { confineGlob, matcherCanTake, type GlobScope } from './globs';
import { resolveWorkspacePath, toPosix } from './paths';
import type {
  ListFilesQuery,
  ListFilesResult,
  SearchTextQuery,
  SearchTextResult,
  TextContent,
  TextMatch,
  WorkspaceDiagnostic,
  WorkspacePath,
  WorkspacePort,
  WriteOptions,
} from './port';
import { clipMatchLine, decodeText, lineMatcher, looksBinary } from './text';

export interface NodeWorkspaceOptions {
  folders: readonly string[];
  /** Globs (workspace-relative) left out of listings and searches, besides `.gitignore`d files. */
  exclude?: readonly string[];
  /** What get_diagnostics reports; plain Node has no language services, so none by default. */
  diagnostics?: () => WorkspaceDiagnostic[];
}

/** Files larger than this are not read whole into memory. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** File access that re-checks confinement at each use; one for every NodeWorkspace. */
const confined = new ConfinedFiles();
/** Files searched at once. */
const SEARCH_CONCURRENCY = 32;

/**
 * The workspace port on plain Node: `fs` for reading and writing, a directory walk that honours
 * every `.gitignore` on the way (and never enters `.git`) for listing, and a scan of those files
 * for search. Used by unit tests and benchmarks, and by the editor as the fallback when ripgrep
 * is missing. Reading and writing go through ConfinedFiles: each use re-checks, without
 * following links, that the file is still where `resolve` confined it.
 */
export class NodeWorkspace implements WorkspacePort {
  private readonly roots: string[];
  private readonly excluded: (relative: string) => boolean;
  private readonly diagnosticsSource: () => WorkspaceDiagnostic[];

  constructor(options: NodeWorkspaceOptions) {
    this.roots = options.folders.map((f) => path.resolve(f));
    const exclude = options.exclude ?? [];
    // An exclusion the matcher cannot take safely is left out rather than stalling every walk.
    const usable = exclude.filter(matcherCanTake);
    this.excluded = usable.length ? picomatch(usable, { dot: true }) : () => false;
    this.diagnosticsSource = options.diagnostics ?? (() => []);
  }

  folders(): readonly string[] {
    return this.roots;
  }

  resolve(p: string): Promise<WorkspacePath> {
    return resolveWorkspacePath(this.roots, p);
  }

  async readText(p: WorkspacePath, signal?: AbortSignal): Promise<TextContent> {
    signal?.throwIfAborted();
    const bytes = await confined.readFile(p, MAX_FILE_BYTES);
    return { text: decodeText(bytes, p.relative), source: 'disk' };
  }

  exists(p: WorkspacePath): Promise<boolean> {
    return confined.exists(p);
  }

  writeText(p: WorkspacePath, text: string, options: WriteOptions = {}): Promise<void> {
    return confined.writeText(p, text, options.expected);
  }

  deleteFile(p: WorkspacePath): Promise<void> {
    return confined.deleteFile(p);
  }

  async listFiles(query: ListFilesQuery): Promise<ListFilesResult> {
    const scopes = await confineGlob(this.roots, query.glob);
    const files: string[] = [];
    let truncated = false;
    for await (const file of this.walk(scopes, query.signal)) {
      if (files.length === query.limit) {
        truncated = true;
        break;
      }
      files.push(file.display);
    }
    return { files, truncated };
  }

  async searchText(query: SearchTextQuery): Promise<SearchTextResult> {
    const match = lineMatcher(query.pattern, query.isRegex, query.caseSensitive);
    const scopes = await confineGlob(this.roots, query.glob);
    const matches: TextMatch[] = [];
    let batch: WalkedFile[] = [];
    const flush = async (): Promise<boolean> => {
      const found = await Promise.all(batch.map((file) => searchFile(file, match, query.limit + 1)));
      batch = [];
      for (const list of found) {
        for (const m of list) {
          if (matches.length === query.limit) return true;
          matches.push(m);
        }
      }
      return false;
    };
    for await (const file of this.walk(scopes, query.signal)) {
      batch.push(file);
      if (batch.length === SEARCH_CONCURRENCY && (await flush())) return { matches: sortMatches(matches), truncated: true };
    }
    const truncated = await flush();
    query.signal?.throwIfAborted();
    return { matches: sortMatches(matches), truncated };
  }

  diagnostics(p?: WorkspacePath): Promise<WorkspaceDiagnostic[]> {
    const all = this.diagnosticsSource();
    return Promise.resolve(p ? all.filter((d) => d.path === p.relative) : all);
  }

  /**
   * The files each scope's glob asks for, in a stable order, minus `.git`, ignored and excluded
   * files. The walk starts at the folder (so every `.gitignore` on the way counts), enters only
   * folders on the way to or under the scope's root, and never follows a symbolic link.
   */
  private async *walk(scopes: readonly GlobScope[], signal: AbortSignal | undefined): AsyncGenerator<WalkedFile> {
    const prefixed = this.roots.length > 1;
    for (const { folder: root, root: start, match } of scopes) {
      const onTheWay = (relative: string): boolean => !start || relative === start || relative.startsWith(`${start}/`) || start.startsWith(`${relative}/`);
      const prefix = prefixed ? `${path.basename(root)}/` : '';
      // Files and folders in one stack, each folder's entries in name order: the order of
      // `rg --sort path`, so both walks list (and cap) the same files the same way.
      const stack: (WalkedFile | { dir: string; rules: { base: string; ig: Ignore }[] })[] = [{ dir: root, rules: [] }];
      while (stack.length) {
        signal?.throwIfAborted();
        const next = stack.pop()!;
        if (!('dir' in next)) {
          yield next;
          continue;
        }
        const { dir, rules: inherited } = next;
        let entries: fs.Dirent[];
        try {
          entries = await fs.promises.readdir(dir, { withFileTypes: true });
        } catch {
          // A folder gone or unreadable since it was listed has nothing to walk.
          continue;
        }
        const rules = [...inherited];
        if (entries.some((e) => e.name === '.gitignore' && e.isFile())) {
          const ig = await readIgnore(path.join(dir, '.gitignore'));
          if (ig) rules.push({ base: dir, ig });
        }
        entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
        for (const entry of entries) {
          if (entry.name === '.git') continue;
          const absolute = path.join(dir, entry.name);
          const isDir = entry.isDirectory();
          if (!isDir && !entry.isFile()) continue;
          const relative = toPosix(path.relative(root, absolute));
          if (this.excluded(relative) || ignored(rules, absolute, isDir)) continue;
          if (isDir) {
            if (onTheWay(relative)) stack.push({ dir: absolute, rules });
          } else if (match(relative)) stack.push({ absolute, display: prefix + relative });
        }
      }
    }
  }
}

/** Matches in the order ripgrep's are given: by path, then line. */
function sortMatches(matches: TextMatch[]): TextMatch[] {
  return matches.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
}

interface WalkedFile {
  absolute: string;
  display: string;
}

function ignored(rules: { base: string; ig: Ignore }[], absolute: string, isDir: boolean): boolean {
  for (const { base, ig } of rules) {
    const rel = toPosix(path.relative(base, absolute));
    if (ig.ignores(isDir ? `${rel}/` : rel)) return true;
  }
  return false;
}

async function readIgnore(file: string): Promise<Ignore | undefined> {
  try {
    return ignore().add(await fs.promises.readFile(file, 'utf8'));
  } catch {
    // No readable ignore file: it ignores nothing.
    return undefined;
  }
}

async function searchFile(file: WalkedFile, match: (line: string) => number, limit: number): Promise<TextMatch[]> {
  let bytes: Buffer;
  try {
    // One read, no stat first: most files are small, and a huge one is dropped after reading.
    bytes = await fs.promises.readFile(file.absolute);
  } catch {
    // A file gone or unreadable since the walk has no matches.
    return [];
  }
  if (bytes.length > MAX_FILE_BYTES || looksBinary(bytes)) return [];
  const out: TextMatch[] = [];
  const lines = bytes.toString('utf8').split('\n');
  for (let i = 0; i < lines.length && out.length < limit; i++) {
    const at = match(lines[i]);
    if (at >= 0) out.push({ path: file.display, line: i + 1, text: clipMatchLine(lines[i], at) });
  }
  return out;
}
