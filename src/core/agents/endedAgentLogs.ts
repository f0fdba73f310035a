import type { SessionEvent, SessionHeader, SessionLog, SessionLogFactory } from '../sessions/types';
import { unwrapLog } from '../sessions/observedLog';
import type { Agent } from './agent';
import type { OnProblem } from '../problems';

/** A session log that can be released once its agent has ended (the durable JSONL log). */
export interface ClosableSessionLog extends SessionLog {
  /** Writes what is left, then frees the log; appending afterwards throws. */
  close(): Promise<void>;
  /** `close` with a callback (no promise): `done(error)` when it could not write what was left. */
  closeThen?(done: (error?: unknown) => void): void;
}

/**
 * Durable sessions (the JSONL store): new sessions are created in it, past ones are read back
 * and taken over for writing when they are resumed, and the runtime closes the log of every
 * agent that ends, so memory does not grow with the number of agents a window has run.
 */
export interface DurableSessionStore extends SessionLogFactory {
  create(header: SessionHeader): ClosableSessionLog;
  /** Takes an existing session over for writing, repairing a crashed turn; SESSION_IN_USE if open. */
  reopenLog(id: string): Promise<ClosableSessionLog>;
  /** The session's file, and its lock, held for a reopen to come without reading it (the JSONL store; restore/deferredLog.ts). */
  fileOf?(id: string): string;
  lockOf?(id: string): { acquire(): Promise<void>; release(): Promise<void>; releaseSync(): void };
  /** Reads a session without taking it over (nothing is written). */
  loadSession(id: string): Promise<{ header: SessionHeader; events: SessionEvent[] }>;
}

export function isDurableStore(sessions: SessionLogFactory | DurableSessionStore | undefined): sessions is DurableSessionStore {
  return typeof (sessions as Partial<DurableSessionStore> | undefined)?.reopenLog === 'function';
}

function isClosable(log: SessionLog): log is ClosableSessionLog {
  return typeof (log as Partial<ClosableSessionLog>).close === 'function';
}

/** A log being closed: who waits for the close to be over (made when someone asks). */
interface Closing {
  waiters?: (() => void)[];
}

/**
 * Frees the durable log of every agent that has ended, so memory does not grow with the number
 * of agents a window has run. An agent whose aborted turn has yet to record its end is closed
 * after that end; a resume of the same session waits for the close (`whenClosed`).
 */
export class EndedAgentLogs {
  /** Logs being closed, by session id. */
  private readonly closing = new Map<string, Closing>();
  /** Ended agents whose aborted turn has yet to record its end before their log can close. */
  private readonly afterTurn = new Set<Agent>();

  /** `onProblem` hears a log that could not be saved as it closed (nobody awaits the close). */
  constructor(private readonly onProblem: OnProblem) {}

  /** `agent` has left the registry. */
  agentEnded(agent: Agent): void {
    if (agent.status === 'running') this.afterTurn.add(agent);
    else this.close(agent);
  }

  /** A turn ended: an ended agent waiting for it can now be closed. */
  turnEnded(agent: Agent): void {
    if (!this.afterTurn.delete(agent)) return;
    this.close(agent);
  }

  /** Resolves once the log of session `id` is closed, if it is being closed. */
  whenClosed(id: string): Promise<void> | undefined {
    const closing = this.closing.get(id);
    return closing && new Promise((resolve) => (closing.waiters ??= []).push(resolve));
  }

  /** Every close under way or still to come (shutdown waits for them). */
  pending(): Promise<void>[] {
    const writes: Promise<void>[] = [];
    for (const agent of this.afterTurn) writes.push(agent.whenIdle().then(() => this.whenClosed(agent.id)));
    for (const id of this.closing.keys()) writes.push(this.whenClosed(id)!);
    return writes;
  }

  private close(agent: Agent): void {
    const log = unwrapLog(agent.log);
    if (!isClosable(log) || this.closing.has(agent.id)) return;
    // Only the id from here on: the log is written in the background, and must not keep the
    // agent (its conversation, its turn's objects) alive until then.
    const id = agent.id;
    agent.detachFromLog();
    // A callback where the log takes one: a fan-out closes a thousand logs at once, and a promise
    // and two reactions for each were most of what keeping them until they were written cost.
    const closing: Closing = {};
    this.closing.set(id, closing);
    const done = (err?: unknown): void => {
      if (err !== undefined) this.onProblem(`Arbor: could not save session ${id}`, err);
      if (this.closing.get(id) === closing) this.closing.delete(id);
      for (const waiter of closing.waiters ?? []) waiter();
    };
    if (log.closeThen) log.closeThen(done);
    else log.close().then(() => done(), (err: unknown) => done(err ?? new Error('the log could not be closed')));
  }
}
