import { getEventListeners } from 'node:events';
import { AbortedError, type CancelCause } from '../errors';
import { anchorShape } from '../shapeAnchor';

/**
 * The abort of one turn: made when the turn starts and dropped when it ends, so an agent between
 * turns holds none. Only the agent aborts its turn, so everything that must react to that abort
 * is reached directly, without a listener per waiter on the signal:
 * - the turn's current wait (reading the model's stream, or its tools) is rejected at once,
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
    controller.abort(AbortedError.withoutStack(cause));
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

  /**
   * Reads a model's stream to its end, handing each item to `take` as it arrives: resolved when
   * the stream is done, rejected at once when the turn is aborted (the pending read is left to
   * the provider), when `take` throws or when the stream fails. One wait covers the whole
   * stream: a wait per item would cost a promise, its functions and a turn of the queue each.
   * Nothing an item came in is kept once `take` has had it.
   */
  consume<T>(iterator: AsyncIterator<T>, take: (item: T) => void): Promise<void> {
    if (this.abortedFlag) return Promise.reject(this.signal.reason);
    return new Promise<void>((resolve, reject) => {
      this.rejectWait = reject;
      new StreamRead(this, iterator, take, resolve, reject).pull();
    });
  }

  /** The wait settled: an abort from now on has nothing to reject. */
  waited(): void {
    this.rejectWait = undefined;
  }
}

/** One consume(): the next item is asked for only once the last one was taken. Exported for the test of its anchor (shapeAnchor.ts). */
export class StreamRead<T> {
  private readonly arrived: (result: IteratorResult<T>) => void;

  constructor(
    private readonly turn: TurnAbort,
    private readonly iterator: AsyncIterator<T>,
    private readonly take: (item: T) => void,
    private readonly resolve: () => void,
    private readonly reject: (reason: unknown) => void,
  ) {
    this.arrived = (result) => this.onArrived(result);
  }

  pull(): void {
    try {
      this.iterator.next().then(this.arrived, this.reject);
    } catch (err) {
      this.reject(err);
    }
  }

  private onArrived(result: IteratorResult<T>): void {
    if (this.turn.aborted) return;
    if (result.done) return this.resolve();
    try {
      this.take(result.value);
    } catch (err) {
      return this.reject(err);
    }
    if (!this.turn.aborted) this.pull();
  }
}

/** Spare controllers are few: enough for the turns of a busy moment, a few kilobytes in all. */
const SPARES = 8;
const spares: AbortController[] = [];

/** The shapes of a turn's abort and of its stream reads outlive the last turn (shapeAnchor.ts). */
const noop = (): void => undefined;
const ANCHOR_TURN = anchorShape(new TurnAbort());
ANCHOR_TURN.end(false);
anchorShape(new StreamRead<never>(ANCHOR_TURN, { next: () => Promise.resolve({ done: true, value: undefined }) }, noop, noop, noop));

/** Calls `callback` once when `signal` aborts (a signal no agent's TurnAbort owns); returns the unsubscribe. */
export function whenAborted(signal: AbortSignal, callback: () => void): () => void {
  signal.addEventListener('abort', callback, { once: true });
  return () => signal.removeEventListener('abort', callback);
}
