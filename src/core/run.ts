import type { AgentRun, RunWorkspace } from './agents/agent';
import type { RunGate } from './agents/holds';
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
  readonly gate: RunGate | undefined;

  constructor(
    limits: RunLimits,
    readonly policy: RunInteractionPolicy,
    readonly model?: ModelProvider,
    readonly workspace?: RunWorkspace,
    /** The prices its tokens are counted at, the clock its wall time is read from, and the gate its spent budgets hold its agents at. */
    budget: { prices?: PriceTable; clock?: () => number; gate?: RunGate } = {},
  ) {
    super(limits, budget.prices, budget.clock);
    this.gate = budget.gate;
  }
  get mode(): InteractionMode {
    return this.policy.mode;
  }
}
