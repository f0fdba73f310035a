import type { Agent } from '../agents/agent';
import type { Runtime } from '../runtime';
import type { SessionLog } from '../sessions/types';
import { ExternalAgentEngine, type ExternalStart } from './externalEngine';
import { engineFor, lastExternalSession, type ExternalResumeOptions } from './startExternal';

/**
 * An external (Agent Client Protocol) agent that was live when the window went away, put back by
 * the restore: it gets its process back, and its own memory when the agent can give it.
 *
 * Use (the restore, for each agent whose session header names an external agent):
 *
 *   const engine = externalEngineForRestore(runtime, log, { config, secretEnv, folder });
 *   const agent = ...rebuild the agent from `log` with `engine`...;
 *   void restartExternalProcess(agent).catch((err) => ...warn on the node...);
 *
 * Invariants:
 * - The agent's own session is continued with `session/load` when the session log says the agent
 *   offered it (`external_session` … `loadSession: true`) and the process started now still does.
 *   What it replays is not written again: the session already holds that conversation, and a
 *   reload must not double it; one line says the session was reopened.
 * - Otherwise the agent starts with a new session, and its node (`engine.notice`) and its
 *   transcript say plainly that it starts with a fresh memory and why: this agent cannot load its
 *   earlier session, or that session did not load (the agent's own error). Known from the log,
 *   the node says it from the first paint, before the process is up.
 * - An agent whose process had never opened a session lost nothing: no notice.
 * - Never refuses for a session it cannot load (Resume from History does: externalEngineForResume);
 *   only a missing workspace folder is an error here (WORKSPACE_NONE).
 */

export interface ExternalRestoreOptions extends ExternalResumeOptions {
  /** The folder the agent works in: its run's folder (a worktree agent's), else the workspace folder. */
  folder?: string;
}

export function externalEngineForRestore(runtime: Runtime, log: Pick<SessionLog, 'header' | 'events'>, options: ExternalRestoreOptions): ExternalAgentEngine {
  const opened = lastExternalSession(log.events);
  return engineFor(runtime, { ...options, loadSessionId: opened?.loadSession ? opened.sessionId : undefined }, options.folder ?? runtime.workspaceFolder, {
    whenNotLoadable: 'fresh',
    replay: 'skip',
    freshMemory: opened && !opened.loadSession ? 'this agent cannot load its earlier session (it does not offer session/load)' : undefined,
  });
}

/**
 * Starts a restored external agent's process now (its next turn would otherwise): resolves with
 * its session, loaded or new, and what its node says; undefined for an agent that is not
 * external. Rejects as the start of a turn would (see ExternalAgentEngine.start).
 */
export function restartExternalProcess(agent: Agent): Promise<ExternalStart | undefined> {
  return agent.engine instanceof ExternalAgentEngine ? agent.engine.start(agent) : Promise.resolve(undefined);
}
