import { ArborError } from '../errors';
import type { Hold } from '../agents/holds';
import { formatCount, formatSeconds, WARNING_FRACTION, type BudgetStatus } from './budgetStatus';
import { SLICE_KEYS, type SliceKey, type SliceLimits, type SliceRequest } from './sliceRequest';
import { formatCost } from './prices';

/**
 * Slices: a branch's own budget. A child started with `budget: { tokens, cost, modelCalls,
 * wallTimeSeconds }` gets a slice, and it and every agent below it spend from that slice as well
 * as from the run (and from every slice above it).
 *
 * Invariants:
 * - A slice is taken from what its envelope has left: the nearest slice above the parent, or the
 *   run. Left = the envelope's limit, less what was used in it, less what the other live slices
 *   directly inside it still hold unspent; wall time is the envelope's time still to run. A
 *   measure the envelope does not limit is judged by the envelope above it; one that nothing
 *   limits is free. A request larger than what is left is refused (BUDGET_SLICE_TOO_LARGE, with
 *   what is left) and changes nothing.
 * - Spending is recorded on every slice of the agent's chain, so a slice counts its whole branch.
 *   The run's own budgets count everything too: the run's total still caps every branch.
 * - A slice ends with its owner: what it still held is then free for the others.
 * - Plain counters and a clock reading: a slice is written to the live record as it is.
 * - Only runs that give a slice pay for slices: this module, the book and the guard are in a part
 *   (budgetPart.ts); what asks for one (sliceRequest.ts) and the hooks are in the start bundle.
 */

export class BudgetSlice {
  tokensUsed = 0;
  cost = 0;
  modelCallsUsed = 0;
  /** Its branch is paused: the hold every agent of the branch is under until a raise of this slice. */
  hold: Hold | undefined;
  warned = false;
  closed = false;

  constructor(
    /** The session id of the agent it was given to, the top of its branch. */
    readonly owner: string,
    readonly label: string,
    public limits: SliceLimits,
    /** The slice it was taken from; undefined when it was taken from the run. */
    readonly parent: BudgetSlice | undefined,
    /** When the branch started (ms since the epoch): its wall time counts from here. */
    readonly startedAt: number,
  ) {}

  used(key: SliceKey, now: number): number {
    switch (key) {
      case 'tokens':
        return this.tokensUsed;
      case 'cost':
        return this.cost;
      case 'modelCalls':
        return this.modelCallsUsed;
      case 'wallTimeSeconds':
        return Math.max(0, (now - this.startedAt) / 1000);
    }
  }
}

/** A request as limits (the measures it leaves out are not limited). */
export function sliceLimits(request: SliceRequest): SliceLimits {
  return { tokens: request.tokens ?? 0, cost: request.cost ?? 0, modelCalls: request.modelCalls ?? 0, wallTimeSeconds: request.wallTimeSeconds ?? 0 };
}

/** The tighter of two requests, measure by measure (a definition's budget and the caller's). */
export function tighterRequest(a: SliceRequest | undefined, b: SliceRequest | undefined): SliceRequest | undefined {
  if (!a || !b) return a ?? b;
  const out: SliceRequest = {};
  for (const key of SLICE_KEYS) {
    const x = a[key];
    const y = b[key];
    if (x !== undefined || y !== undefined) out[key] = x === undefined ? y : y === undefined ? x : Math.min(x, y);
  }
  return out;
}

const NAMES: Readonly<Record<SliceKey, string>> = Object.freeze({ tokens: 'tokens', cost: 'cost', modelCalls: 'model calls', wallTimeSeconds: 'wall time' });

export function formatSliceValue(key: SliceKey, n: number): string {
  if (key === 'cost') return formatCost(n);
  if (key === 'wallTimeSeconds') return formatSeconds(n);
  return key === 'tokens' ? formatCount(n) : String(n);
}

/** "3 model calls", "$0.50 cost", "1.2k tokens", "2m 0s wall time". */
export function describeSliceValue(key: SliceKey, n: number): string {
  return `${formatSliceValue(key, n)} ${NAMES[key]}`;
}

/**
 * The first measure of `slice` that is spent, as a sentence for the model and the human, or
 * undefined while each has room. Tokens, cost and wall time are spent when used up; model calls
 * when `next` would be one more than the slice allows (without `next`, when all are used).
 */
