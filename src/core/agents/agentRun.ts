import type { RunInteractionPolicy } from '../interaction/policy';
import type { RunBudget } from '../limits';
import type { ModelProvider } from '../models/types';
import type { WorkspacePort } from '../workspace/port';
import type { RunGate } from './holds';

/**
 * The run an agent belongs to (a root and everything it delegates to): shared limits and token
 * budget, the interaction policy resolved once when the run started, and optionally its own model.
 */
export interface AgentRun extends RunBudget {
  readonly policy: RunInteractionPolicy;
  /** When set, every agent of the run talks to this model instead of the runtime's. */
  readonly model?: ModelProvider;
  /**
   * When set, the run works in its own folder (a git worktree) instead of the runtime's
   * workspace: every agent of the run reads, edits and runs commands there.
   */
  readonly workspace?: RunWorkspace;
  /** What holds the run's agents when a budget counted in turns or model calls would be passed (the budget guard). */
  readonly gate?: RunGate;
}

/** A folder of the run's own and the port to its files. */
export interface RunWorkspace {
  readonly folder: string;
  readonly files: WorkspacePort;
}
