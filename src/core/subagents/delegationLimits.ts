import type { Agent } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';
import { limitExceeded } from '../errors';

/**
 * The run's limits on delegation, checked before a child is made: how deep delegation may go
 * and how many live subagents one agent may hold. A breach throws LIMIT_EXCEEDED, which ends
 * the caller's turn with reason `budget`.
 */
export function checkDelegationLimits(parent: Agent, agents: Pick<AgentRegistry, 'liveChildCount'>): void {
  const limits = parent.run.budget.limits;
  if (parent.delegationDepth + 1 > limits.maxDelegationDepth) {
    throw limitExceeded(`delegation may go at most ${limits.maxDelegationDepth} levels deep`);
  }
  if (agents.liveChildCount(parent) >= limits.maxLiveChildren) {
    throw limitExceeded(`an agent may have at most ${limits.maxLiveChildren} live subagents at once`);
  }
  if (limits.maxLiveSubagents > 0 && parent.run.budget.liveSubagents >= limits.maxLiveSubagents) {
    throw limitExceeded(`the run may have at most ${limits.maxLiveSubagents} live subagents at once`);
  }
}
