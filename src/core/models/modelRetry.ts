/**
 * Retrying a model request that failed before any output: rate limits (429) and transient
 * server or connection failures. Exponential backoff with jitter, a server's Retry-After
 * honoured, every wait cut short by the turn's AbortSignal.
 */

export interface RetryPolicy {
  /** Retries after the first attempt; 0 disables retrying. */
  maxRetries: number;
  /** Backoff before the first retry; doubles per retry (with up to 25% jitter taken off). */
  initialDelayMs: number;
  maxDelayMs: number;
  /** A server asking to wait longer than this (Retry-After) is not retried: the error surfaces. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, initialDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

/** The wait before retry number `attempt` (0-based), preferring the server's Retry-After. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.max(0, retryAfterMs);
  const backoff = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** attempt);
  return backoff * (1 - Math.random() * 0.25);
}

interface HeaderSource {
  get(name: string): string | null;
}

/** Milliseconds a response asks the client to wait: `retry-after-ms`, or `retry-after` (seconds or an HTTP date). */
export function retryAfterMsOf(headers: HeaderSource | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with `signal.reason` as soon as the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
