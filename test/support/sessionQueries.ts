// Reading an agent's session log in tests: shared by the unit suites (plain Node) and the
// integration suites (inside the extension host).
import type { Agent } from '../../src/core/agents/agent';
import type { SessionEvent } from '../../src/core/sessions/types';

type EventOf<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

function eventsOf<T extends SessionEvent['type']>(agent: Agent, type: T): EventOf<T>[] {
  return agent.log.events.filter((e): e is EventOf<T> => e.type === type);
}

/** Each turn end as `reason` or `reason:cause` (e.g. `aborted:user`). */
export function reasons(agent: Agent): string[] {
  return eventsOf(agent, 'turn_end').map((e) => (e.cause ? `${e.reason}:${e.cause}` : e.reason));
}

export function userMessages(agent: Agent): string[] {
  return eventsOf(agent, 'user_message').map((e) => e.text);
}

export function toolResults(agent: Agent): Array<{ name: string; content: string; isError?: boolean }> {
  return eventsOf(agent, 'tool_result').map((e) => ({ name: e.name, content: e.content, isError: e.isError }));
}
