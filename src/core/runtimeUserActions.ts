import type { Agent } from './agents/agent';
import type { AgentRegistry } from './agents/registry';
import { ArborError } from './errors';
import { stopBranches, type BranchStopResult } from './subagents/branchStop';
import type { ContinuationManager, InterruptResult } from './subagents/continuation';
import { interruptLive } from './subagents/interrupt';

/** What the user's actions on live agents reach: the registry and the continuable children's manager. */
export interface UserActionsHost {
  readonly agents: AgentRegistry;
  readonly manager: ContinuationManager;
}

/**
 * What the user may do to a live agent from the editor: Stop it, Stop All Below it, Stop All,
 * End it, send it a message. The user at the editor is the authority and the exact live agent
 * the editor holds is the proof; nothing is read from a durable header.
 *
 * Invariants: a one-shot subagent is its holder's alone (SUBAGENT_UNAUTHORIZED: stop or end
 * the agent waiting for it, and it takes no messages but its task); an agent not live is an
 * accepted no-op for the stops and End, and refused (AGENT_DISPOSED) for a message, which
 * would otherwise be lost.
 */
export function refuseOneShot(agent: Agent, why: string): void {
  if (agent.kind === 'one-shot') throw new ArborError('SUBAGENT_UNAUTHORIZED', `"${agent.label}" is a one-shot subagent; ${why}.`);
}

const STOP_ITS_HOLDER = 'stop the agent that is waiting for it';

/** The user's Stop (see Runtime.stop). */
export function userStop(host: UserActionsHost, agent: Agent): InterruptResult {
  refuseOneShot(agent, STOP_ITS_HOLDER);
  return interruptLive(agent, host.agents, host.manager.get(agent.id));
}

/** The user's Stop All Below `target` (see Runtime.stopBranch; rules and races: branchStop.ts). */
export function userStopBranch(host: UserActionsHost, target: Agent | string): BranchStopResult {
  const agent = typeof target === 'string' ? host.agents.get(target) : target;
  if (!agent || !host.agents.isLive(agent)) return { accepted: true, agentIds: [], interrupted: [] };
  return stopBranches([agent], host.agents, (a) => host.manager.isEnding(a));
}

/** The user's Stop All: Stop All Below on each top-level node. */
export function userStopAll(host: UserActionsHost): BranchStopResult {
  return stopBranches(host.agents.topLevel(), host.agents, (a) => host.manager.isEnding(a), () => host.agents.all());
}

/** The user's End (see Runtime.end): a continuable child's End is its manager's. */
export function userEnd(host: UserActionsHost, agent: Agent): Promise<void> {
  if (!host.agents.isLive(agent)) return Promise.resolve();
  refuseOneShot(agent, STOP_ITS_HOLDER);
  if (agent.kind === 'continuable') return host.manager.end(agent);
  agent.dispose({ dropQueue: true });
  host.agents.remove(agent);
  return Promise.resolve();
}

/** The user's message to a live root or continuable agent, waking it. */
export function userSend(agents: AgentRegistry, agent: Agent, text: string): void {
  if (!agents.isLive(agent)) throw new ArborError('AGENT_DISPOSED', `"${agent.label}" is no longer live.`);
  refuseOneShot(agent, 'it only works on the task it was given');
  agent.send(text, { from: 'user' });
}
