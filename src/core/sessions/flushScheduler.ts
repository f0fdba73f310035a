/**
 * One timer for every log of a store. A log with lines waiting asks to be written within the
 * store's flush delay; the scheduler keeps one timer for all of them instead of one per log, so
 * a thousand agents writing at once cost one timer, not a thousand timers armed and cleared.
 *
 * Invariants:
 * - A log due is written no later than one flush delay after it asked (earlier when the timer
 *   was already running for another log: writing sooner never loses anything).
 * - A log that withdraws (it started its write itself: a flush, a full buffer, the exit flush)
 *   is not written by the timer.
 * - The timer never keeps the process alive: the exit paths write synchronously.
 */
export interface FlushTarget {
  /** Starts the log's write of what waits; the scheduler calls it once per `schedule`. */
  writeDue(): void;
}

export class FlushScheduler {
  private readonly due = new Set<FlushTarget>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly delayMs: number) {}

  /** `target` has lines waiting: write it within the delay. */
  schedule(target: FlushTarget): void {
    this.due.add(target);
    if (this.timer) return;
    this.timer = setTimeout(() => this.fire(), this.delayMs);
    this.timer.unref();
  }

  /** `target` writes by itself now, or has nothing left to write. */
  cancel(target: FlushTarget): void {
    this.due.delete(target);
  }

  private fire(): void {
    this.timer = undefined;
    const due = [...this.due];
    this.due.clear();
    for (const target of due) target.writeDue();
  }
}
