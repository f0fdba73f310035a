import type * as acp from '@agentclientprotocol/sdk';
import * as z from 'zod';
import { once } from '../once';

/**
 * An external agent's subagents as the protocol announces them (`subagent_update`, stabilised
 * 2026-11-20; the SDK's stable entry Arbor loads does not know it yet and refuses it as invalid
 * params). Those notifications are taken out of the stream before the SDK sees them and parsed
 * here against the published schema; every other message goes on to the SDK untouched.
 *
 * Invariants:
 * - only a `session/update` whose update is a `subagent_update` with a session id is taken out;
 *   a malformed one is dropped (it only describes a child), never passed to the SDK to fail;
 * - omitted fields mean unchanged and `null` clears, as the protocol says: `title` and
 *   `description` are strings or null, `capabilities.cancel` present (an object) means the
 *   client may cancel the child, and `state` replaces the last one wholesale.
 */

const meta = () => z.record(z.string(), z.unknown()).nullish();

const usageSchema = once(() => z.object({ inputTokens: z.number().int().nonnegative(), outputTokens: z.number().int().nonnegative() }));

const stateSchema = once(() =>
  z.object({
    state: z.string(),
    stopReason: z.string().nullish().catch(undefined),
    usage: usageSchema().nullish().catch(undefined),
    _meta: meta().catch(undefined),
  }),
);

export const subagentUpdateSchema = once(() =>
  z.object({
    sessionUpdate: z.literal('subagent_update'),
    sessionId: z.string().min(1),
    title: z.string().nullish(),
    description: z.string().nullish(),
    capabilities: z.object({ cancel: z.record(z.string(), z.unknown()).nullish() }).nullish().catch(null),
    state: stateSchema().nullish().catch(undefined),
  }),
);

export type SubagentUpdate = z.infer<ReturnType<typeof subagentUpdateSchema>>;
export type SubagentState = z.infer<ReturnType<typeof stateSchema>>;

const envelopeSchema = once(() => z.object({ method: z.literal('session/update'), params: z.object({ sessionId: z.string(), update: z.object({ sessionUpdate: z.literal('subagent_update') }).passthrough() }) }));

/**
 * The connection's stream with `subagent_update` notifications handed to `onUpdate` (parsed)
 * instead of the SDK; the parent session's id comes with each.
 */
export function withSubagentUpdates(stream: acp.Stream, onUpdate: (parentSessionId: string, update: SubagentUpdate) => void): acp.Stream {
  const readable = stream.readable.pipeThrough(
    new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      transform(message, controller) {
        const envelope = envelopeSchema().safeParse(message);
        if (!envelope.success) return controller.enqueue(message);
        const update = subagentUpdateSchema().safeParse(envelope.data.params.update);
        if (update.success) onUpdate(envelope.data.params.sessionId, update.data);
      },
    }),
  );
  return { readable, writable: stream.writable };
}
