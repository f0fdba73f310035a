import * as z from 'zod';
import { once } from '../once';

/**
 * The messages between the extension host and an agent's conversation view (a webview).
 *
 * Webview -> host messages cross a trust boundary: whatever runs in the view (a bug, or
 * content that got scripted in) can post anything, so every message is parsed with these
 * strict schemas first. An unknown key (such as `interactionMode`) rejects the message, which
 * then changes nothing. Host -> webview messages are written by Arbor itself; their schemas
 * are the contract the view script renders (it imports only the types, so zod stays out of
 * the view's bundle), and the unit tests hold the host to them.
 */

/** The longest message a user may send from the view (the public run request allows more). */
export const MAX_SEND_LENGTH = 20_000;
/** Longer texts in the view are clipped; the Markdown transcript keeps all of them. */
export const MAX_ITEM_TEXT = 20_000;
/** Queued messages the view lists; the state still counts all of them. */
export const MAX_QUEUED_SHOWN = 10;

// --- webview -> host ------------------------------------------------------------------------

export const webviewToHostSchema = once(() =>
  z.discriminatedUnion('type', [
    /** The view has loaded (again, after being hidden): the host answers with a snapshot. */
    z.strictObject({ type: z.literal('ready') }),
    /** Queue a message for the agent, waking it (a stopped agent resumes its parked queue first). */
    z.strictObject({
      type: z.literal('send'),
      text: z.string().min(1, 'must not be empty').max(MAX_SEND_LENGTH).regex(/\S/, 'must not be blank'),
    }),
    /** Stop the agent's current turn (the same Stop as the tree's). */
    z.strictObject({ type: z.literal('stop') }),
  ]));
export type WebviewToHostMessage = z.infer<ReturnType<typeof webviewToHostSchema>>;

/**
 * What a view keeps across a window reload (its webview state): which agent's session it shows
 * and the unsent draft. VS Code hands it back to restore the view; it comes from the webview,
 * so it is parsed like any message from there.
 */
export const conversationViewStateSchema = once(() =>
  z.object({
    agentId: z.string().min(1).max(1_000),
    draft: z.string().max(MAX_SEND_LENGTH).optional(),
  }));
export type ConversationViewState = z.infer<ReturnType<typeof conversationViewStateSchema>>;

// --- host -> webview ------------------------------------------------------------------------

const messageSource = once(() => z.enum(['user', 'parent', 'child', 'system']));
const agentKind = once(() => z.enum(['root', 'one-shot', 'continuable']));

/** One entry of the conversation as the view renders it. */
export const conversationItemSchema = once(() =>
  z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('turn'), turn: z.number().int().nonnegative() }),
    z.strictObject({ kind: z.literal('message'), from: messageSource(), text: z.string() }),
    /** A subagent's report: one line for a person (who, how it ended); the full text folded. */
    z.strictObject({ kind: z.literal('report'), title: z.string(), text: z.string() }),
    z.strictObject({ kind: z.literal('assistant'), text: z.string() }),
    z.strictObject({
      kind: z.literal('tool'),
      callId: z.string(),
      name: z.string(),
      /** Pretty-printed JSON arguments; absent for a result whose call is not in the log. */
      arguments: z.string().optional(),
      /** Absent while the tool runs. */
      result: z.strictObject({ text: z.string(), isError: z.boolean() }).optional(),
    }),
    z.strictObject({
      kind: z.literal('question'),
      questions: z.array(z.strictObject({ header: z.string().optional(), question: z.string(), options: z.array(z.string()) })),
    }),
    z.strictObject({
      kind: z.literal('answer'),
      answers: z.array(z.strictObject({ id: z.string(), text: z.string() })).optional(),
      error: z.string().optional(),
    }),
    z.strictObject({ kind: z.literal('notice'), text: z.string() }),
    z.strictObject({
      kind: z.literal('turn_end'),
      turn: z.number().int().nonnegative(),
      reason: z.enum(['completed', 'aborted', 'blocked', 'error', 'budget', 'paused', 'interrupted']),
      text: z.string(),
    }),
  ]));
