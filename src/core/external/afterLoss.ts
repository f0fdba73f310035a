import { isArborError } from '../errors';

/**
 * What an external agent remembers when its process comes back: after a crash (or an End
 * Process) the next message starts the agent again, and the conversation it had is continued
 * with `session/load` when the agent said it can load sessions; otherwise the agent starts with
 * a fresh memory, and its node and transcript say so (never silently). The same rule serves a
 * restore after a reload (restoreExternal.ts): a session that should load and does not is
 * replaced by a new one, with why.
 */

/** Why an agent lost its earlier memory: a few words for its node, and the reason in a clause. */
export interface FreshMemory {
  readonly short: string;
  readonly why: string;
}

/** The session a lost process had, as far as coming back is concerned. */
export interface LostSession {
  readonly sessionId: string;
  readonly info: { readonly loadSession: boolean };
}

/** How the next process continues after `lost`: loading its session, or with a fresh memory and why. */
export function afterLoss(lost: LostSession): { loadSessionId: string } | { fresh: FreshMemory } {
  if (lost.info.loadSession) return { loadSessionId: lost.sessionId };
  return { fresh: { short: 'restarted with a fresh memory', why: 'its process ended and this agent cannot load its session (it does not offer session/load)' } };
}

/** Why a session that should have loaded did not, when a new one may stand in for it; undefined for any other failure. */
export function whyNotLoaded(err: unknown): FreshMemory | undefined {
  if (isArborError(err, 'EXTERNAL_NOT_RESUMABLE')) return { short: 'cannot load its earlier session', why: 'this agent cannot load its earlier session (it no longer offers session/load)' };
  if (isArborError(err, 'EXTERNAL_AGENT_PROTOCOL')) return { short: 'its earlier session did not load', why: `its earlier session did not load (${err.message})` };
  return undefined;
}
