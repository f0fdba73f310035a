/**
 * The workspace port: everything an agent's tools may do to the user's files, behind one
 * interface. The editor implements it with VS Code's APIs (unsaved buffers, WorkspaceEdit, the
 * Problems panel); `NodeWorkspace` implements it on plain Node for tests and benchmarks.
 *
 * Invariants every implementation keeps:
 * - a path reaches the file system only after `resolveWorkspacePath` confined it to a workspace
 *   folder by its real location (no `..`, no absolute path elsewhere, no symlink that leads out,
 *   dangling ones included): PATH_OUTSIDE_WORKSPACE;
 * - each read and write re-checks that location when it happens, without following a link
 *   (ConfinedFiles), so a path swapped for a link after it was checked or approved is refused
 *   (PATH_OUTSIDE_WORKSPACE) and never followed; file system failures are typed errors;
 * - with no folder open every call throws WORKSPACE_NONE;
 * - `writeText` with an `expected` content writes only when the file still holds exactly that
 *   content (EDIT_STALE otherwise), so an edit approved on one version never lands on another;
 * - every long call takes the turn's signal and stops when it aborts.
 */
export interface WorkspacePath {
  /** The absolute path on disk: the workspace folder joined with the real path inside it (no link left in it). */
  readonly absolute: string;
  /**
   * The real path relative to its workspace folder, with forward slashes (led by the folder name
   * in a multi-root workspace): what approval rules match and people approve.
   */
  readonly relative: string;
  /** The workspace folder (absolute) that holds it. */
  readonly folder: string;
}

export interface TextContent {
  text: string;
  /** `buffer` when the text came from an editor's (possibly unsaved) document. */
  source: 'disk' | 'buffer';
}

export interface ListFilesQuery {
  /** A glob relative to the workspace folders, such as `src/**\/*.ts`; every file when omitted. */
  glob?: string;
  limit: number;
  signal?: AbortSignal;
}

export interface ListFilesResult {
  /** Workspace-relative paths, sorted. */
  files: string[];
  truncated: boolean;
}

export interface SearchTextQuery {
  pattern: string;
  isRegex: boolean;
  caseSensitive: boolean;
  /** Only files matching this glob. */
  glob?: string;
  /** The most matches returned. */
  limit: number;
  signal?: AbortSignal;
}

export interface TextMatch {
  path: string;
  /** 1-based. */
  line: number;
  /** The matching line, clipped. */
  text: string;
}

export interface SearchTextResult {
  matches: TextMatch[];
  truncated: boolean;
}

export interface WorkspaceDiagnostic {
  path: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  severity: 'error' | 'warning';
  message: string;
  source?: string;
  code?: string;
}

export interface WriteOptions {
  /**
   * The content the file must hold right now for the write to happen: a string for an edit,
   * `null` for a file that must not exist yet (create); omitted to write unconditionally.
   */
  expected?: string | null;
}

export interface WorkspacePort {
  /** The open workspace folders, absolute; empty when no folder is open. */
  folders(): readonly string[];
  /** Confines a path the model gave to a workspace folder (see `resolveWorkspacePath`). */
  resolve(path: string): Promise<WorkspacePath>;
  /** The file's text (an open editor's buffer first); FILE_NOT_FOUND, FILE_BINARY. */
  readText(path: WorkspacePath, signal?: AbortSignal): Promise<TextContent>;
  /** Whether the file exists (on disk or as an open untitled-to-be document). */
  exists(path: WorkspacePath): Promise<boolean>;
  /** Writes the whole text, creating the file (and its folders) when needed. */
  writeText(path: WorkspacePath, text: string, options?: WriteOptions): Promise<void>;
  /** Deletes a file (a change set's undo of a created file). */
  deleteFile(path: WorkspacePath): Promise<void>;
  listFiles(query: ListFilesQuery): Promise<ListFilesResult>;
  searchText(query: SearchTextQuery): Promise<SearchTextResult>;
  /** Errors and warnings, of one file or of the whole workspace. */
  diagnostics(path?: WorkspacePath): Promise<WorkspaceDiagnostic[]>;
}
