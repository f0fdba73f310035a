import type { RunInteractionPolicy } from '../interaction/policy';
import type { RunBudget } from '../limits';
import type { ModelProvider } from '../models/types';
import type { WorkspacePort } from '../workspace/port';
import type { Hold } from './holds';

/**
 * The run an agent belongs to (a root and everything it delegates to): its budget (the shared
 * limits and what the whole run used), the interaction policy resolved once when the run
 * started, and optionally its own model.
 */
export interface AgentRun {
  readonly budget: RunBudget;
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

/**
 * What a run may hold every agent of it with, asked before each turn and each model call: a
 * budget counted in turns or model calls is spent when the next one would go past it, and a
 * branch's own budget (a slice, for `agentId`'s branch) holds that branch alone. Every run
 * the runtime starts gets budgets/budgetGate.ts; the hold it returns is not put on the agent (the
 * turn it ends reports it, and the budget guard then pauses the run).
 */
export interface RunGate {
  gate(run: RunBudget, next: 'turn' | 'modelCall', agentId?: string): Hold | undefined;
}

/** A folder of the run's own and the port to its files. */
export interface RunWorkspace {
  readonly folder: string;
  readonly files: WorkspacePort;
}
