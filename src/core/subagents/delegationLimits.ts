import type { Agent } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';
import { agentLimit } from '../definitions/agentLimit';
import { limitExceeded } from '../errors';

/**
 * The run's limits on delegation, checked before a child is made: how deep delegation may go
 * and how many live subagents one agent may hold. A breach throws LIMIT_EXCEEDED, which ends
 * the caller's turn with reason `budget`.
 */
export function checkDelegationLimits(parent: Agent, agents: Pick<AgentRegistry, 'liveChildCount'>): void {
  const limits = parent.run.budget.limits;
  const depth = agentLimit(parent.bounds, 'maxDelegationDepth', limits.maxDelegationDepth);
  if (parent.delegationDepth + 1 > depth.value) {
    throw limitExceeded(`${depth.by ? `the agent definition "${depth.by}" lets delegation` : 'delegation may'} go at most ${depth.value} levels deep`);
  }
  const children = agentLimit(parent.bounds, 'maxLiveChildren', limits.maxLiveChildren);
  if (agents.liveChildCount(parent) >= children.value) {
    throw limitExceeded(`${children.by ? `the agent definition "${children.by}" lets an agent have` : 'an agent may have'} at most ${children.value} live subagents at once`);
  }
  if (limits.maxLiveSubagents > 0 && parent.run.budget.liveSubagents >= limits.maxLiveSubagents) {
    throw limitExceeded(`the run may have at most ${limits.maxLiveSubagents} live subagents at once`);
  }
}
