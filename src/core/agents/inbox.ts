import type { SessionEvent } from '../sessions/types';

export type MessageSource = 'user' | 'parent' | 'child' | 'system';

export interface InboxItem {
  /** Numbers the message in the session log, so a reopened session knows what was never claimed. */
  readonly id: number;
  readonly text: string;
  readonly from: MessageSource;
  readonly atNextStep?: boolean;
}

/** The `queued` session event a message is recorded with; it is also the message's item in the inbox. */
export type QueuedEvent = Extract<SessionEvent, { type: 'queued' }>;

/**
 * How a send treats a sleeping agent. `true` is a waking send: it releases the holds a waking
 * send releases (a Stop's, a branch Stop's, a reload's) and starts a turn when idle; `false` only
 * queues; `'unless-parked'` starts a turn when idle but releases nothing, so a held queue stays
 * held (reports from children must not undo a Stop).
 */
export type WakeMode = boolean | 'unless-parked';

export interface SendOptions {
  from: MessageSource;
  wake?: WakeMode;
  /**
   * Deliver into a running turn at its next model call instead of waiting for a turn of its
   * own (children's reports reach a busy parent this way).
   */
  atNextStep?: boolean;
}

export interface CancelOptions {
  /** Hold the unclaimed queue (a `stop` hold) instead of clearing it. */
  keepInbox?: boolean;
}

/**
 * An agent's FIFO of messages no turn has claimed yet. It only keeps the order: whether a new
 * turn may claim from it is the agent's holds' to say (holds.ts), and the agent records each
 * change in its session log.
 */
export class Inbox {
  /** None while the queue is empty, which is most of an agent's life. */
  private items: InboxItem[] | undefined;
  private lastId: number;

  constructor(lastQueueId = 0, pending?: readonly InboxItem[]) {
    this.lastId = lastQueueId;
    if (pending?.length) this.items = [...pending];
  }

  get size(): number {
    return this.items?.length ?? 0;
  }

  /**
   * Queues a message under the next queue id and returns the event that records it, which is
   * also what the inbox keeps: a queued message costs one object, not an item and an event.
   */
  send(text: string, from: MessageSource, atNextStep: boolean, at: string): QueuedEvent {
    const id = ++this.lastId;
    // Only the fields it has: a field left undefined still takes its slot.
    const item: QueuedEvent = atNextStep ? { type: 'queued', at, id, text, from, atNextStep } : { type: 'queued', at, id, text, from };
    (this.items ??= []).push(item);
    return item;
  }

  /** The message a new turn claims: the oldest. */
  claimNext(): InboxItem | undefined {
    const items = this.items;
    if (!items) return undefined;
    const item = items.shift();
    if (items.length === 0) this.items = undefined;
    return item;
  }

  /** Takes the messages meant to join a running turn before its next model call, in order. */
  claimAtNextStep(): InboxItem[] {
    const items = this.items;
    if (!items) return NONE;
    let taken: InboxItem[] | undefined;
    for (let i = 0; i < items.length; ) {
      const item = items[i];
      if (item.atNextStep) {
        items.splice(i, 1);
        (taken ??= []).push(item);
      } else i++;
    }
    if (items.length === 0) this.items = undefined;
    return taken ?? NONE;
  }

  /** Empties the queue; returns the ids of what it held. */
  drop(): number[] {
    const ids = this.items?.map((i) => i.id) ?? [];
    this.items = undefined;
    return ids;
  }
}

const NONE: InboxItem[] = [];
