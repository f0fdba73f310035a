import * as fs from 'node:fs';
import type { DeferredPast, PastTarget } from '../agents/deferredPast';
import type { ClosableSessionLog, DurableSessionStore } from '../agents/endedAgentLogs';
import { readSessionSnapshot, type SessionSnapshot } from '../agents/sessionSnapshot';
import { ArborError, asArborError, errnoOf } from '../errors';
import type { PendingMessage } from '../sessions/pendingQueue';
import type { SessionEvent, SessionHeader } from '../sessions/types';
import type { LiveAgentRecord, PastRecord } from './liveRecord';

/** What the deferred log needs of the store: the reopen its reservation allows, and letting the session go unread. */
export interface DeferredOpen {
  reopen(): Promise<ClosableSessionLog>;
  release(): Promise<void>;
  releaseSync(): void;
}

type Listener = (problem: ArborError | undefined) => void;

/**
 * The log of a restored agent whose tree row came from its live-state record: its file is not
 * read until the agent needs it (its next turn, its conversation opened, an event to write), and
 * then it is reopened as Resume reopens it (the session's lock is held from the restore on).
 *
 * Invariants:
 * - Events appended before the read are kept in order and appended to the reopened log after
 *   what the file holds; the first such event starts the read, so nothing waits on a turn to be
 *   written. The snapshot the agent gets is the file's alone.
 * - Until it is read, the log's length is the one its record was checked against (nothing was
 *   written since), so a record rewritten meanwhile still lets the next window skip reading it.
 * - The queued messages the record names are placeholders in the agent's inbox, filled in place
 *   from the file when it is read (no turn claims one before); one the file no longer holds (a
 *   file changed without changing its length) is said to be lost, in its place.
 * - Closed unread with nothing appended, it only lets the session go; the window's last moment
 *   (the recorder's flushSync) lets go those still unread, as the store lets go its logs.
 */
export class DeferredSessionLog implements ClosableSessionLog, DeferredPast {
  private real: ClosableSessionLog | undefined;
  private reading: Promise<void> | undefined;
  private readonly early: SessionEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private closed = false;

  constructor(
    readonly header: SessionHeader,
    private readonly length: number,
    private readonly placeholders: ReadonlyMap<number, PendingMessage>,
    private readonly lastQueueId: number,
    private readonly store: DeferredOpen,
  ) {}

  get events(): readonly SessionEvent[] {
    return this.real?.events ?? this.early;
  }

  /** Still unread: the file's length as its record named it, and the queue the record named. */
  get unread(): { length: number; queue: { ids: number[]; lastId: number } } | undefined {
    return this.real ? undefined : { length: this.length, queue: { ids: [...this.placeholders.keys()], lastId: this.lastQueueId } };
  }

  /** The session's file, once read (the JSONL log's). */
  get file(): string | undefined {
    return (this.real as { file?: string } | undefined)?.file;
  }

  /** True while some appended event is not yet written (unread: any appended at all). */
  get dirty(): boolean {
    return this.real ? (this.real as { dirty?: boolean }).dirty === true : this.early.length > 0;
  }

  append(event: SessionEvent): void {
    if (this.real) return this.real.append(event);
    if (this.closed) throw new ArborError('INTERNAL', `The log of session ${this.header.id} is closed; reopen it to append.`);
    this.early.push(event);
    // Written soon, not when a turn needs the file: a report queued for a stopped agent is kept.
    if (this.early.length === 1) this.open().catch(() => undefined);
  }

  readInto<A>(turns: PastTarget<A>): Promise<void> | undefined {
    this.target = turns;
    if (!this.real) return this.open();
    // Read already (an early event opened it): what it read goes to the agent now, once.
    if (!this.unapplied) return undefined;
    this.apply();
    return Promise.resolve();
  }

  /** The agent's turns, once a turn or a view asked for its past. */
  private target: PastTarget<unknown> | undefined;
  /** What the read found, until it reaches the agent's turns. */
  private unapplied: SessionSnapshot | undefined;

  private apply(): void {
    const [turns, snapshot] = [this.target, this.unapplied];
    if (!turns || !snapshot) return;
    this.unapplied = undefined;
    // No turn ran before its past was read: the conversation was empty until now.
    turns.messages = snapshot.conversation;
    if (!turns.running && snapshot.lastTurnEnd) turns.agent.lastTurnEnd = snapshot.lastTurnEnd;
    turns.host.agentChanged(turns.agent, STATUS);
  }

  private open(): Promise<void> {
    return (this.reading ??= this.read().catch((err: unknown) => {
      this.reading = undefined;
      const error = asArborError(err, 'SESSION_UNREADABLE');
      for (const listener of this.listeners) listener(error);
      throw error;
    }));
  }

