import type { Agent } from '../agents/agent';
import type { Hold } from '../agents/holds';

/**
 * A spent budget's pause of a group of agents (a run at its cap, runCaps.ts; a branch at its
 * slice, sliceGuard.ts): every agent is held before any is stopped, so nothing a stop sets off
 * can start one; then every running continuable has its turn cancelled with cause `budget`
 * (queue kept) and is held again as interrupted. `streaming`, whose reply spent the budget,
 * finishes that reply, but its queue waits for the raise too. One-shots run on to their end.
 */
export function holdAll(agents: readonly Agent[], holdOf: (agent: Agent) => Hold, streaming?: Agent): void {
  for (const agent of agents) agent.putHold(holdOf(agent));
  for (const agent of agents) {
    if (agent.kind === 'one-shot') continue;
    const stopped = agent === streaming ? agent.parkQueue() : agent.cancel('budget', { keepInbox: true });
    if (stopped) agent.putHold({ ...holdOf(agent), interrupted: true });
  }
}
