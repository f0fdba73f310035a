import type { ToolCall } from '../models/types';
import type { Agent } from './agent';

/**
 * What an agent is doing right now: nothing (no turn runs), waiting for its model, or waiting
 * for the tool calls of its latest reply (all of them until the last one returns).
 */
export type AgentActivity = { kind: 'idle' } | { kind: 'thinking' } | { kind: 'tools'; calls: readonly ToolCall[] };

const IDLE: AgentActivity = Object.freeze({ kind: 'idle' });
const THINKING: AgentActivity = Object.freeze({ kind: 'thinking' });

/**
 * Read from the conversation, so it costs the turn nothing: while tools run, the last message is
 * the reply that called them; their results follow it once they are all in. The turn loop
 * announces both moments (`activity` changes), so views repaint when it changes.
 */
export function activityOf(agent: Pick<Agent, 'status' | 'conversation'>): AgentActivity {
  if (agent.status !== 'running') return IDLE;
  const last = agent.conversation[agent.conversation.length - 1];
  return last?.role === 'assistant' && last.toolCalls?.length ? { kind: 'tools', calls: last.toolCalls } : THINKING;
}
