import type { Agent } from '../agents/agent';
import type { DurableSessionStore, EndedAgentLogs } from '../agents/endedAgentLogs';
import type { AgentRegistry } from '../agents/registry';
import { readSessionSnapshot } from '../agents/sessionSnapshot';
import { ArborError, isArborError } from '../errors';
import type { OnProblem } from '../problems';
import type { SessionHeader } from '../sessions/types';
import type { LoadedSettledChild } from './continuation';

/**
 * The continuation manager's loader over durable sessions: a continuable session whose recorded
 * parent is exactly `caller`, taken over for writing. Durable lineage only selects which past
 * session the caller may reopen; it never grants authority over a live agent. A session read
 * back and then not resumed is closed again; a close that fails goes to `onProblem`.
 */
export function settledChildLoader(
  store: DurableSessionStore,
  agents: AgentRegistry,
  endedLogs: EndedAgentLogs,
  onProblem: OnProblem,
): (caller: Agent, targetId: string) => Promise<LoadedSettledChild | undefined> {
  return async (caller, targetId) => {
    const live = agents.get(targetId);
    if (live) {
      throw new ArborError('SUBAGENT_UNAUTHORIZED', `Agent ${targetId} ("${live.label}") was reopened by the user and runs on its own now; it no longer takes messages from you.`);
    }
    await endedLogs.whenClosed(targetId);
    let header: SessionHeader;
    try {
      header = (await store.loadSession(targetId)).header;
    } catch (err) {
      if (isArborError(err, 'SESSION_NOT_FOUND')) return undefined;
      throw err;
    }
    if (header.kind !== 'continuable' || header.parentSession !== caller.id) return undefined;
    const log = await store.reopenLog(targetId);
    return { ...readSessionSnapshot(log), discard: () => void log.close().catch((err: unknown) => onProblem(`Arbor: could not save session ${targetId}`, err)) };
  };
}
