// What stands between a tree provider's onDidChangeTreeData and the workbench, modelled for
// tests and benchmarks in plain Node: a clock whose time moves only when told, and VS Code's
// extension-host debounce of tree changes (ExtHostTreeView in VS Code 1.100: Event.debounce with
// a delay of 200 ms, leading edge, the timer starting over at every change).
import type { RepaintClock } from '../../src/extension/agents/repaintQueue';

/** Timers that run only when `advance` moves the time past them, in time order. */
export class FakeClock implements RepaintClock {
  private time = 0;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; callback: () => void }>();

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Moves the time forward by `ms`, running every timer due on the way at its own time. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let due: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].at <= end && (!due || entry[1].at < due[1].at)) due = entry;
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
    }
    this.time = end;
  }
}

export const HOST_TREE_DEBOUNCE_MS = 200;

/**
 * The extension host's handling of `onDidChangeTreeData`: changes are merged; the first one
 * after a quiet spell passes at once, later ones wait until no change came for 200 ms. `deliver`
 * receives what reaches the workbench (`undefined` for the whole tree).
 */
export class HostTreeDebounce<T> {
  private handle: unknown;
  private merged: { whole: boolean; nodes: T[] } | undefined;
  private calls = 0;

  constructor(
    private readonly clock: RepaintClock,
    private readonly deliver: (nodes: T[] | undefined) => void,
  ) {}

  /** Wire it to a provider: `provider.onDidChangeTreeData(host.fire)`. */
  readonly fire = (change: T | T[] | undefined): void => {
    this.calls++;
    const merged = (this.merged ??= { whole: false, nodes: [] });
    if (change === undefined) merged.whole = true;
    else if (Array.isArray(change)) merged.nodes.push(...change);
    else merged.nodes.push(change);
    if (this.handle === undefined) this.flush();
    this.clock.clearTimeout(this.handle);
    this.handle = this.clock.setTimeout(() => {
      this.handle = undefined;
      if (this.calls > 1 && this.merged) this.flush();
      this.calls = 0;
    }, HOST_TREE_DEBOUNCE_MS);
  };

  private flush(): void {
    const merged = this.merged;
    this.merged = undefined;
    if (merged) this.deliver(merged.whole ? undefined : merged.nodes);
  }
}

/**
 * The rest of the way to the screen: the extension host refreshes what passed its debounce one
 * repaint at a time, asking the provider for the rows (`ask`) and then waiting until the
 * workbench has applied them (`refreshMs` each, a busy renderer); `applied` receives what the
 * view shows from then on. Later repaints queue behind (ExtHostTreeView's refresh chain).
 */
export class HostTreeView<T> {
  readonly debounce: HostTreeDebounce<T>;
  private readonly queue: Array<T[] | undefined> = [];
  private busy = false;
  /** The longest the refresh queue grew. */
  maxQueued = 0;

  constructor(
    private readonly clock: RepaintClock,
    private readonly refreshMs: number,
    private readonly ask: (nodes: T[] | undefined) => void,
    private readonly applied: (nodes: T[] | undefined) => void,
  ) {
    this.debounce = new HostTreeDebounce<T>(clock, (nodes) => {
      this.queue.push(nodes);
      this.maxQueued = Math.max(this.maxQueued, this.queue.length);
      if (!this.busy) this.next();
    });
  }

  private next(): void {
    const nodes = this.queue.shift();
    this.busy = true;
    this.ask(nodes);
    this.clock.setTimeout(() => {
      this.applied(nodes);
      this.busy = false;
      if (this.queue.length > 0) this.next();
    }, this.refreshMs);
  }
}
