/** Agents in a git worktree of their own: starting them, and Review / Keep / Discard of their work. */
export { WorktreeRuns, WORKTREE_BASE_SCHEME, type WorktreeEntry } from './worktreeRuns';
export { registerWorktreeCommands } from './worktreeCommands';
