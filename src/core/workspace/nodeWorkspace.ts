import * as path from 'node:path';
import { workspaceFilesPart } from '../parts';
import { once } from '../once';
import type { ConfinedFiles } from './confinedFs';
import type { NodeScan } from './nodeScan';
import { resolveWorkspacePath } from './paths';
import type {
  ListFilesQuery,
  ListFilesResult,
  SearchTextQuery,
  SearchTextResult,
  TextContent,
  WorkspaceDiagnostic,
  WorkspacePath,
  WorkspacePort,
  WriteOptions,
} from './port';
import { MAX_FILE_BYTES, decodeText } from './text';

export { MAX_FILE_BYTES } from './text';

export interface NodeWorkspaceOptions {
  folders: readonly string[];
  /** Globs (workspace-relative) left out of listings and searches, besides `.gitignore`d files. */
  exclude?: readonly string[];
  /** What get_diagnostics reports; plain Node has no language services, so none by default. */
  diagnostics?: () => WorkspaceDiagnostic[];
}

/** File access that re-checks confinement at each use; one for every NodeWorkspace, made at the first. */
const confined = once((): ConfinedFiles => new (workspaceFilesPart().ConfinedFiles)());

/**
 * The workspace port on plain Node: `fs` for reading and writing, a directory walk that honours
 * every `.gitignore` on the way (and never enters `.git`) for listing, and a scan of those files
 * for search. Used by unit tests and benchmarks, and by the editor as the fallback when ripgrep
 * is missing. Reading and writing go through ConfinedFiles: each use re-checks, without
 * following links, that the file is still where `resolve` confined it. Both, and the Node walk
 * (nodeScan.ts) that lists and searches, are the workspace files part, loaded at the first use.
 */
export class NodeWorkspace implements WorkspacePort {
  private readonly roots: string[];
  private readonly exclude: readonly string[];
  private readonly diagnosticsSource: () => WorkspaceDiagnostic[];
  private scanner?: NodeScan;

  constructor(options: NodeWorkspaceOptions) {
    this.roots = options.folders.map((f) => path.resolve(f));
    this.exclude = options.exclude ?? [];
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
    const bytes = await confined().readFile(p, MAX_FILE_BYTES);
    return { text: decodeText(bytes, p.relative), source: 'disk' };
  }

  exists(p: WorkspacePath): Promise<boolean> {
    return confined().exists(p);
  }

  writeText(p: WorkspacePath, text: string, options: WriteOptions = {}): Promise<void> {
    return confined().writeText(p, text, options.expected);
  }

  deleteFile(p: WorkspacePath): Promise<void> {
    return confined().deleteFile(p);
  }

  listFiles(query: ListFilesQuery): Promise<ListFilesResult> {
    return this.scan().listFiles(query);
  }

  searchText(query: SearchTextQuery): Promise<SearchTextResult> {
    return this.scan().searchText(query);
  }

  diagnostics(p?: WorkspacePath): Promise<WorkspaceDiagnostic[]> {
    const all = this.diagnosticsSource();
    return Promise.resolve(p ? all.filter((d) => d.path === p.relative) : all);
  }

  private scan(): NodeScan {
    this.scanner ??= new (workspaceFilesPart().NodeScan)(this.roots, this.exclude);
    return this.scanner;
  }
}