export type ConversationItem = z.infer<ReturnType<typeof conversationItemSchema>>;

export const conversationPhaseSchema = once(() => z.enum(['running', 'waiting', 'stopping', 'parked', 'idle', 'ended']));
export type ConversationPhase = z.infer<ReturnType<typeof conversationPhaseSchema>>;

/** What the view shows around the conversation: the agent's state and what the user may do. */
export const conversationStateSchema = once(() =>
  z.strictObject({
    phase: conversationPhaseSchema(),
    /** The state as words: "running", "stopping…", "stopped with 2 queued", "ended". */
    text: z.string(),
    /** When the current turn started (epoch ms), so the view can count the seconds itself. */
    turnStartedAt: z.number().optional(),
    /** Messages waiting in the agent's queue, and the first few of them. */
    pending: z.number().int().nonnegative(),
    queued: z.array(z.strictObject({ from: messageSource(), text: z.string() })).max(MAX_QUEUED_SHOWN),
    canSend: z.boolean(),
    canStop: z.boolean(),
    /** One line under the message box: what Send does now, or why there is no Send or Stop. */
    hint: z.string(),
    tokens: z.number().int().nonnegative(),
    /** The agent's latest plan (update_plan, an external agent's plan), at most 50 steps. */
    plan: z.array(z.strictObject({ step: z.string(), status: z.enum(['pending', 'in_progress', 'done']) })).max(50).optional(),
  }));
export type ConversationState = z.infer<ReturnType<typeof conversationStateSchema>>;

export const conversationAgentSchema = once(() => z.strictObject({
  id: z.string(),
  label: z.string(),
  kind: agentKind(),
}));
export type ConversationAgent = z.infer<ReturnType<typeof conversationAgentSchema>>;

/** Codes of the errors the host posts back; a failed action changes nothing. */
export const conversationErrorCodeSchema = once(() => z.enum(['INPUT_INVALID', 'AGENT_DISPOSED', 'SUBAGENT_UNAUTHORIZED', 'INTERNAL']));
export type ConversationErrorCode = z.infer<ReturnType<typeof conversationErrorCodeSchema>>;

export const hostToWebviewSchema = once(() =>
  z.discriminatedUnion('type', [
    /** Everything the view shows; sent in answer to `ready`. */
    z.strictObject({ type: z.literal('snapshot'), agent: conversationAgentSchema(), state: conversationStateSchema(), items: z.array(conversationItemSchema()) }),
    /** Items from `start` on changed or were added: the view replaces its items from there. */
    z.strictObject({ type: z.literal('items'), start: z.number().int().nonnegative(), items: z.array(conversationItemSchema()) }),
    z.strictObject({ type: z.literal('state'), state: conversationStateSchema() }),
    z.strictObject({ type: z.literal('error'), code: conversationErrorCodeSchema(), message: z.string() }),
  ]));
export type HostToWebviewMessage = z.infer<ReturnType<typeof hostToWebviewSchema>>;
export type ConversationError = Extract<HostToWebviewMessage, { type: 'error' }>;

export type ParsedWebviewMessage = { ok: true; message: WebviewToHostMessage } | { ok: false; error: ConversationError };

/** Parses one message from the view; an invalid one comes back as the error to post to it. */
export function parseWebviewMessage(raw: unknown): ParsedWebviewMessage {
  const parsed = webviewToHostSchema().safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data };
  const problems = parsed.error.issues
    .map((issue) => {
      const where = issue.path.length ? issue.path.map(String).join('.') : 'message';
      if (issue.code === 'unrecognized_keys') return `${where}: unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}`;
      return `${where}: ${issue.message}`;
    })
    .join('; ');
  return {
    ok: false,
    error: { type: 'error', code: 'INPUT_INVALID', message: `The view sent a message Arbor does not accept (${problems}); nothing was changed.` },
  };
}
