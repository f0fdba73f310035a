import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { confineGlob, matcherCanTake, type GlobScope } from './globs';
import { toPosix } from './paths';
import type { ListFilesQuery, ListFilesResult, SearchTextQuery, SearchTextResult, TextMatch } from './port';
import { MAX_FILE_BYTES, clipMatchLine, lineMatcher, looksBinary } from './text';

/** Files searched at once. */
const SEARCH_CONCURRENCY = 32;

/**
 * Listing and search on plain Node, for NodeWorkspace (and the editor without ripgrep): a
 * directory walk that honours every `.gitignore` on the way (and never enters `.git`), and a
 * scan of those files for search. It lists and caps files in the order of `rg --sort path`, so
 * both walkers give the same answer. Part of file search (workspaceFiles.ts), loaded on first use.
 */
export class NodeScan {
  private readonly excluded: (relative: string) => boolean;

  constructor(
    private readonly roots: readonly string[],
    exclude: readonly string[],
  ) {
    // An exclusion the matcher cannot take safely is left out rather than stalling every walk.
    const usable = exclude.filter(matcherCanTake);
    this.excluded = usable.length ? picomatch(usable, { dot: true }) : () => false;
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
