// What a run that nobody watches produced, read when its root agent falls idle: the callers
// that wait for one (a chat agent's tool call, a schedule) report this and nothing else.
import { describeTurnEnd, type Agent, type TurnOutcome } from '../../core/agents';
import type { CancelCause } from '../../core';
import type { TurnEndReason } from '../../core/sessions';
import { blockedItems } from '../../core/interaction';

export interface RunResult {
  agentId: string;
  label: string;
  /** How its last turn ended (`none`: it ran no turn). */
  reason: TurnEndReason | 'none';
  cause?: CancelCause;
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
  if (result.reason === 'none') return 'ended (none)';
  const how = describeTurnEnd({ reason: result.reason, cause: result.cause, message: result.message });
  return SAID[how.outcome](result, how.detail ? `: ${how.detail}` : '');
}

/** Each outcome as the end of "Arbor agent "X" ..." or "Scheduled run "X" ...". */
const SAID: Readonly<Record<TurnOutcome, (result: RunResult, detail: string) => string>> = Object.freeze({
  completed: (r) => (r.blocked.length > 0 ? `finished with ${r.blocked.length} BLOCKED item${r.blocked.length === 1 ? '' : 's'}` : 'finished'),
  stopped: (r) => (r.cause === 'user' ? 'was stopped' : `was stopped (${r.cause ?? 'aborted'})`),
  cancelled: (r) => `was stopped (${r.cause ?? 'aborted'})`,
  ended: (r) => `was stopped (${r.cause ?? 'aborted'})`,
  limit: (_r, detail) => `hit a run limit${detail}`,
  paused: (_r, detail) => `was paused${detail}`,
  failed: (_r, detail) => `failed${detail}`,
  blocked: () => 'ended (blocked)',
  interrupted: () => 'ended (interrupted)',
});
