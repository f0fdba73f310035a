import * as z from 'zod';
import { costOf, type PriceTable } from './budgets/prices';
import type { SliceRecordData } from './budgets/sliceRequest';

/**
 * Limits per run (a root agent and everything it delegates to). The per-agent and per-turn ones
 * (turns per agent, model calls per turn, delegation depth, live children) end the turn that hits
 * them with reason `budget`, and the model is told which limit it hit. The run-wide budgets
 * (tokens, turns, model calls, wall time, cost) pause the whole run when spent: every agent of the
 * run stops its turn and keeps its conversation and queue until the limit is raised.
 */
export const runLimitsSchema = z.object({
  /** How deep delegation may go: a root is depth 0, its children depth 1. */
  maxDelegationDepth: z.number().int().min(0).max(64).default(4),
  /** Live children (one-shot and continuable) one agent may hold at once. */
  maxLiveChildren: z.number().int().min(0).max(10_000).default(16),
  /** Turns one agent may run. */
  maxTurns: z.number().int().min(1).max(1_000_000).default(200),
  /** Model calls within one turn. */
  maxStepsPerTurn: z.number().int().min(1).max(10_000).default(50),
  /** Tokens (in + out) the whole run may use; 0 means no limit. */
  maxTokens: z.number().int().min(0).default(0),
  /** Turns all the agents of the run may start together; 0 means no limit. */
  maxRunTurns: z.number().int().min(0).default(0),
  /** Model calls all the agents of the run may make together; 0 means no limit. */
  maxModelCalls: z.number().int().min(0).default(0),
  /** Seconds the run may last from its start; 0 means no limit. */
  maxWallTimeSeconds: z.number().min(0).default(0),
  /** What the run may cost, in the unit of the price table (models without a price count nothing); 0 means no limit. */
  maxCost: z.number().min(0).default(0),
  /** Live subagents the whole run may hold at once; 0 means no limit. */
  maxLiveSubagents: z.number().int().min(0).default(0),
});

export type RunLimits = z.output<typeof runLimitsSchema>;
export type RunLimitsInput = z.input<typeof runLimitsSchema>;

export const DEFAULT_LIMITS: RunLimits = runLimitsSchema.parse({});

export function resolveLimits(input: unknown): RunLimits {
  return runLimitsSchema.parse(input ?? {});
}

/**
 * A run's budgets per branch (budgets/sliceBook.ts, a part loaded with the first slice), as the
 * run and the views that do not load it reach them: told of each response and model call of an
 * agent, asked whether the agent's branch is spent, how much of its own slice it used, and what
 * its live record keeps.
 */
export interface BranchLedger {
  charge(agentId: string, tokens: number, cost: number): void;
  countModelCall(agentId: string): void;
  /** The outermost spent slice of the agent's branch (the session id of its agent) and why; `next` judges model calls. */
  spentFor(agentId: string, now: number, next?: 'modelCall'): { owner: string; reason: string } | undefined;
  /** How its node says the use of its own slice, when it was given one: `⚠ 85% of its tokens` from 80%, and the tooltip's lines. */
  usageOf(agentId: string, now: number): { part: string | undefined; lines: string[] } | undefined;
  /** Whether the agent was given a slice of its own (and is still in the run). */
  owns(agentId: string): boolean;
  /** Its own slice as its live record keeps it, its wall time as of `now`. */
  recordOf(agentId: string, now: number): SliceRecordData | undefined;
}

/**
 * What one run has used, shared by every agent of the run so each budget covers the whole tree.
 * The turn loop records into it; the budget guard (budgets/) reads it and, when a budget is
 * spent, puts a `budget` hold on every agent of the run (agents/holds.ts). The run itself keeps
 * no pause: why an agent is not running is in its holds.
 */
