import { holdAt, holdIndex, lapsesWhenEmpty, newHold, NO_HOLDS, type GateStep, type Hold, type HoldReason } from './holds';
import { Inbox, type InboxItem } from './inbox';

/**
 * An agent's queue with what holds it: the inbox (FIFO order, inbox.ts) and the agent's holds
 * (holds.ts), the one place that says whether a new turn may claim the next message.
 *
 * Invariants: a turn claims only when no hold stops the `claim` step, so a Stop, a branch Stop
 * or a reload keeps queued work waiting for a waking send; a Stop's hold with nothing left to
 * hold lapses when the queue is found empty; one hold per reason. It is the inbox itself (not a
 * wrapper around one) and carries no hold list while nothing holds the agent (most of its
 * life), so an idle agent pays for neither an extra object nor an empty list.
 */
export class AgentQueue extends Inbox {
  /** The holds, oldest first; null while nothing holds the agent. A plain array: a Stop puts its hold before its abort reaches the model. */
  private holdList: Hold[] | null = null;

  constructor(lastQueueId: number, pending: readonly InboxItem[] | undefined) {
    super(lastQueueId, pending);
    // Messages a reopened session had queued but never claimed come back held.
    if (pending?.length) this.put(newHold('reload'));
  }

  /** Everything that keeps the agent from running, oldest first. */
  get holds(): readonly Hold[] {
    return this.holdList ?? NO_HOLDS;
  }

  /** True when a hold keeps queued work waiting for the next waking send. */
  get isParked(): boolean {
    return this.size > 0 && holdAt(this.holds, 'claim') !== undefined;
  }

  has(reason: HoldReason): boolean {
    return this.holdList !== null && holdIndex(this.holdList, reason) >= 0;
  }

  /** Puts a hold: one per reason, so a second hold of a held reason may only mark it interrupted. */
  put(hold: Hold): void {
    const list = (this.holdList ??= []);
    const i = holdIndex(list, hold.reason);
    if (i < 0) list.push(hold);
    else if (hold.interrupted && !list[i].interrupted) list[i] = { ...list[i], interrupted: true };
  }

  /** Takes off the holds `match` picks, in the order they were put; returns them (NO_HOLDS when none). */
  release(match: (hold: Hold) => boolean): readonly Hold[] {
    const list = this.holdList;
    if (!list) return NO_HOLDS;
    let released: Hold[] | undefined;
    let kept = 0;
    for (let i = 0; i < list.length; i++) {
      const hold = list[i];
      if (match(hold)) (released ??= []).push(hold);
      else list[kept++] = hold;
    }
    if (kept === 0) this.holdList = null;
    else if (kept !== list.length) list.length = kept;
    return released ?? NO_HOLDS;
  }

  /** The agent's own hold that stops `step` now, if any (the run's gate is the agent's to add). */
  heldAt(step: GateStep): Hold | undefined {
    return this.holdList ? holdAt(this.holdList, step) : undefined;
  }

  /**
   * The message the next turn claims, unless the agent has ended (`closed`) or a hold stops the
   * claim; with nothing queued the holds that lapse when the queue is empty come off.
   */
  claimForTurn(closed: boolean): InboxItem | undefined {
    const next = closed || this.heldAt('claim') ? undefined : this.claimNext();
    if (!next && this.size === 0) this.release(lapsesWhenEmpty);
    return next;
  }
}
