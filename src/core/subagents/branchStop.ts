import type { Agent } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';

/**
 * Stop a whole branch (Stop All Below) or every live agent (Stop All), on the user's authority.
 *
 * Invariants:
 * - The branch is the top agent and every live agent below it (the agents it created, theirs,
 *   and so on); nothing outside it is touched. Each is stopped exactly like the user's Stop:
 *   its running turn is interrupted with its queue parked, and it keeps its conversation.
 * - Each is also *held* (`Agent.hold`): until a waking send (the user's message, or its parent's
 *   message once the parent runs again) nothing starts its next turn. A child's report that
 *   arrives later, or a child that settles, only queues: no agent of the branch restarts by itself.
 * - One-shot agents are stopped through the turn that holds them (their holder is in the branch
 *   and comes first); a one-shot agent at the top of the branch, whose holder is outside it, is
 *   interrupted itself, and its holder receives its partial result as after a Stop.
 * - Race safety: the walk repeats until it finds no agent it has not stopped, so an agent that a
 *   listener creates while the branch stops is stopped too; a child that an in-flight tool of a
 *   held parent creates later starts held (see ContinuationManager.start), and a one-shot child
 *   created under an aborted turn never runs (runOneShot).
 */

/** What a branch Stop did. `accepted` means signals were issued, not that every turn has ended. */
export interface BranchStopResult {
  accepted: true;
  /** Every live agent of the branch, top first (pre-order): each is stopped and held. */
  agentIds: string[];
  /** The agents whose running turn was signalled by this Stop. */
  interrupted: string[];
}

/**
 * Stops and holds every live agent under `tops` (each included), pre-order; `extra` names more
 * agents to include (Stop All passes every live one). `isEnding` tells a continuable child whose
 * End or settlement has begun: it is going away, so there is nothing to stop.
 */
export function stopBranches(
  tops: readonly Agent[],
  agents: Pick<AgentRegistry, 'isLive' | 'childrenOf'>,
  isEnding: (agent: Agent) => boolean,
  extra?: () => readonly Agent[],
): BranchStopResult {
  const seen = new Set<Agent>();
  const result: BranchStopResult = { accepted: true, agentIds: [], interrupted: [] };
  const topSet = new Set(tops);
  const act = (agent: Agent): void => {
    seen.add(agent);
    result.agentIds.push(agent.id);
    // Held first: whatever the interrupt provokes at once cannot start a turn of this agent.
    agent.hold();
    if (stopOne(agent, topSet.has(agent), isEnding)) result.interrupted.push(agent.id);
  };
  for (;;) {
    const before = seen.size;
    const stack = [...tops].reverse();
    for (const agent of extra?.() ?? []) if (!seen.has(agent)) stack.unshift(agent);
    while (stack.length > 0) {
      const agent = stack.pop()!;
      if (!agents.isLive(agent)) continue;
      if (!seen.has(agent)) act(agent);
      const children = agents.childrenOf(agent);
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
    if (seen.size === before) return result;
  }
}

/** One agent of a branch being stopped: true when its running turn was signalled now. */
function stopOne(agent: Agent, isTop: boolean, isEnding: (agent: Agent) => boolean): boolean {
  if (agent.status !== 'running' || agent.stopping) return false;
  if (agent.kind === 'one-shot') {
    // Its holder, earlier in the branch, has already cancelled it; this covers a one-shot whose
    // holder is outside the branch (the top) and one its holder's abort has not reached.
    return isTop ? agent.interrupt('user') : agent.cancel('parent');
  }
  if (agent.kind === 'continuable' && isEnding(agent)) return false;
  return agent.interrupt('user');
}
