import * as z from 'zod';

/**
 * Limits per run (a root agent and everything it delegates to). Hitting one ends the turn
 * with reason `budget`, and the model is told which limit it hit.
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
});

export type RunLimits = z.output<typeof runLimitsSchema>;
export type RunLimitsInput = z.input<typeof runLimitsSchema>;

export const DEFAULT_LIMITS: RunLimits = runLimitsSchema.parse({});

export function resolveLimits(input: unknown): RunLimits {
  return runLimitsSchema.parse(input ?? {});
}

/** Shared by every agent of one run, so the token budget covers the whole tree. */
export class RunBudget {
  tokensUsed = 0;
  constructor(readonly limits: RunLimits) {}

  tokensExhausted(): boolean {
    return this.limits.maxTokens > 0 && this.tokensUsed >= this.limits.maxTokens;
  }
}
