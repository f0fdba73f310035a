import type { Agent } from '../agents/agent';
import type { RunBudget } from '../limits';
import { formatCount } from './budgetStatus';
import { formatCost } from './prices';

const LAST_RESULT_CHARS = 300;

/**
 * The final result of an unattended run that reached its cap: BLOCKED, what was done, and what
 * is left. It is written by Arbor, not the model (the budget for a model call is spent), from
 * what the run's agents recorded; it starts with "BLOCKED:" like a model's own blocked result.
 */
export function blockedReport(run: RunBudget, reason: string, agents: readonly Agent[]): string {
  const cost = run.cost > 0 ? `, ${formatCost(run.cost)}` : '';
  return [
    `BLOCKED: the run reached its limit (${reason}), so it was paused before it finished.`,
    '',
    `Done: ${run.turnsUsed} turn(s), ${run.modelCallsUsed} model call(s), ${formatCount(run.tokensUsed)} tokens${cost}, by ${agents.length} agent(s):`,
    ...blockedLines(agents, '- Every agent keeps its conversation: raise the limit (arbor.limits) and resume the session to continue.'),
  ].join('\n');
}

/** Each agent's share of a BLOCKED report and what is left; `last` is the report's closing line. */
export function blockedLines(agents: readonly Agent[], last: string): string[] {
  const lines: string[] = [];
  for (const agent of agents) {
    const text = agent.lastTurnEnd?.finalText.trim();
    const shown = text ? ` Last result: ${JSON.stringify(text.length > LAST_RESULT_CHARS ? `${text.slice(0, LAST_RESULT_CHARS - 1)}…` : text)}` : '';
    lines.push(`- ${agent.label} (${agent.kind}): ${agent.turnCount} turn(s).${shown}`);
  }
  const running = agents.filter((a) => a.status === 'running').map((a) => a.label);
  const queued = agents.reduce((n, a) => n + a.pendingCount, 0);
  lines.push('', 'Left:');
  lines.push(running.length > 0 ? `- Stopped before they finished: ${running.join(', ')}.` : '- No turn was running.');
  lines.push(`- Queued messages not yet worked on: ${queued}.`);
  lines.push(last);
  return lines;
}
