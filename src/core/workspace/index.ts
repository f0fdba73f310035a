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
export { confineGlob, dropOutside, globMatcher, parseGlob, type GlobScope, type ParsedGlob } from './globs';
export { ConfinedFiles, checkExpected } from './confinedFs';
export { ChangeSets, FileChangeSetStorage, MemoryChangeSetStorage, type ChangeSetStorage, type ChangedFile } from './changeSets';
export { binaryRefused, clipMatchLine, decodeText, lineMatcher, looksBinary, notFound, MAX_MATCH_TEXT } from './text';
export { ripgrepListFiles, ripgrepSearch, type RipgrepScope, type RipgrepSearch } from './ripgrep';
export { createWorktree, worktreeChanges, baseContent, keepWorktree, discardWorktree, type GitWorktree, type WorktreeChange, type WorktreeChangeKind } from './gitWorktree';
