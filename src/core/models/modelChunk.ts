import * as z from 'zod';
import { ArborError } from '../errors';
import { once } from '../once';
import type { ModelChunk } from './types';

/**
 * Model output is a trust boundary: whatever a provider streams (a server's JSON, a vendor's
 * parts, a script) is parsed with this one schema where the turn loop consumes it, before it
 * reaches the conversation, the session log or the usage counters. A chunk that does not fit
 * ends the turn with MODEL_BAD_OUTPUT and changes nothing.
 */

/** A token count: a whole, non-negative, safe number (zod's int() excludes unsafe integers). */
const tokenCount = once(() => z.number().int().nonnegative());

export const modelChunkSchema = once(() => z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('tool_call'),
    call: z.object({
      id: z.string().min(1, 'a tool call needs an id'),
      name: z.string().min(1, 'a tool call needs a name'),
      arguments: z.string(),
    }),
  }),
  z.object({ type: z.literal('usage'), inputTokens: tokenCount(), outputTokens: tokenCount() }),
]));

const MAX_SHOWN = 80;

/**
 * The chunk as the schema's output (unknown keys dropped), or MODEL_BAD_OUTPUT naming the
 * field, the problem and the value received. `source` names the model in the message.
 */
export function parseModelChunk(value: unknown, source: string): ModelChunk {
  const fitting = fittingChunk(value);
  if (fitting) return fitting;
  const parsed = modelChunkSchema().safeParse(value);
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

/**
 * The schema's output for a chunk that fits it, made without the schema; undefined for anything
 * else, which the schema then parses and refuses with its own message. Every chunk of every
 * model call passes here, and the schema's generic parse cost about as much as the rest of the
 * turn loop's work on a chunk. It accepts exactly what the schema accepts (a unit test holds the
 * two to the same answers): an object that is not an array, of a known type, whose fields have
 * the schema's types and bounds.
 */
function fittingChunk(value: unknown): ModelChunk | undefined {
  if (!isObject(value)) return undefined;
  switch (value.type) {
    case 'text':
      return typeof value.text === 'string' ? { type: 'text', text: value.text } : undefined;
    case 'tool_call': {
      const call = value.call;
      if (!isObject(call)) return undefined;
      const { id, name, arguments: args } = call;
      if (typeof id !== 'string' || id === '' || typeof name !== 'string' || name === '' || typeof args !== 'string') return undefined;
      return { type: 'tool_call', call: { id, name, arguments: args } };
    }
    case 'usage': {
      const { inputTokens, outputTokens } = value;
      return isTokenCount(inputTokens) && isTokenCount(outputTokens) ? { type: 'usage', inputTokens, outputTokens } : undefined;
    }
    default:
      return undefined;
  }
}

/** What zod reads as an object: not null, not an array. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTokenCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
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
