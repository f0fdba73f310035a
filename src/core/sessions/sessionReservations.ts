import { SessionLock, type WindowLock } from './sessionLock';

/** What a reservation gives its holder: letting the session go unread. */
export interface SessionReservation {
  release(): Promise<void>;
}

/**
 * Sessions a store has taken over for a reopen to come, without reading their files: a restored
 * agent's log is read when the agent needs it (its next turn, its conversation opened), and its
 * session's lock is claimed at once, so no other window takes it in between. The reopen takes
 * the lock over; the end of the store lets go every reservation not reopened.
 */
export class SessionReservations {
  private readonly locks = new Map<string, SessionLock>();

  constructor(private readonly window: WindowLock) {}

  has(id: string): boolean {
    return this.locks.has(id);
  }

  /** Claims session `id`'s lock; rejects with SESSION_IN_USE when another window writes it. */
  async take(id: string): Promise<SessionReservation> {
    const lock = new SessionLock(this.window, id);
    this.locks.set(id, lock);
    try {
      await lock.acquire();
    } catch (e) {
      this.locks.delete(id);
      throw e;
    }
    return {
      release: async () => {
        if (this.locks.get(id) !== lock) return;
        this.locks.delete(id);
        await lock.release();
      },
    };
  }

  /** The lock of a reserved session, handed to its reopen (undefined when it is not reserved). */
  takeOver(id: string): SessionLock | undefined {
    const lock = this.locks.get(id);
    this.locks.delete(id);
    return lock;
  }

  releaseAllSync(): void {
    for (const lock of this.locks.values()) lock.releaseSync();
    this.locks.clear();
  }

  releaseAll(): Promise<void>[] {
    const locks = [...this.locks.values()];
    this.locks.clear();
    return locks.map((lock) => lock.release());
  }
}
