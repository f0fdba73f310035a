import { AgentHolds, holdAt, lapsesWhenEmpty, newHold, NO_HOLDS, type GateStep, type Hold, type HoldReason } from './holds';
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
  /** Null while nothing holds the agent. */
  private holdSet: AgentHolds | null = null;

  constructor(lastQueueId: number, pending: readonly InboxItem[] | undefined) {
    super(lastQueueId, pending);
    // Messages a reopened session had queued but never claimed come back held.
    if (pending?.length) this.put(newHold('reload'));
  }

  /** Everything that keeps the agent from running, oldest first. */
  get holds(): readonly Hold[] {
    return this.holdSet?.all ?? NO_HOLDS;
  }

  /** True when a hold keeps queued work waiting for the next waking send. */
  get isParked(): boolean {
    return this.size > 0 && holdAt(this.holds, 'claim') !== undefined;
  }

  has(reason: HoldReason): boolean {
    return this.holdSet?.has(reason) ?? false;
  }

  /** Puts a hold (one per reason; see AgentHolds.put). */
  put(hold: Hold): void {
    (this.holdSet ??= new AgentHolds()).put(hold);
  }

  /** Takes off the holds `match` picks; returns them. */
  release(match: (hold: Hold) => boolean): readonly Hold[] {
    const set = this.holdSet;
    if (!set) return NO_HOLDS;
    const dropped = set.release(match);
    if (set.empty) this.holdSet = null;
    return dropped;
  }

  /** The agent's own hold that stops `step` now, if any (the run's gate is the agent's to add). */
  heldAt(step: GateStep): Hold | undefined {
    return this.holdSet ? holdAt(this.holdSet.all, step) : undefined;
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
