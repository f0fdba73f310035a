import { newHold, type Hold, type RunGate } from '../agents/holds';
import type { RunBudget } from '../limits';
import { hasRunBudget, spentBudget } from './budgetStatus';

/**
 * Every run's gate (agents/holds.ts `RunGate`): before a turn or a model call, a budget counted in
 * turns or model calls holds the next one that would pass it, and tokens, cost and wall time
 * hold once they are used up. It reads the run's counters and clock only, so one serves all runs.
 * The hold it returns is not put on anyone: the turn it ends reports it, and the budget guard
 * then pauses the run.
 */
export const budgetGate: RunGate = {
  gate(run: RunBudget, next: 'turn' | 'modelCall'): Hold | undefined {
    if (!hasRunBudget(run.limits)) return undefined;
    const spent = spentBudget(run, run.clock(), next);
    return spent === undefined ? undefined : newHold('budget', { detail: spent });
  },
};
