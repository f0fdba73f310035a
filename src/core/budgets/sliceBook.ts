import type { BranchLedger, RunBudget } from '../limits';
import { BudgetSlice, sliceLimits, sliceTooLarge, sliceUsage, spentSliceOf } from './slices';
import { SLICE_KEYS, type SliceKey, type SliceRecordData, type SliceRequest } from './sliceRequest';

/**
 * The slices of one run (slices.ts), kept with the run's budget: which slice each agent spends
 * from (its own, or the one of the branch it was started in), what each branch used, and what
 * is left for a new slice. Every agent of a run without slices costs nothing here: the run makes
 * its book on the first slice.
 */
export class SliceBook implements BranchLedger {
  /** The slice each live agent spends from (the innermost of its chain). */
  private readonly byAgent = new Map<string, BudgetSlice>();

  constructor(private readonly run: RunBudget) {}

  /** The innermost slice `agentId` spends from, if any. */
  of(agentId: string): BudgetSlice | undefined {
    return this.byAgent.get(agentId);
  }

  /** The slice given to `agentId` itself (it tops that branch), if any. */
  ownOf(agentId: string): BudgetSlice | undefined {
    const slice = this.byAgent.get(agentId);
    return slice?.owner === agentId ? slice : undefined;
  }

  /** The live slices, outermost first (each after the one it was taken from). */
  live(): BudgetSlice[] {
    const seen = new Set<BudgetSlice>();
    for (const slice of this.byAgent.values()) if (!slice.closed) seen.add(slice);
    return [...seen].sort((a, b) => depth(a) - depth(b));
  }

  /** A child joins its parent's branch (unless it already has a slice of its own). */
  join(childId: string, parentId: string | undefined): BudgetSlice | undefined {
    const own = this.ownOf(childId);
    if (own) return own;
    const inherited = parentId === undefined ? undefined : this.byAgent.get(parentId);
    if (inherited) this.byAgent.set(childId, inherited);
    return inherited;
  }

  /**
   * A new slice for a child of `parentId`, taken from what the parent's envelope has left, or
   * BUDGET_SLICE_TOO_LARGE. It is not given to anyone until `give`: a refusal changes nothing.
   */
  take(parentId: string, childLabel: string, request: SliceRequest, now: number): BudgetSlice {
    const envelope = this.byAgent.get(parentId);
    const left: Partial<Record<SliceKey, number>> = {};
    let refused = false;
    for (const key of SLICE_KEYS) {
      const asked = request[key];
      if (asked === undefined) continue;
      const room = this.leftIn(envelope, key, now);
      if (room === undefined) continue;
      left[key] = room;
      if (asked > room) refused = true;
    }
    if (refused) throw sliceTooLarge(request, left, envelope ? `the budget given to "${envelope.label}"` : 'the run');
    return new BudgetSlice('', childLabel, sliceLimits(request), envelope, now);
  }

  /** `slice` (from `take`) becomes `agentId`'s own. */
  give(agentId: string, slice: BudgetSlice): BudgetSlice {
    const own = new BudgetSlice(agentId, slice.label, slice.limits, slice.parent, slice.startedAt);
    this.byAgent.set(agentId, own);
    return own;
  }

  /** A slice put back after a reload, with what it had used; the one it was taken from is back already (its agent came first). */
  restore(agentId: string, label: string, record: SliceRecordData, now: number): BudgetSlice {
    const parent = record.from === undefined ? undefined : this.ownOf(record.from);
    // Its wall time goes on from what it had used: the time no window ran it does not count.
    const slice = new BudgetSlice(agentId, label, { ...record.limits }, parent, now - (record.wallSeconds ?? 0) * 1000);
    slice.tokensUsed = record.tokensUsed;
    slice.cost = record.cost;
    slice.modelCallsUsed = record.modelCallsUsed;
    if (record.paused) slice.hold = record.paused;
    this.byAgent.set(agentId, slice);
    return slice;
  }

