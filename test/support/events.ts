import type { RuntimeEvent } from '../../src/core/agents';

/**
 * Waits on the runtime's event channel, the one every agent's arrival, departure and change
 * (status, turn start and end, each session event, usage) goes through, instead of polling.
 * `ms` bounds a hang (a wrong test, a lost event); it is never a timing claim.
 */

/** A channel of the runtime: the runtime itself, its budgets, or `{ onEvent: runtime.interaction.onDidChangePending }`. */
export interface EventSource<T> {
  onEvent(listener: (event: T) => void): { dispose(): void };
}

/**
 * Resolves once `state()` holds: checked now, and after each runtime event (at once and again
 * when the code that fired it has run to its end, as a state may be completed just after its
 * event). `source` is the runtime, or another channel of it (its budgets, its pending questions). For state
 * that no channel announces (a file, a process, a fake's counter), use `until`.
 */
export function whenState<T = RuntimeEvent>(source: EventSource<T>, state: () => boolean, what: string, ms = 2000): Promise<void> {
  if (state()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      subscription.dispose();
      if (err) reject(err);
      else resolve();
    };
    const check = () => {
      if (done) return;
      try {
        if (state()) finish();
      } catch (err) {
        finish(err instanceof Error ? err : new Error(String(err)));
      }
    };
    const deadline = setTimeout(() => finish(new Error(`timed out waiting for ${what}`)), ms);
    const subscription = source.onEvent(() => {
      check();
      queueMicrotask(check);
    });
  });
}
