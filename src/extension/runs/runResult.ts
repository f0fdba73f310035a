// What a run that nobody watches produced, read when its root agent falls idle: the callers
// that wait for one (a chat agent's tool call, a schedule) report this and nothing else.
import type { Agent } from '../../core/agents';
import { blockedItems } from '../../core/interaction';

export interface RunResult {
  agentId: string;
  label: string;
  /** How its last turn ended: completed, aborted, error, budget, paused, blocked... */
  reason: string;
  cause?: string;
  /** The last turn's final text (empty when it ended without one). */
  text: string;
  /** The error or limit message, when the turn did not complete. */
  message?: string;
  /** The decisions the run names as blocking it ("BLOCKED: ..." lines). */
  blocked: string[];
}

/** Resolves when the agent has no turn running and none about to start, with its last turn's outcome. */
export async function whenRunSettles(agent: Agent): Promise<RunResult> {
  await agent.whenIdle();
  const end = agent.lastTurnEnd;
  const text = end?.finalText ?? '';
  return {
    agentId: agent.id,
    label: agent.label,
    reason: end?.reason ?? 'none',
    cause: end?.cause,
    text,
    message: end?.message,
    blocked: blockedItems(text),
  };
}

/** One line saying how the run ended, for a notification or a tool result. */
export function describeOutcome(result: RunResult): string {
  switch (result.reason) {
    case 'completed':
      return result.blocked.length > 0 ? `finished with ${result.blocked.length} BLOCKED item${result.blocked.length === 1 ? '' : 's'}` : 'finished';
    case 'aborted':
      return result.cause === 'user' ? 'was stopped' : `was stopped (${result.cause ?? 'aborted'})`;
    case 'budget':
      return `hit a run limit${result.message ? `: ${result.message}` : ''}`;
    case 'paused':
      return `was paused${result.message ? `: ${result.message}` : ''}`;
    case 'error':
      return `failed${result.message ? `: ${result.message}` : ''}`;
    default:
      return `ended (${result.reason})`;
  }
}
