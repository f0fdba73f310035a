/** The workspace port: the files agents read, search and edit, confined to the workspace folders. */
export type {
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
export { resolveWorkspacePath, noWorkspace, isInside, toPosix } from './paths';
export { NodeWorkspace, MAX_FILE_BYTES, type NodeWorkspaceOptions } from './nodeWorkspace';
export { ConfinedFiles, checkExpected } from './confinedFs';
export { ChangeSets, FileChangeSetStorage, MemoryChangeSetStorage, type ChangeSetStorage, type ChangedFile } from './changeSets';
export { binaryRefused, clipMatchLine, decodeText, lineMatcher, looksBinary, notFound, MAX_MATCH_TEXT } from './text';
// Listing, search and globs are file search, a part loaded on first use: reached through its loader.
export { workspaceFilesPart } from '../parts';
export { ripgrepListFiles, ripgrepSearch, type RipgrepScope, type RipgrepSearch } from './ripgrep';
export { confineGlob, dropOutside, globMatcher, parseGlob, type GlobScope, type ParsedGlob } from './globs';
export { createWorktree, worktreeChanges, baseContent, keepWorktree, discardWorktree, type GitWorktree, type WorktreeChange, type WorktreeChangeKind } from './gitWorktree';