export class RunBudget {
  tokensUsed = 0;
  /** Turns started by every agent of the run. */
  turnsUsed = 0;
  /** Model calls made by every agent of the run. */
  modelCallsUsed = 0;
  /** Cost of the tokens of priced models. */
  cost = 0;
  /** Tokens of models the price table has no price for (their cost is unknown). */
  unpricedTokens = 0;
  /** Live subagents of the run right now, and the deepest delegation it reached. */
  liveSubagents = 0;
  deepest = 0;
  /**
   * When the run started (ms since the epoch): its wall time counts from here. A run put back
   * after a reload starts that much earlier than the restore, so its wall time goes on from what
   * it had used (the time no window ran it does not count).
   */
  startedAt: number;
  /** Made on first use: most runs have no warning and no priced model (a run of one idle root stays small). */
  private agentWarnings: Map<string, string> | undefined;
  private costs: Map<string, number> | undefined;
  /** The run's budgets per branch (budgets/sliceBook.ts puts its book here with the first slice). */
  slices: BranchLedger | undefined;

  constructor(
    public limits: RunLimits,
    private readonly prices: PriceTable = {},
    /** The clock the run's wall time is read from. */
    readonly clock: () => number = Date.now,
  ) {
    this.startedAt = clock();
  }

  /** One model call of `agentId`, counted for the run and for its branch's slices. */
  countModelCall(agentId: string): void {
    this.modelCallsUsed++;
    this.slices?.countModelCall(agentId);
  }

  tokensExhausted(): boolean {
    return this.limits.maxTokens > 0 && this.tokensUsed >= this.limits.maxTokens;
  }

  /** Records one model response's tokens and their cost at `model`'s price (see prices.ts). */
  recordUsage(agentId: string, model: string, inputTokens: number, outputTokens: number): void {
    this.tokensUsed += inputTokens + outputTokens;
    const cost = costOf(this.prices, model, inputTokens, outputTokens);
    this.slices?.charge(agentId, inputTokens + outputTokens, cost ?? 0);
    if (cost === undefined) {
      this.unpricedTokens += inputTokens + outputTokens;
      return;
    }
    this.cost += cost;
    const costs = (this.costs ??= new Map());
    costs.set(agentId, (costs.get(agentId) ?? 0) + cost);
  }

  /** A cost an agent reported itself (an external agent's own count), in the price table's unit. */
  recordCost(agentId: string, amount: number): void {
    if (!Number.isFinite(amount) || amount <= 0) return;
    this.cost += amount;
    this.slices?.charge(agentId, 0, amount);
    const costs = (this.costs ??= new Map());
    costs.set(agentId, (costs.get(agentId) ?? 0) + amount);
  }

  /** What one agent's tokens cost so far (0 when none was priced). */
  costOf(agentId: string): number {
    return this.costs?.get(agentId) ?? 0;
  }

  /** A runaway guard's warning about this agent, shown on its node until a person speaks to it. */
  agentWarning(agentId: string): string | undefined {
    return this.agentWarnings?.get(agentId);
  }

  /** What a run put back after a reload had used before it (restore/): its figures and each agent's cost. */
  carryOver(used: { tokensUsed: number; turnsUsed: number; modelCallsUsed: number; cost: number; unpricedTokens: number; wallSeconds?: number }, costs: Iterable<readonly [string, number]>): void {
    this.startedAt = this.clock() - (used.wallSeconds ?? 0) * 1000;
    this.tokensUsed = used.tokensUsed;
    this.turnsUsed = used.turnsUsed;
    this.modelCallsUsed = used.modelCallsUsed;
    this.cost = used.cost;
    this.unpricedTokens = used.unpricedTokens;
    for (const [id, cost] of costs) if (cost > 0) (this.costs ??= new Map()).set(id, cost);
  }

  /** The wall time the run has used, in seconds. */
  wallSeconds(): number {
    return Math.max(0, (this.clock() - this.startedAt) / 1000);
  }

  warnAgent(agentId: string, warning: string | undefined): void {
    if (warning === undefined) this.agentWarnings?.delete(agentId);
    else (this.agentWarnings ??= new Map()).set(agentId, warning);
  }
}