  flush(): Promise<void> {
    if (this.real) return this.real.flush();
    if (this.early.length === 0) return Promise.resolve();
    return this.open().then(() => this.real!.flush());
  }

  /** The window's last moment: a read log writes what it has; an unread one has nothing written to lose but events appended in its last milliseconds. */
  flushSync(): void {
    (this.real as { flushSync?(): void } | undefined)?.flushSync?.();
  }

  async close(): Promise<void> {
    if (this.real) return this.real.close();
    if (this.early.length > 0 || this.reading) {
      await this.open();
      return this.real!.close();
    }
    this.closed = true;
    await this.store.release();
  }

  /** The window's last moment: an unread session is let go (nothing of it waits to be written but what its last milliseconds appended). */
  releaseSync(): void {
    if (this.real || this.closed) return;
    this.closed = true;
    this.store.releaseSync();
  }

  onProblem(listener: Listener): () => void {
    this.listeners.add(listener);
    let inner: (() => void) | void;
    if (this.real) inner = this.real.onProblem?.(listener);
    return () => {
      this.listeners.delete(listener);
      if (inner) inner();
    };
  }

  private async read(): Promise<void> {
    let log: ClosableSessionLog;
    try {
      log = await this.store.reopen();
    } catch (err) {
      const error = asArborError(err, 'SESSION_UNREADABLE');
      // Said as the turn that needed it ends: why the agent's past could not be read.
      throw new ArborError(error.code, `Its session could not be read back: ${error.message}`, { id: this.header.id });
    }
    // The file's own snapshot, before the early events join it (they are the agent's already).
    const snapshot = readSessionSnapshot(log);
    const unread = new Set(this.placeholders.keys());
    for (const message of snapshot.pending ?? []) {
      const placeholder = this.placeholders.get(message.id);
      if (!placeholder) continue;
      Object.assign(placeholder, { text: message.text, from: message.from, atNextStep: message.atNextStep });
      unread.delete(message.id);
    }
    for (const id of unread) Object.assign(this.placeholders.get(id)!, { text: LOST_MESSAGE, from: 'system' });
    for (const event of this.early.splice(0)) log.append(event);
    this.real = log;
    for (const listener of this.listeners) log.onProblem?.(listener);
    this.unapplied = snapshot;
    this.apply();
  }
}

const STATUS = Object.freeze({ type: 'status' as const });
/** What stands for a queued message its record named and its file no longer holds. */
const LOST_MESSAGE = 'A message queued before the window closed could not be read back from this session.';

/**
 * The snapshot a restored agent starts with when its record's past is current: everything the
 * tree shows, from the record, and its log deferred. A turn that was running is ended
 * `interrupted`, as reading the log would end it.
 */
export function deferredSnapshot(record: LiveAgentRecord, past: PastRecord, length: number, store: DeferredOpen): SessionSnapshot {
  const placeholders = new Map<number, PendingMessage>(past.queue.ids.map((id) => [id, { id, text: '', from: 'user', atNextStep: false }]));
  const log = new DeferredSessionLog(past.header, length, placeholders, past.queue.lastId, store);
  const lastTurnEnd = record.running ? { turn: past.turns, reason: 'interrupted' as const, finalText: '' } : past.lastEnd;
  return {
    log,
    conversation: [],
    turns: past.turns,
    usage: { inputTokens: past.tokens.input, outputTokens: past.tokens.output },
    ...(lastTurnEnd ? { lastTurnEnd } : {}),
    pending: [...placeholders.values()],
    lastQueueId: past.queue.lastId,
    ...(past.plan ? { plan: past.plan } : {}),
  };
}

/**
 * Holds session `id` for a reopen to come without reading it: its lock in the store's window (a
 * reopen takes it over; SESSION_IN_USE when another window writes it) and its file's length
 * (SESSION_NOT_FOUND without a file). Undefined for a store that cannot hold a session so.
 */
export async function reserve(store: DurableSessionStore, id: string): Promise<{ length: number; release(): Promise<void>; releaseSync(): void } | undefined> {
  if (!store.lockOf || !store.fileOf) return undefined;
  const lock = store.lockOf(id);
  await lock.acquire();
  try {
    // A stat holds no handle: a thousand at once need no pool.
    return { length: (await fs.promises.stat(store.fileOf(id))).size, release: () => lock.release(), releaseSync: () => lock.releaseSync() };
  } catch (e) {
    await lock.release();
    throw errnoOf(e) === 'ENOENT' ? new ArborError('SESSION_NOT_FOUND', `There is no session ${id}.`, { id }) : e;
  }
}