export function sliceSpent(slice: BudgetSlice, now: number, next?: 'modelCall'): string | undefined {
  const l = slice.limits;
  const whose = `given to "${slice.label}"`;
  if (l.tokens > 0 && slice.tokensUsed >= l.tokens) return `the token budget of ${l.tokens} ${whose} is spent`;
  if (l.cost > 0 && slice.cost >= l.cost) return `the cost budget of ${formatCost(l.cost)} ${whose} is spent`;
  if (l.wallTimeSeconds > 0 && now - slice.startedAt >= l.wallTimeSeconds * 1000) return `the wall time of ${formatSeconds(l.wallTimeSeconds)} ${whose} is up`;
  if (l.modelCalls > 0 && slice.modelCallsUsed >= l.modelCalls && (next === 'modelCall' || next === undefined)) return `the budget of ${l.modelCalls} model calls ${whose} is spent`;
  return undefined;
}

/** The outermost spent slice of a chain (its branch holds every inner one), with why; a closed one (its agent ended) holds nothing. */
export function spentSliceOf(slice: BudgetSlice | undefined, now: number, next?: 'modelCall'): { slice: BudgetSlice; reason: string } | undefined {
  let found: { slice: BudgetSlice; reason: string } | undefined;
  for (let s = slice; s; s = s.parent) {
    const reason = s.closed ? undefined : sliceSpent(s, now, next);
    if (reason) found = { slice: s, reason };
  }
  return found;
}

/** How much of each limited measure a slice has used, and its level (`warning` from 80%). */
export function sliceStatus(slice: BudgetSlice, now: number): BudgetStatus {
  const measures: BudgetStatus['measures'] = [];
  let highest: BudgetStatus['highest'];
  let level: BudgetStatus['level'] = 'ok';
  for (const key of SLICE_KEYS) {
    const limit = slice.limits[key];
    if (limit <= 0) continue;
    const used = slice.used(key, now);
    const fraction = used / limit;
    const m: BudgetStatus['measures'][number] = { key: key === 'wallTimeSeconds' ? 'wallTime' : key, used, limit, fraction, text: `${formatSliceValue(key, used)} of ${describeSliceValue(key, limit)}` };
    measures.push(m);
    if (!highest || fraction > highest.fraction) highest = m;
    if (fraction >= 1) level = 'exhausted';
    else if (fraction >= WARNING_FRACTION && level === 'ok') level = 'warning';
  }
  return { level, measures, highest };
}

/** How a node says the use of its slice: `⚠ 85% of its tokens` from 80% (none below), and the tooltip's lines. */
export function sliceUsage(slice: BudgetSlice, now: number): { part: string | undefined; lines: string[] } {
  const { level, measures, highest } = sliceStatus(slice, now);
  const name = highest && NAMES[highest.key === 'wallTime' ? 'wallTimeSeconds' : (highest.key as SliceKey)];
  return {
    part: level !== 'ok' && highest ? `⚠ ${Math.floor(highest.fraction * 100)}% of its ${name}` : undefined,
    lines: ['', '**Its own budget** (it and its subagents; Raise limit on this node raises it)', ...measures.map((m) => `- ${m.text} (${Math.floor(m.fraction * 100)}%)`)],
  };
}

/** Each measure at or past 80% of its limit doubled until it is below; the others as they were. */
export function raisedSlice(slice: BudgetSlice, now: number): SliceLimits {
  const next = { ...slice.limits };
  for (const key of SLICE_KEYS) {
    if (next[key] <= 0) continue;
    const used = slice.used(key, now);
    while (used >= next[key] * WARNING_FRACTION) next[key] *= 2;
  }
  return next;
}

/** A refusal that says what is left, measure by measure (`left` has only the measures asked for). */
export function sliceTooLarge(asked: SliceRequest, left: Partial<Record<SliceKey, number>>, from: string): ArborError {
  const over = SLICE_KEYS.filter((k) => asked[k] !== undefined && left[k] !== undefined && asked[k] > left[k]);
  const what = over.map((k) => `${describeSliceValue(k, asked[k]!)} asked, ${describeSliceValue(k, Math.max(0, left[k]!))} left`).join('; ');
  return new ArborError(
    'BUDGET_SLICE_TOO_LARGE',
    `The budget asked for is more than ${from} has left (${what}). Ask for at most what is left, or start the subagent without a budget.`,
    { asked, left, from },
  );
}
