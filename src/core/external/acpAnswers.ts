import * as z from 'zod';
import { ArborError } from '../errors';
import { once } from '../once';

/**
 * What an external agent answers to Arbor's requests (`initialize`, `session/new`,
 * `session/prompt`), parsed at the boundary. The SDK parses what the agent *sends* (its
 * requests and notifications, salvaging unknown enum values) but hands responses over as they
 * came, so an answer is trusted here only after these schemas.
 *
 * Invariants:
 * - a value outside what Arbor knows (a stop reason from a newer protocol version, a missing
 *   session id) is EXTERNAL_AGENT_PROTOCOL naming the value, never a crash further in;
 * - optional descriptive fields (the agent's name, its sign-in methods) that are malformed are
 *   dropped, not refused: they only describe the agent.
 */

export const STOP_REASONS = ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** A way to sign in the agent offers (what a person is told to do). */
export interface AuthMethodInfo {
  id: string;
  name: string;
  description?: string | null;
}

const optionalText = () => z.string().optional().catch(undefined);

const authMethodSchema = once(() => z.object({ id: z.string(), name: z.string(), description: z.string().nullish().catch(undefined) }));

const initializeSchema = once(() =>
  z.object({
    protocolVersion: z.number().int().nonnegative(),
    agentCapabilities: z.object({ loadSession: z.boolean().optional().catch(undefined) }).nullish().catch(undefined),
    agentInfo: z.object({ name: optionalText(), title: z.string().nullish().catch(undefined), version: optionalText() }).nullish().catch(undefined),
    authMethods: z
      .array(z.unknown())
      .nullish()
      .catch(undefined)
      .transform((methods) => (methods ?? []).flatMap((m) => authMethodSchema().safeParse(m).data ?? [])),
  }),
);

const newSessionSchema = once(() => z.object({ sessionId: z.string().min(1) }));

const tokenCount = () => z.number().int().nonnegative();
/** The turn's tokens (the protocol's `usage`, still marked unstable): malformed is dropped, as descriptive. */
const promptSchema = once(() =>
  z.object({
    stopReason: z.string(),
    usage: z.object({ inputTokens: tokenCount(), outputTokens: tokenCount() }).nullish().catch(undefined),
  }),
);

/** What a `usage_update` says that Arbor counts: the session's cost so far, when the agent counts it. */
const usageUpdateSchema = once(() =>
  z.object({
    cost: z.object({ amount: z.number().nonnegative(), currency: z.string() }).nullish().catch(undefined),
  }),
);

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
}

/** The tokens the agent says its turn used, when its answer to `session/prompt` says so. */
export function parsePromptUsage(answer: unknown): TurnUsage | undefined {
  const usage = promptSchema().safeParse(answer).data?.usage;
  return usage ? { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens } : undefined;
}

/** A `usage_update`, or undefined when it carries nothing Arbor can read. */
export function parseUsageUpdate(update: unknown): z.infer<ReturnType<typeof usageUpdateSchema>> | undefined {
  return usageUpdateSchema().safeParse(update).data;
}

export interface InitializeAnswer {
  protocolVersion: number;
  name?: string;
  version?: string;
  loadSession: boolean;
  authMethods: AuthMethodInfo[];
}

export function parseInitialize(agent: string, answer: unknown): InitializeAnswer {
  const init = parsed(agent, 'initialize', initializeSchema(), answer);
  return {
    protocolVersion: init.protocolVersion,
    name: init.agentInfo?.title ?? init.agentInfo?.name,
    version: init.agentInfo?.version,
    loadSession: init.agentCapabilities?.loadSession === true,
    authMethods: init.authMethods,
  };
}

/** The id of the session the agent opened. */
export function parseNewSession(agent: string, answer: unknown): string {
  return parsed(agent, 'session/new', newSessionSchema(), answer).sessionId;
}

/** Why the agent ended its turn; a reason Arbor does not know is a protocol error naming it. */
export function parseStopReason(agent: string, answer: unknown): StopReason {
  const { stopReason } = parsed(agent, 'session/prompt', promptSchema(), answer);
  if ((STOP_REASONS as readonly string[]).includes(stopReason)) return stopReason as StopReason;
  throw new ArborError(
    'EXTERNAL_AGENT_PROTOCOL',
    `The external agent ${agent} ended its turn with the stop reason ${JSON.stringify(stopReason)}, which Arbor does not know (a newer protocol version?). The turn ends here; the agent takes your next message as usual.`,
    { name: agent, stopReason },
  );
}

function parsed<T>(agent: string, method: string, schema: z.ZodType<T>, answer: unknown): T {
  const result = schema.safeParse(answer);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'the answer';
  throw new ArborError(
    'EXTERNAL_AGENT_PROTOCOL',
    `The external agent ${agent} answered ${method} with something Arbor cannot use (${where}: ${issue?.message ?? 'invalid'}).`,
    { name: agent, method },
  );
}
