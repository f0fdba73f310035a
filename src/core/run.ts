import type { AgentRun, RunWorkspace } from './agents/agent';
import type { RunGate } from './agents/agentRun';
import type { RunInteractionPolicy } from './interaction/policy';
import type { PriceTable } from './budgets/prices';
import { RunBudget, type RunLimits } from './limits';
import type { ModelProvider } from './models/types';
import type { InteractionMode } from './sessions/types';

/**
 * One root agent and everything it delegates to share a run (a resumed session heads a run of
 * its own): its interaction policy, resolved once from the run's context, and its budget, the
 * limits and what the whole run used against them. The run has a budget; it is not one, so what
 * a run is and what it spent stay apart.
 */
export class Run implements AgentRun {
  readonly budget: RunBudget;
  readonly gate: RunGate | undefined;

  constructor(
    limits: RunLimits,
    readonly policy: RunInteractionPolicy,
    readonly model?: ModelProvider,
    readonly workspace?: RunWorkspace,
    /** The prices its tokens are counted at, the clock its wall time is read from, and the gate its spent budgets hold its agents at. */
    budget: { prices?: PriceTable; clock?: () => number; gate?: RunGate } = {},
  ) {
    this.budget = new RunBudget(limits, budget.prices, budget.clock);
    this.gate = budget.gate;
  }
  get mode(): InteractionMode {
    return this.policy.mode;
  }

  // The budget's figures, read through the run as callers did when a run was its budget.
  /** @deprecated read `run.budget.limits`. */
  get limits(): RunLimits {
    return this.budget.limits;
  }
  /** @deprecated read `run.budget.tokensUsed`. */
  get tokensUsed(): number {
    return this.budget.tokensUsed;
  }
  /** @deprecated read `run.budget.turnsUsed`. */
  get turnsUsed(): number {
    return this.budget.turnsUsed;
  }
  /** @deprecated read `run.budget.modelCallsUsed`. */
  get modelCallsUsed(): number {
    return this.budget.modelCallsUsed;
  }
  /** @deprecated read `run.budget.cost`. */
  get cost(): number {
    return this.budget.cost;
  }
}
