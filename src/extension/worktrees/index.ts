/**
 * Agents in a git worktree of their own: starting them, and Review / Keep / Discard of their
 * work. The commands and the worktree runs load on first use (src/extension/parts.ts): only
 * their types are here.
 */
export type { WorktreeEntry, WorktreeRuns } from './worktreeRuns';
