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
    const current = this.listeners;
    for (let i = 0; i < current.length; i++) {
      try {
        current[i](value);
      } catch (err) {
        // A failing listener must not break the runtime or the other listeners.
        this.onProblem('Arbor: an event listener failed', err);
      }
    }
  }

  dispose(): void {
    this.listeners = [];
  }
}
