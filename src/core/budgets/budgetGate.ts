import type { RunGate } from '../agents/agentRun';
import { newHold, type Hold } from '../agents/holds';
import type { RunBudget } from '../limits';
import { hasRunBudget, spentBudget } from './budgetStatus';

/**
 * Every run's gate (agents/holds.ts `RunGate`): before a turn or a model call, a budget counted in
 * turns or model calls holds the next one that would pass it, and tokens, cost and wall time
 * hold once they are used up. The run's budgets first, then the slices of the agent's branch
 * (slices.ts): a spent slice holds its branch alone. It reads the run's counters and clock only,
 * so one serves all runs. The hold it returns is not put on anyone: the turn it ends reports it,
 * and the budget guard then pauses the run, or the branch.
 */
export const budgetGate: RunGate = {
  gate(run: RunBudget, next: 'turn' | 'modelCall', agentId?: string): Hold | undefined {
    if (hasRunBudget(run.limits)) {
      const spent = spentBudget(run, run.clock(), next);
      if (spent !== undefined) return newHold('budget', { detail: spent });
    }
    const found = agentId === undefined ? undefined : run.slices?.spentFor(agentId, run.clock(), next === 'modelCall' ? 'modelCall' : undefined);
    return found && newHold('slice', { detail: found.reason, slice: found.owner });
  },
};
