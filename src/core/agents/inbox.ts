export type MessageSource = 'user' | 'parent' | 'child' | 'system';

export interface InboxItem {
  /** Numbers the message in the session log, so a reopened session knows what was never claimed. */
  id: number;
  text: string;
  from: MessageSource;
  atNextStep: boolean;
}

/**
 * An agent's FIFO of messages no turn has claimed yet. A Stop *parks* it: nothing is taken for a
 * new turn until a waking send un-parks it, and then the queue resumes in order. A branch Stop
 * *holds* it: parked even while empty, so a report that arrives later only queues. The agent
 * records each change in its session log; this class only keeps the order and the parked flag.
 */
export class Inbox {
  private readonly items: InboxItem[] = [];
  private parked = false;
  /** Parked by a branch Stop: stays parked even while empty, until a waking send. */
  private held = false;
  private lastId: number;

  /** A reopened session's unclaimed messages come back parked. */
  constructor(lastQueueId = 0, pending?: readonly InboxItem[]) {
    this.lastId = lastQueueId;
    if (pending?.length) {
      this.items.push(...pending);
      this.parked = true;
    }
  }

  get size(): number {
    return this.items.length;
  }

  /** True when a Stop left queued work that waits for the next waking send. */
  get isParked(): boolean {
    return this.parked && this.items.length > 0;
  }

  /** Queues a message under the next queue id. */
  send(text: string, from: MessageSource, atNextStep: boolean): InboxItem {
    const item: InboxItem = { id: ++this.lastId, text, from, atNextStep };
    this.items.push(item);
    return item;
  }

  /** True after a branch Stop until a waking send: nothing but that send starts a turn, not even on an empty queue. */
  get isHeld(): boolean {
    return this.held;
  }

  park(): void {
    this.parked = true;
  }

  /** Park the queue and keep it parked even when it is (or becomes) empty: messages that do not wake only queue. */
  hold(): void {
    this.parked = true;
    this.held = true;
  }

  unpark(): void {
    this.parked = false;
    this.held = false;
  }

  /** The message a new turn claims: the oldest, unless the queue is parked or empty. */
  claimNext(): InboxItem | undefined {
    if (this.parked) return undefined;
    return this.items.shift();
  }

  /** An empty queue is never parked (the next message starts a turn as usual). */
  forgetParkedWhenEmpty(): void {
    if (this.items.length === 0 && !this.held) this.parked = false;
  }

  /** Takes the messages meant to join a running turn before its next model call, in order. */
  claimAtNextStep(): InboxItem[] {
    if (this.items.length === 0) return NONE;
    let taken: InboxItem[] | undefined;
    for (let i = 0; i < this.items.length; ) {
      const item = this.items[i];
      if (item.atNextStep) {
        this.items.splice(i, 1);
        (taken ??= []).push(item);
      } else i++;
    }
    return taken ?? NONE;
  }

  /** Empties the queue; returns the ids of what it held. */
  drop(): number[] {
    const ids = this.items.map((i) => i.id);
    this.items.length = 0;
    return ids;
  }
}

const NONE: InboxItem[] = [];
