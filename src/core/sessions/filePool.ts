import { errnoOf } from '../errors';

/**
 * Bounded file I/O. Every open, write and read of session files goes through one pool per
 * store, so a thousand agents ending at once hold at most `limit` file handles: the process's
 * open-files limit is shared with everything else in the extension host, and a burst that
 * exhausts it makes unrelated file users fail too.
 *
 * Transient failures (too many open files, a busy or interrupted call) are retried with a
 * growing delay before the error reaches the caller.
 */

const TRANSIENT = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'EBUSY', 'EINTR']);

export function isTransientFileError(e: unknown): boolean {
  return TRANSIENT.has(errnoOf(e) ?? '');
}

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Delay before the second try; it doubles for each further one. */
  firstDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, firstDelayMs: 20 };

/**
 * Who waits for an operation: `foreground`, an agent or a person (a root's batch, a lock, a
 * read for History); `background`, nobody yet (a one-shot session's file created after its lines
 * landed in the journal). A fan-out files a thousand sessions in the background a moment after it
 * ends; a root's next batch must not queue behind them.
 */
export type FileLane = 'foreground' | 'background';

/**
 * Invariants:
 * - At most `limit` operations run at once, in both lanes together.
 * - A free slot goes to the foreground's oldest waiting operation first; the background's
 *   operations run in the order they came, and never take the slots kept for the foreground
 *   (a quarter of them, at least one), so a foreground operation never queues behind a
 *   background one: it starts at once unless other foreground operations hold the kept slots,
 *   and then at the next slot freed in either lane.
 */
export class FilePool {
  private active = 0;
  private activeBackground = 0;
  private readonly waiting: Record<FileLane, (() => void)[]> = { foreground: [], background: [] };
  /** The most slots background operations hold at once. */
  private readonly backgroundLimit: number;

  constructor(
    readonly limit = 16,
    private readonly retry: RetryPolicy = DEFAULT_RETRY,
  ) {
    this.backgroundLimit = limit > 1 ? limit - Math.max(1, Math.floor(limit / 4)) : limit;
  }

  /** Runs `operation` when a slot of its lane is free; transient failures are tried again, in the slot. */
  async run<T>(operation: () => Promise<T>, lane: FileLane = 'foreground'): Promise<T> {
    await this.acquire(lane);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await operation();
        } catch (e) {
          if (!isTransientFileError(e) || attempt >= this.retry.attempts) throw e;
          await delay(this.retry.firstDelayMs * 2 ** (attempt - 1));
        }
      }
    } finally {
      this.release(lane);
    }
  }

  private acquire(lane: FileLane): Promise<void> {
    if (this.waiting[lane].length === 0 && this.free(lane)) {
      this.take(lane);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting[lane].push(resolve));
  }

  private free(lane: FileLane): boolean {
    return this.active < this.limit && (lane === 'foreground' || this.activeBackground < this.backgroundLimit);
  }

  private take(lane: FileLane): void {
    this.active++;
    if (lane === 'background') this.activeBackground++;
  }

  private release(lane: FileLane): void {
    this.active--;
    if (lane === 'background') this.activeBackground--;
    for (const next of ['foreground', 'background'] as const) {
      const queue = this.waiting[next];
      while (queue.length > 0 && this.free(next)) {
        this.take(next);
        queue.shift()?.();
      }
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
