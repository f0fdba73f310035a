// Command arguments are a trust boundary: a tree hands its own nodes, but a keybinding, a
// `command:` link or another extension can pass anything. Each command parses its argument
// here first; a bad one is an INPUT_INVALID ArborError that changes nothing, never a TypeError
// from deep inside a handler.
import * as z from 'zod';
import { Agent } from '../core/agents';
import { ArborError, once, runLimitsSchema } from '../core';
import type { RunLimitsInput, Runtime } from '../core';

const idSchema = once(() => z.string().min(1).max(1000));

/** An agent argument: none (the command asks), an Agents-view node, or a live agent's id. */
const agentArgumentSchema = once(() => z.union([z.undefined(), z.instanceof(Agent), idSchema()]));

/** An ended subagent's row of the Agents view: the commands read its session id only. */
const endedRowSchema = once(() => z.object({ type: z.literal('ended-subagent'), id: idSchema() }));

/**
 * A History argument: none, a session id, a History-view node or an ended subagent's row of the
 * Agents view. A node is checked for the one path the commands read (`entry.header.id`, or `id`
 * on an ended row); a diagnostic or notice row names no session.
 */
const sessionArgumentSchema = once(() => z.union([
  z.undefined(),
  idSchema(),
  endedRowSchema(),
  z.object({ type: z.literal('session'), entry: z.object({ header: z.object({ id: idSchema() }) }) }),
  z.object({ type: z.enum(['diagnostic', 'notice']) }),
]));

function invalid(command: string, expected: string, error: z.ZodError): ArborError {
  return new ArborError('INPUT_INVALID', `${command} takes ${expected}; the argument it was given is not one.`, { issues: z.treeifyError(error) });
}

/**
 * The agent a command was invoked on: undefined when none was given (the command then asks),
 * the node itself when it is an Agent (live or just ended: the command decides), or the live
 * agent with the given id. Anything else, or an id no live agent has, is INPUT_INVALID.
 */
export function parseAgentArgument(runtime: Runtime, command: string, arg: unknown): Agent | undefined {
  const parsed = agentArgumentSchema().safeParse(arg);
  if (!parsed.success) throw invalid(command, 'an agent from the Agents view or a live agent id (a string)', parsed.error);
  const value = parsed.data;
  if (typeof value !== 'string') return value;
  const agent = runtime.agents.get(value);
  if (!agent) throw new ArborError('INPUT_INVALID', `${command}: no live agent has the id "${value}".`, { id: value });
  return agent;
}

/** What a History command was invoked on. */
export type SessionArgument = { kind: 'none' } | { kind: 'session'; id: string } | { kind: 'not-a-session' };

export function parseSessionArgument(command: string, arg: unknown): SessionArgument {
  const parsed = sessionArgumentSchema().safeParse(arg);
  if (!parsed.success) throw invalid(command, 'a session id (a string) or a node of the History view', parsed.error);
  const value = parsed.data;
  if (value === undefined) return { kind: 'none' };
  if (typeof value === 'string') return { kind: 'session', id: value };
  if (value.type === 'ended-subagent') return { kind: 'session', id: value.id };
  return value.type === 'session' ? { kind: 'session', id: value.entry.header.id } : { kind: 'not-a-session' };
}

/** What Clear Ended Subagents was invoked on: nothing (the view's title), a live agent, or an ended row. */
export type ClearEndedArgument = { kind: 'all' } | { kind: 'agent'; agent: Agent } | { kind: 'ended'; id: string };

const clearEndedArgumentSchema = once(() => z.union([z.undefined(), z.instanceof(Agent), endedRowSchema()]));

export function parseClearEndedArgument(runtime: Runtime, arg: unknown): ClearEndedArgument {
  const parsed = clearEndedArgumentSchema().safeParse(arg);
  if (!parsed.success) throw invalid('Arbor: Clear Ended Subagents', 'nothing, an agent of the Agents view or an ended subagent\'s row', parsed.error);
  const value = parsed.data;
  if (value === undefined) return { kind: 'all' };
  // An agent that has ended since its row was drawn: its own row may be an ended one now.
  if (value instanceof Agent) return runtime.agents.isLive(value) ? { kind: 'agent', agent: value } : { kind: 'ended', id: value.id };
  return { kind: 'ended', id: value.id };
}

/** What a caller may set for one run (Run Agent's second argument, the API's `startAgent` options): only its limits, each checked like the setting. */
export const runStartOptionsSchema = once(() => z.object({ limits: runLimitsSchema.partial().strict().optional() }).strict());

/**
 * The options of one run started by a command or the API: none, or `{ limits }` with the keys of
 * the `arbor.limits` setting. Anything else is INPUT_INVALID, and nothing is started.
 */
export function parseRunStartOptions(what: string, options: unknown): RunLimitsInput | undefined {
  const parsed = runStartOptionsSchema().safeParse(options ?? {});
  if (!parsed.success) throw new ArborError('INPUT_INVALID', `${what} options are invalid: ${z.prettifyError(parsed.error)}`, { issues: z.treeifyError(parsed.error) });
  const limits = parsed.data.limits;
  if (!limits) return undefined;
  // Only the limits the caller set: the schema fills in its defaults, which would replace the
  // `arbor.limits` setting's values for every limit the caller left out.
  const given = (options as { limits: object }).limits;
  return Object.fromEntries(Object.entries(limits).filter(([key]) => Object.hasOwn(given, key)));
}
