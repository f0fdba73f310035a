import type { RunBudget, RunLimits } from '../limits';

/** Each spent budget doubled until it has room; the others as they were. */
export function raisedLimits(run: RunBudget, now: number): RunLimits {
  const l = { ...run.limits };
  const grow = (limit: number, used: number): number => {
    if (limit <= 0) return limit;
    let next = limit;
    while (used >= next) next *= 2;
    return next;
  };
  l.maxTokens = grow(l.maxTokens, run.tokensUsed);
  l.maxCost = grow(l.maxCost, run.cost);
  l.maxRunTurns = grow(l.maxRunTurns, run.turnsUsed);
  l.maxModelCalls = grow(l.maxModelCalls, run.modelCallsUsed);
  l.maxWallTimeSeconds = grow(l.maxWallTimeSeconds, (now - run.startedAt) / 1000);
  return l;
}
