import { getEventListeners } from 'node:events';
import { AbortedError, type CancelCause } from '../errors';

/**
 * The one abort helper of an agent's turns. Only the agent aborts its turn, so everything that
 * must react to that abort is reached directly, without a listener per waiter on the signal:
 * - the turn's current wait (a read from the model's stream, or its tools) is rejected at once,
 *   even when the provider or a tool is slow to honour the signal, and nothing the wait
 *   resolved with stays reachable after it;
 * - callbacks registered for the turn (one-shot children to cancel) are called from one set: a
 *   turn that holds a thousand one-shot children would otherwise carry a thousand EventTarget
 *   listeners, whose removal is linear each;
 * - a turn that ended unaborted with no listener left on its signal hands its controller to the
 *   next turn: creating and collecting an AbortSignal costs several µs on Node 20, a large share
 *   of a turn's own cost.
 */
export class TurnAbort {
  private controller: AbortController | undefined;
  private spare: AbortController | undefined;
  private rejectWait: ((reason: unknown) => void) | undefined;
  /** Made on first use: most turns hold no one-shot child. */
  private callbacks: Set<() => void> | undefined;

  /** A signal for a new turn. */
  begin(): AbortSignal {
    const controller = this.spare ?? new AbortController();
    this.spare = undefined;
    this.controller = controller;
    return controller.signal;
  }

  /** The turn ended; `reusable` is false when its agent has ended. */
  end(reusable: boolean): void {
    const controller = this.controller;
    this.controller = undefined;
    this.callbacks = undefined;
    this.rejectWait = undefined;
    if (reusable && controller && !controller.signal.aborted && getEventListeners(controller.signal, 'abort').length === 0) this.spare = controller;
  }

  get aborted(): boolean {
    return this.controller?.signal.aborted ?? false;
  }

  /** Aborts the running turn with `cause`; false when there is none or it is already aborted. */
  abort(cause: CancelCause): boolean {
    const controller = this.controller;
    if (!controller || controller.signal.aborted) return false;
    controller.abort(new AbortedError(cause));
    const callbacks = this.callbacks;
    this.callbacks = undefined;
    if (callbacks) for (const callback of callbacks) callback();
    const reject = this.rejectWait;
    this.rejectWait = undefined;
    reject?.(controller.signal.reason);
    return true;
  }

  /**
   * Calls `callback` once when `signal` aborts; returns the unsubscribe. The running turn's own
   * signal is watched through this helper's set, any other signal through a listener of its own.
   */
  whenAborted(signal: AbortSignal, callback: () => void): () => void {
    if (signal === this.controller?.signal && !signal.aborted) {
      const callbacks = (this.callbacks ??= new Set());
      callbacks.add(callback);
      return () => void callbacks.delete(callback);
    }
    return whenAborted(signal, callback);
  }

  /** `work`, or a rejection with the turn's abort reason as soon as the turn is aborted. */
  wait<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      this.rejectWait = reject;
      work.then(resolve, reject);
    });
  }

  /** The next item of a model's stream, rejected at once when the turn is aborted. */
  read<T>(iterator: AsyncIterator<T>): Promise<IteratorResult<T>> {
    return new Promise<IteratorResult<T>>((resolve, reject) => {
      this.rejectWait = reject;
      iterator.next().then(resolve, reject);
    });
  }

  /** The wait settled: an abort from now on has nothing to reject. */
  waited(): void {
    this.rejectWait = undefined;
  }
}

/** Calls `callback` once when `signal` aborts (a signal no agent's TurnAbort owns); returns the unsubscribe. */
export function whenAborted(signal: AbortSignal, callback: () => void): () => void {
  signal.addEventListener('abort', callback, { once: true });
  return () => signal.removeEventListener('abort', callback);
}