  spentFor(agentId: string, now: number, next?: 'modelCall'): { owner: string; reason: string } | undefined {
    const found = spentSliceOf(this.byAgent.get(agentId), now, next);
    return found && { owner: found.slice.owner, reason: found.reason };
  }

  usageOf(agentId: string, now: number): { part: string | undefined; lines: string[] } | undefined {
    const own = this.ownOf(agentId);
    return own && !own.closed ? sliceUsage(own, now) : undefined;
  }

  owns(agentId: string): boolean {
    const slice = this.ownOf(agentId);
    return slice !== undefined && !slice.closed;
  }

  /** Its wall time is kept as used so far (at `now`): after a reload it goes on from there, as the run's does. */
  recordOf(agentId: string, now: number): SliceRecordData | undefined {
    const slice = this.ownOf(agentId);
    if (!slice || slice.closed) return undefined;
    return {
      limits: { ...slice.limits },
      tokensUsed: slice.tokensUsed,
      cost: slice.cost,
      modelCallsUsed: slice.modelCallsUsed,
      wallSeconds: Math.max(0, (now - slice.startedAt) / 1000),
      ...(slice.parent ? { from: slice.parent.owner } : {}),
      ...(slice.hold ? { paused: { ...slice.hold } } : {}),
    };
  }

  /** An agent left the run: its own slice closes, and what it held is free again. */
  leave(agentId: string): BudgetSlice | undefined {
    const own = this.ownOf(agentId);
    if (own) own.closed = true;
    this.byAgent.delete(agentId);
    return own;
  }

  /** One response's tokens and cost, on every slice of the agent's chain. */
  charge(agentId: string, tokens: number, cost: number): void {
    for (let s = this.byAgent.get(agentId); s; s = s.parent) {
      s.tokensUsed += tokens;
      s.cost += cost;
    }
  }

  countModelCall(agentId: string): void {
    for (let s = this.byAgent.get(agentId); s; s = s.parent) s.modelCallsUsed++;
  }

  /**
   * What a new slice may take of `key` inside `envelope` (the run when undefined): its limit,
   * less what was used, less what the live slices directly inside it hold unspent. Undefined
   * when nothing above limits it.
   */
  private leftIn(envelope: BudgetSlice | undefined, key: SliceKey, now: number): number | undefined {
    const limit = envelope ? envelope.limits[key] : runLimit(this.run, key);
    if (limit <= 0) return envelope ? this.leftIn(envelope.parent, key, now) : undefined;
    const used = envelope ? envelope.used(key, now) : runUsed(this.run, key, now);
    let left = limit - used;
    // Time passes for every branch at once: only counted measures are held by other slices.
    if (key !== 'wallTimeSeconds') {
      for (const inner of this.live()) if (inner.parent === envelope) left -= Math.max(0, inner.limits[key] - inner.used(key, now));
    }
    return Math.max(0, left);
  }
}

/** The book of `run`'s slices, if it has one. */
export function slicesOf(run: RunBudget): SliceBook | undefined {
  return run.slices instanceof SliceBook ? run.slices : undefined;
}

/** The book of `run`'s slices, made with its first slice. */
export function sliceBookOf(run: RunBudget): SliceBook {
  const book = slicesOf(run) ?? new SliceBook(run);
  run.slices = book;
  return book;
}

function depth(slice: BudgetSlice): number {
  let n = 0;
  for (let s = slice.parent; s; s = s.parent) n++;
  return n;
}

function runLimit(run: RunBudget, key: SliceKey): number {
  const l = run.limits;
  return key === 'tokens' ? l.maxTokens : key === 'cost' ? l.maxCost : key === 'modelCalls' ? l.maxModelCalls : l.maxWallTimeSeconds;
}

function runUsed(run: RunBudget, key: SliceKey, now: number): number {
  return key === 'tokens' ? run.tokensUsed : key === 'cost' ? run.cost : key === 'modelCalls' ? run.modelCallsUsed : Math.max(0, (now - run.startedAt) / 1000);
}
