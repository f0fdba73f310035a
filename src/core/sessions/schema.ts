import * as z from 'zod';
import { once } from '../once';
import type { SessionEvent, SessionHeader } from './types';

/**
 * The on-disk shape of a session log, checked line by line when a file is loaded: files on
 * disk are a trust boundary (another version of Arbor, a hand edit, a torn write).
 * Unknown keys are stripped, so a file written by a newer build of the same format version
 * still loads.
 */

export const isoTimestamp = once(() => z.iso.datetime({ offset: true }));
const count = once(() => z.number().int().nonnegative());

export const sessionHeaderSchema = once(() => z.object({
  type: z.literal('header'),
  version: z.number().int().positive(),
  id: z.string().min(1),
  createdAt: isoTimestamp(),
  parentSession: z.string().min(1).optional(),
  delegationDepth: count(),
  kind: z.enum(['root', 'one-shot', 'continuable']),
  label: z.string(),
  workspace: z.string().optional(),
  interactionMode: z.enum(['interactive', 'scheduled', 'webhook', 'autonomous']),
  resumedFrom: z.string().min(1).optional(),
  external: z.string().min(1).optional(),
  definition: z.object({ name: z.string().min(1), file: z.string() }).optional(),
}));

const toolCallSchema = once(() => z.object({ id: z.string(), name: z.string(), arguments: z.string() }));
const questionSchema = once(() => z.object({
  id: z.string(),
  question: z.string(),
  header: z.string().optional(),
  options: z.array(z.object({ label: z.string(), description: z.string().optional() })),
  multiSelect: z.boolean().optional(),
}));
const answerSchema = once(() => z.object({ id: z.string(), selected: z.array(z.string()), custom: z.string().optional() }));

export const turnEndReasonSchema = once(() => z.enum(['completed', 'aborted', 'blocked', 'error', 'budget', 'paused', 'interrupted']));
export const cancelCauseSchema = once(() => z.enum(['user', 'parent', 'disposed', 'budget']));

export const sessionEventSchema = once(() => z.discriminatedUnion('type', [
  z.object({
    type: z.literal('user_message'),
    at: isoTimestamp(),
    text: z.string(),
    from: z.enum(['user', 'parent', 'child', 'system']),
    queuedId: count().optional(),
  }),
  z.object({
    type: z.literal('queued'),
    at: isoTimestamp(),
    id: count(),
    text: z.string(),
    from: z.enum(['user', 'parent', 'child', 'system']),
    atNextStep: z.boolean().optional(),
  }),
  z.object({ type: z.literal('queue_dropped'), at: isoTimestamp(), ids: z.array(count()) }),
  z.object({ type: z.literal('assistant_text'), at: isoTimestamp(), text: z.string() }),
  z.object({ type: z.literal('tool_call'), at: isoTimestamp(), call: toolCallSchema() }),
  z.object({
    type: z.literal('tool_result'),
    at: isoTimestamp(),
    toolCallId: z.string(),
    name: z.string(),
    content: z.string(),
    isError: z.boolean().optional(),
  }),
  z.object({ type: z.literal('turn_start'), at: isoTimestamp(), turn: count() }),
  z.object({
    type: z.literal('turn_end'),
    at: isoTimestamp(),
    turn: count(),
    reason: turnEndReasonSchema(),
    cause: cancelCauseSchema().optional(),
    message: z.string().optional(),
  }),
  z.object({
    type: z.literal('interrupt'),
    at: isoTimestamp(),
    authority: z.enum(['user', 'ancestor']),
    by: z.string().optional(),
  }),
  z.object({
    type: z.literal('question'),
    at: isoTimestamp(),
    questions: z.array(questionSchema()),
    /** The tool call waiting for the answer: a resumed session asks again for it. */
    toolCallId: z.string().optional(),
    intent: z.enum(['clarify', 'plan-approval', 'approval']).optional(),
  }),
  z.object({
    type: z.literal('answer'),
    at: isoTimestamp(),
    answers: z.array(answerSchema()).optional(),
    error: z.string().optional(),
  }),
  z.object({
    type: z.literal('approval'),
    at: isoTimestamp(),
    action: z.string(),
    detail: z.string().optional(),
    decision: z.enum(['allow-once', 'allow-session', 'allow-branch', 'allow-workspace', 'allow-always', 'allow-rule', 'deny']),
    reason: z.string(),
    rule: z.string().optional(),
    ruleScope: z.enum(['workspace', 'user', 'setting']).optional(),
  }),
  z.object({ type: z.literal('usage'), at: isoTimestamp(), inputTokens: count(), outputTokens: count() }),
  z.object({ type: z.literal('external_session'), at: isoTimestamp(), sessionId: z.string().min(1), loadSession: z.boolean() }),
  z.object({ type: z.literal('plan'), at: isoTimestamp(), items: z.array(z.object({ step: z.string(), status: z.enum(['pending', 'in_progress', 'done']) })) }),
]));

/** Just enough of a header to decide whether this build can read the file at all. */
export const headerVersionSchema = once(() => z.object({ type: z.literal('header'), version: z.number().int().positive() }));

// The schemas and the TypeScript contracts must describe the same shapes: a change to one
// without the other fails the type check here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const headerSchemaMatchesType: Same<z.infer<ReturnType<typeof sessionHeaderSchema>>, SessionHeader> = true;
const eventSchemaMatchesType: Same<z.infer<ReturnType<typeof sessionEventSchema>>, SessionEvent> = true;
void headerSchemaMatchesType;
void eventSchemaMatchesType;
