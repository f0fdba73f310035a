import type { EngineNotice } from '../agents/turnEngine';
import { isArborError } from '../errors';

/**
 * What an external agent remembers when it comes back: after a crash (or an End Process) the
 * next message starts the agent again, and after a served agent's connection dropped the next
 * message connects again. Either way the conversation it had is continued with `session/load`
 * when the agent said it can load sessions; otherwise the agent starts with a fresh memory, and
 * its node and transcript say so (never silently). The same rule serves a restore after a reload
 * (restoreExternal.ts): a session that should load and does not is replaced by a new one, with
 * why. A served agent whose connection dropped says so on its node until it is connected again.
 */

/** Why an agent lost its earlier memory: a few words for its node, and the reason in a clause. */
export interface FreshMemory {
  readonly short: string;
  readonly why: string;
}

/** The session a lost process (or connection) had, as far as coming back is concerned. */
export interface LostSession {
  readonly sessionId: string;
  readonly info: { readonly loadSession: boolean };
  /** A served agent: what was lost is its connection, not its process. */
  readonly remote?: boolean;
}

/** How the next process (or connection) continues after `lost`: loading its session, or with a fresh memory and why. */
export function afterLoss(lost: LostSession): { loadSessionId: string } | { fresh: FreshMemory } {
  if (lost.info.loadSession) return { loadSessionId: lost.sessionId };
  if (lost.remote) return { fresh: { short: 'reconnects with a fresh memory', why: 'its connection closed and this agent cannot load its session (it does not offer session/load)' } };
  return { fresh: { short: 'restarted with a fresh memory', why: 'its process ended and this agent cannot load its session (it does not offer session/load)' } };
}

/** Why a session that should have loaded did not, when a new one may stand in for it; undefined for any other failure. */
export function whyNotLoaded(err: unknown): FreshMemory | undefined {
  if (isArborError(err, 'EXTERNAL_NOT_RESUMABLE')) return { short: 'cannot load its earlier session', why: 'this agent cannot load its earlier session (it no longer offers session/load)' };
  if (isArborError(err, 'EXTERNAL_AGENT_PROTOCOL')) return { short: 'its earlier session did not load', why: `its earlier session did not load (${err.message})` };
  return undefined;
}

/**
 * What an external agent's node says about its memory and its connection (TurnEngine.notice),
 * and the fresh-memory line its transcript still has to get (it is written once the agent's
 * process is up, when the agent may not have existed as the loss became known).
 */
export class MemoryNotice {
  notice: EngineNotice | undefined;
  private note: string | undefined;
  /** While a served agent is disconnected: what the node said before, said again once it is back. */
  private beforeDisconnect: { notice: EngineNotice | undefined } | undefined;

  constructor(private readonly name: string) {}

  /** The agent starts with a fresh memory: its node says so now, its transcript when its process is up. */
  fresh(lost: FreshMemory): void {
    const detail = `${this.name} starts with a fresh memory: ${lost.why}, so it does not remember its earlier conversation (its transcript here still shows it).`;
    this.beforeDisconnect = undefined;
    this.notice = { text: `fresh memory: ${lost.short}`, detail };
    this.note = detail;
  }

  /** A served agent's connection dropped; its next message connects again and loads its session. */
  disconnected(why: string): void {
    this.beforeDisconnect ??= { notice: this.notice };
    this.notice = { text: 'disconnected: the next message reconnects', detail: `${why} It continues its own session then (session/load).` };
  }

  /** Connected again: the node says what it said before the connection dropped. True when that changed the node. */
  reconnected(): boolean {
    if (!this.beforeDisconnect) return false;
    this.notice = this.beforeDisconnect.notice;
    this.beforeDisconnect = undefined;
    return true;
  }

  /** The fresh-memory line for the transcript, once. */
  takeNote(): string | undefined {
    const note = this.note;
    this.note = undefined;
    return note;
  }
}
