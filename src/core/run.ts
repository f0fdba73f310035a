import type { AgentRun, RunWorkspace } from './agents/agent';
import type { RunInteractionPolicy } from './interaction/policy';
import type { PriceTable } from './budgets/prices';
import { RunBudget, type RunLimits } from './limits';
import type { ModelProvider } from './models/types';
import type { InteractionMode } from './sessions/types';

/**
 * One root agent and everything it delegates to share a run: its limits, its token budget and
 * its interaction policy, which is resolved once from the run's context.
 */
export class Run extends RunBudget implements AgentRun {
  constructor(
    limits: RunLimits,
    readonly policy: RunInteractionPolicy,
    readonly model?: ModelProvider,
    readonly workspace?: RunWorkspace,
    /** The prices its tokens are counted at, and the clock its wall time is read from. */
    budget: { prices?: PriceTable; clock?: () => number } = {},
  ) {
    super(limits, budget.prices, budget.clock);
  }
  get mode(): InteractionMode {
    return this.policy.mode;
  }
}
