import * as z from 'zod';
import { ArborError } from '../errors';
import { lazySchema } from '../lazySchema';
import type { ModelChunk } from './types';

/**
 * Model output is a trust boundary: whatever a provider streams (a server's JSON, a vendor's
 * parts, a script) is parsed with this one schema where the turn loop consumes it, before it
 * reaches the conversation, the session log or the usage counters. A chunk that does not fit
 * ends the turn with MODEL_BAD_OUTPUT and changes nothing.
 */

/** A token count: a whole, non-negative, safe number (zod's int() excludes unsafe integers). */
const tokenCount = lazySchema(() => z.number().int().nonnegative());

export const modelChunkSchema = lazySchema(() => z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('tool_call'),
    call: z.object({
      id: z.string().min(1, 'a tool call needs an id'),
      name: z.string().min(1, 'a tool call needs a name'),
      arguments: z.string(),
    }),
  }),
  z.object({ type: z.literal('usage'), inputTokens: tokenCount, outputTokens: tokenCount }),
]));

const MAX_SHOWN = 80;

/**
 * The chunk as the schema's output (unknown keys dropped), or MODEL_BAD_OUTPUT naming the
 * field, the problem and the value received. `source` names the model in the message.
 */
export function parseModelChunk(value: unknown, source: string): ModelChunk {
  const parsed = modelChunkSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path ?? [];
  const type = isRecord(value) ? value.type : undefined;
  const kind = typeof type === 'string' && /^[a-z_]{1,32}$/.test(type) ? `${type} chunk` : 'chunk';
  const field = path.length > 0 ? `'${path.join('.')}'` : 'the chunk';
  const got = shown(valueAt(value, path));
  throw new ArborError(
    'MODEL_BAD_OUTPUT',
    `The model ${source} sent a malformed ${kind}: ${field} is invalid (${issue?.message ?? 'unknown problem'}; got ${got}). The turn was ended and nothing of that chunk was recorded.`,
    { field: path.join('.'), received: got },
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const key of path) {
    if (!isRecord(v)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function shown(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  } catch {
    // JSON cannot write it (a cycle, a BigInt): shown as text.
    text = String(value);
  }
  return text.length <= MAX_SHOWN ? text : `${text.slice(0, MAX_SHOWN - 1)}…`;
}
