import * as z from 'zod';
import type { Hold } from '../agents/holds';
import { once } from '../once';
import { formatCount, formatSeconds } from './budgetStatus';
import { formatCost } from './prices';

/**
 * What a delegation may ask for as a child's own budget (a slice, budgets/slices.ts), and how its
 * measures are said. Small and in the start bundle: the delegation tools' and the definitions'
 * schemas use it; keeping slices (sliceGuard.ts) is a part loaded with the first slice.
 */
export const sliceRequestSchema = once(() =>
  z
    .object({
      tokens: z.number().int().positive().optional().describe('Tokens (in + out) the subagent and its own subagents may use together.'),
      cost: z.number().positive().optional().describe('What they may cost together, in the unit of the price table.'),
      modelCalls: z.number().int().positive().optional().describe('Model calls they may make together.'),
      wallTimeSeconds: z.number().positive().optional().describe('Seconds the branch may run from its start.'),
    })
    .strict()
    .refine((b) => b.tokens !== undefined || b.cost !== undefined || b.modelCalls !== undefined || b.wallTimeSeconds !== undefined, {
      message: 'A budget names at least one of tokens, cost, modelCalls, wallTimeSeconds.',
    }),
);

export type SliceRequest = z.output<ReturnType<typeof sliceRequestSchema>>;
export type SliceKey = keyof SliceRequest;
export const SLICE_KEYS: readonly SliceKey[] = Object.freeze(['tokens', 'cost', 'modelCalls', 'wallTimeSeconds']);

/** A slice's limits: 0 means none for that measure. */
export type SliceLimits = Record<SliceKey, number>;

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

/** A slice as an agent's live record keeps it (restore/liveRecord.ts checks it when it is read back). */
export interface SliceRecordData {
  limits: SliceLimits;
  tokensUsed: number;
  cost: number;
  modelCallsUsed: number;
  /** The agent whose slice it was taken from; none when it was taken from the run. */
  from?: string;
  /** Its branch's pause. */
  paused?: Hold;
}
