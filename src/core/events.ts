import { warnProcess, type OnProblem } from './problems';

/** A listener registration that can be undone. */
export interface Disposable {
  dispose(): void;
}

/**
 * A minimal typed event source. Core modules expose `on(listener)`; firing with no listeners
 * costs one length check, so hot paths may fire freely.
 */
export class Emitter<T> {
  private listeners: Array<(value: T) => void> = [];

  /** `onProblem` hears a listener that throws (the runtime passes its own). */
  constructor(private readonly onProblem: OnProblem = warnProcess) {}

  readonly on = (listener: (value: T) => void): Disposable => {
    this.listeners = [...this.listeners, listener];
    return {
      dispose: () => {
        this.listeners = this.listeners.filter((l) => l !== listener);
      },
    };
  };

  get hasListeners(): boolean {
    return this.listeners.length > 0;
  }

  fire(value: T): void {
    fireTo(this.listeners, value, this.onProblem);
  }

  dispose(): void {
    this.listeners = [];
  }
}

/** Calls each listener with `value`, in order; one that throws is reported and the others still hear it. */
export function fireTo<T>(listeners: readonly ((value: T) => void)[], value: T, onProblem: OnProblem): void {
  for (let i = 0; i < listeners.length; i++) {
    try {
      listeners[i](value);
    } catch (err) {
      // A failing listener must not break the runtime or the other listeners.
      onProblem('Arbor: an event listener failed', err);
    }
  }
}
