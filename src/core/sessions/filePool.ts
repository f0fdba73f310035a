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

export class FilePool {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    readonly limit = 16,
    private readonly retry: RetryPolicy = DEFAULT_RETRY,
  ) {}

  /** Runs `operation` when a slot is free; transient failures are tried again, in the slot. */
  async run<T>(operation: () => Promise<T>): Promise<T> {
    await this.acquire();
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
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.active--;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
