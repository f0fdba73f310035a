/** What the budget figures are read from: a run's budget (limits.ts RunBudget, which reads these texts too). */
interface RunBudget {
  readonly limits: { readonly maxTokens: number; readonly maxRunTurns: number; readonly maxModelCalls: number; readonly maxWallTimeSeconds: number; readonly maxCost: number; readonly maxLiveSubagents: number };
  readonly tokensUsed: number;
  readonly turnsUsed: number;
  readonly modelCallsUsed: number;
  readonly cost: number;
  readonly unpricedTokens: number;
  readonly liveSubagents: number;
  readonly startedAt: number;
}
import { formatCost } from './prices';

/**
 * How much of each run budget is used, and the level the run is at: `warning` from 80% of any
 * budget, `exhausted` at 100% of one (the run is then paused). Pure: it reads the run's counters
 * and the time it is given, so views and tests ask it the same question.
 */

export type BudgetKey = 'tokens' | 'turns' | 'modelCalls' | 'wallTime' | 'cost' | 'liveSubagents';
export type BudgetLevel = 'ok' | 'warning' | 'exhausted';

export interface BudgetMeasure {
  key: BudgetKey;
  used: number;
  /** The limit; 0 means none (the measure is still shown, with no fraction). */
  limit: number;
  /** used / limit, or 0 without a limit. */
  fraction: number;
  /** "12.3k of 20k tokens", "$0.42 of $1", "3 of 5 live subagents". */
  text: string;
}

export interface BudgetStatus {
  level: BudgetLevel;
  measures: BudgetMeasure[];
  /** The measure closest to (or past) its limit, when any has a limit. */
  highest: BudgetMeasure | undefined;
}

export const WARNING_FRACTION = 0.8;

/** The budgets whose use only grows: spending one pauses the run. */
const CUMULATIVE: ReadonlySet<BudgetKey> = new Set(['tokens', 'turns', 'modelCalls', 'wallTime', 'cost']);

export function budgetStatus(run: RunBudget, now: number): BudgetStatus {
  const l = run.limits;
  const wallSeconds = Math.max(0, (now - run.startedAt) / 1000);
  const measures: BudgetMeasure[] = [
    measure('tokens', run.tokensUsed, l.maxTokens, (n) => `${formatCount(n)}`, 'tokens'),
    measure('turns', run.turnsUsed, l.maxRunTurns, String, 'turns'),
    measure('modelCalls', run.modelCallsUsed, l.maxModelCalls, String, 'model calls'),
    measure('wallTime', wallSeconds, l.maxWallTimeSeconds, formatSeconds, 'wall time'),
    measure('cost', run.cost, l.maxCost, formatCost, run.unpricedTokens > 0 ? 'cost (some models unpriced)' : 'cost'),
    measure('liveSubagents', run.liveSubagents, l.maxLiveSubagents, String, 'live subagents'),
  ];
  let highest: BudgetMeasure | undefined;
  for (const m of measures) if (m.limit > 0 && (!highest || m.fraction > highest.fraction)) highest = m;
  let level: BudgetLevel = 'ok';
  for (const m of measures) level = levelWith(level, m.used, m.limit, CUMULATIVE.has(m.key));
  return { level, measures, highest };
}

/**
 * The level budgetStatus gives, without its measures and their texts: the budget guard asks
 * after every response that reports usage, and most runs have no limit near (or at all).
 */
export function budgetLevel(run: RunBudget, now: number): BudgetLevel {
  const l = run.limits;
  let level: BudgetLevel = 'ok';
  level = levelWith(level, run.tokensUsed, l.maxTokens, true);
  level = levelWith(level, run.turnsUsed, l.maxRunTurns, true);
  level = levelWith(level, run.modelCallsUsed, l.maxModelCalls, true);
  if (l.maxWallTimeSeconds > 0) level = levelWith(level, Math.max(0, (now - run.startedAt) / 1000), l.maxWallTimeSeconds, true);
  level = levelWith(level, run.cost, l.maxCost, true);
  return levelWith(level, run.liveSubagents, l.maxLiveSubagents, false);
}

/** One measure's say in the level: a spent cumulative budget exhausts the run, one at 80% warns. */
function levelWith(level: BudgetLevel, used: number, limit: number, cumulative: boolean): BudgetLevel {
  if (limit <= 0) return level;
  const fraction = used / limit;
  if (fraction >= 1 && cumulative) return 'exhausted';
  return fraction >= WARNING_FRACTION && level === 'ok' ? 'warning' : level;
}

/** Whether the run has a budget of its own to spend at all: most runs have none, and then nothing can warn or be spent. */
export function hasRunBudget(l: RunBudget['limits']): boolean {
  return l.maxTokens > 0 || l.maxCost > 0 || l.maxWallTimeSeconds > 0 || l.maxRunTurns > 0 || l.maxModelCalls > 0 || l.maxLiveSubagents > 0;
}

/**
 * The first run budget that is spent, as a sentence for the model and the human ("the run's
 * token budget of 40 is spent"), or undefined while every budget has room. Tokens, cost and wall
 * time are spent when used up; turns and model calls when `next` would start one more than the
 * limit allows (without `next`, they are not judged).
 */
export function spentBudget(run: RunBudget, now: number, next?: 'turn' | 'modelCall'): string | undefined {
  const l = run.limits;
  if (l.maxTokens > 0 && run.tokensUsed >= l.maxTokens) return `the run's token budget of ${l.maxTokens} is spent`;
  if (l.maxCost > 0 && run.cost >= l.maxCost) return `the run's cost budget of ${formatCost(l.maxCost)} is spent`;
  if (l.maxWallTimeSeconds > 0 && now - run.startedAt >= l.maxWallTimeSeconds * 1000) return `the run's wall time of ${formatSeconds(l.maxWallTimeSeconds)} is up`;
  if (next === 'turn' && l.maxRunTurns > 0 && run.turnsUsed >= l.maxRunTurns) return `the run's budget of ${l.maxRunTurns} turns is spent`;
  if (next !== undefined && l.maxModelCalls > 0 && run.modelCallsUsed >= l.maxModelCalls) return `the run's budget of ${l.maxModelCalls} model calls is spent`;
  return undefined;
}

function measure(key: BudgetKey, used: number, limit: number, format: (n: number) => string, what: string): BudgetMeasure {
  const fraction = limit > 0 ? used / limit : 0;
  const text = limit > 0 ? `${format(used)} of ${format(limit)} ${what}` : `${format(used)} ${what}`;
  return { key, used, limit, fraction, text };
}

export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function formatSeconds(s: number): string {
  const whole = Math.floor(s);
  if (whole < 60) return `${whole}s`;
  const m = Math.floor(whole / 60);
  if (m < 60) return `${m}m ${whole % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}
