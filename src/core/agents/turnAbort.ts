import { getEventListeners } from 'node:events';
import { AbortedError, type CancelCause } from '../errors';

/**
 * The abort of one turn: made when the turn starts and dropped when it ends, so an agent between
 * turns holds none. Only the agent aborts its turn, so everything that must react to that abort
 * is reached directly, without a listener per waiter on the signal:
 * - the turn's current wait (a read from the model's stream, or its tools) is rejected at once,
 *   even when the provider or a tool is slow to honour the signal, and nothing the wait
 *   resolved with stays reachable after it;
 * - callbacks registered for the turn (one-shot children to cancel) are called from one set: a
 *   turn that holds a thousand one-shot children would otherwise carry a thousand EventTarget
 *   listeners, whose removal is linear each;
 * - `aborted` is a plain field: the signal's own getter is slow on Node 20 (every AbortSignal
 *   has a hidden class of its own), and the turn loop asks before every step and chunk;
 * - a turn that ended unaborted with no listener left on its signal gives its controller back
 *   to a few spares the next turns start from (SPARES): creating and collecting an AbortSignal
 *   costs several µs on Node 20, a large share of a turn's own cost, and a spare kept by each
 *   idle agent would cost it most of a kilobyte. A signal no one listens to and that was never
 *   aborted carries nothing of the turn that used it.
 */
export class TurnAbort {
  readonly signal: AbortSignal;
  private controller: AbortController | undefined;
  private abortedFlag = false;
  private rejectWait: ((reason: unknown) => void) | undefined;
  /** Made on first use: most turns hold no one-shot child. */
  private callbacks: Set<() => void> | undefined;

  constructor() {
    const controller = spares.pop() ?? new AbortController();
    this.controller = controller;
    this.signal = controller.signal;
  }

  /** The turn ended; `reusable` is false when its agent has ended. */
  end(reusable: boolean): void {
    const controller = this.controller;
    this.controller = undefined;
    this.callbacks = undefined;
    this.rejectWait = undefined;
    if (reusable && controller && !this.abortedFlag && spares.length < SPARES && getEventListeners(this.signal, 'abort').length === 0) spares.push(controller);
  }

  get aborted(): boolean {
    return this.abortedFlag;
  }

  /** Aborts the running turn with `cause`; false when it has ended or is already aborted. */
  abort(cause: CancelCause): boolean {
    const controller = this.controller;
    if (!controller || this.abortedFlag) return false;
    this.abortedFlag = true;
    controller.abort(new AbortedError(cause));
    const callbacks = this.callbacks;
    this.callbacks = undefined;
    if (callbacks) for (const callback of callbacks) callback();
    const reject = this.rejectWait;
    this.rejectWait = undefined;
    reject?.(this.signal.reason);
    return true;
  }

  /**
   * Calls `callback` once when `signal` aborts; returns the unsubscribe. The running turn's own
   * signal is watched through this turn's set, any other signal through a listener of its own.
   */
  whenAborted(signal: AbortSignal, callback: () => void): () => void {
    if (signal === this.signal && this.controller && !this.abortedFlag) {
      const callbacks = (this.callbacks ??= new Set());
      callbacks.add(callback);
      return () => void callbacks.delete(callback);
    }
    return whenAborted(signal, callback);
  }

  /** `work`, or a rejection with the turn's abort reason as soon as the turn is aborted. */
  wait<T>(work: Promise<T>): Promise<T> {
    if (this.abortedFlag) return Promise.reject(this.signal.reason);
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

/** Spare controllers are few: enough for the turns of a busy moment, a few kilobytes in all. */
const SPARES = 8;
const spares: AbortController[] = [];

/** Calls `callback` once when `signal` aborts (a signal no agent's TurnAbort owns); returns the unsubscribe. */
export function whenAborted(signal: AbortSignal, callback: () => void): () => void {
  signal.addEventListener('abort', callback, { once: true });
  return () => signal.removeEventListener('abort', callback);
}
