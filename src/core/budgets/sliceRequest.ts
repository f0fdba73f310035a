import * as z from 'zod';
import type { Hold } from '../agents/holds';
import { once } from '../once';

/**
 * What a delegation may ask for as a child's own budget (a slice, budgets/slices.ts): any of
 * tokens, cost, model calls and wall time, each for the child and everything below it. Small and
 * in the start bundle (the delegation tools' and the definitions' schemas use it); keeping slices
 * is a part (budgetPart.ts) loaded with the first one. An empty budget is no budget.
 */
export const sliceRequestSchema = once(() =>
  z
    .object({
      tokens: z.number().int().positive().optional(),
      cost: z.number().positive().optional(),
      modelCalls: z.number().int().positive().optional(),
      wallTimeSeconds: z.number().positive().optional(),
    })
    .strict(),
);

export type SliceRequest = z.output<ReturnType<typeof sliceRequestSchema>>;
export type SliceKey = keyof SliceRequest;
export const SLICE_KEYS: readonly SliceKey[] = Object.freeze(['tokens', 'cost', 'modelCalls', 'wallTimeSeconds']);

/** A slice's limits: 0 means none for that measure. */
export type SliceLimits = Record<SliceKey, number>;

/** A slice as an agent's live record keeps it (restore/liveRecord.ts checks it when it is read back). */
export interface SliceRecordData {
  limits: SliceLimits;
  tokensUsed: number;
  cost: number;
  modelCallsUsed: number;
  /** The wall time it had used, in seconds (none in a record written before it was kept: none used). */
  wallSeconds?: number;
  /** The agent whose slice it was taken from; none when it was taken from the run. */
  from?: string;
  /** Its branch's pause. */
  paused?: Hold;
}
