import type { Agent } from '../agents/agent';
import { slicesOf } from '../budgets/sliceBook';
import { BudgetSlice } from '../budgets/slices';
import type { SliceRecord } from './liveRecord';

/**
 * An agent's slice (its own budget, budgets/slices.ts) in its live record and back: its limits,
 * what its branch used, the slice it was taken from and its pause. Its wall time counts again
 * from the restore, as the run's does.
 */
export function sliceRecordOf(agent: Agent): SliceRecord | undefined {
  const slice = slicesOf(agent.run.budget)?.ownOf(agent.id);
  if (!slice || slice.closed) return undefined;
  return {
    limits: { ...slice.limits },
    tokensUsed: slice.tokensUsed,
    cost: slice.cost,
    modelCallsUsed: slice.modelCallsUsed,
    ...(slice.parent ? { from: slice.parent.owner } : {}),
    ...(slice.hold ? { paused: { ...slice.hold } } : {}),
  };
}

/** The slice of a restored agent; the one it was taken from is already back (its agent came first). */
export function sliceFromRecord(agent: Agent, record: SliceRecord, now: number): BudgetSlice {
  const parent = record.from === undefined ? undefined : slicesOf(agent.run.budget)?.ownOf(record.from);
  const slice = new BudgetSlice(agent.id, agent.label, { ...record.limits }, parent, now);
  slice.tokensUsed = record.tokensUsed;
  slice.cost = record.cost;
  slice.modelCallsUsed = record.modelCallsUsed;
  if (record.paused) slice.hold = record.paused;
  return slice;
}
