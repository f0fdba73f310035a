// When the Agents view repaints. Pure (no 'vscode' import), so the timing rules below are
// unit-tested and benchmarked in plain Node with a clock of their own.
//
// Invariants:
// - Changes are gathered, never fired one by one: a burst after a quiet spell costs one
//   repaint, COALESCE_MS later.
// - Two repaints are never closer than REPAINT_INTERVAL_MS. VS Code's extension host hands a
//   tree's changes to the workbench through a debounce of HOST_DEBOUNCE_MS that starts over at
//   every change (ExtHostTreeView, leading edge first): changes fired closer together than that,
//   for as long as they keep coming, are all held back. A view fed every 50 ms under steady load
//   froze until the load stopped. Spaced wider than that window, each repaint passes at once on
//   the debounce's leading edge, so what the view shows is at most about one interval old.
// - A repaint names the nodes marked since the previous one, each once; `markAll` (a node came
//   or went at the top level) repaints the whole tree instead.

/** The extension host's debounce of tree changes (ExtHostTreeView in VS Code 1.100). */
export const HOST_DEBOUNCE_MS = 200;
/** The least time between two repaints: wider than the host's debounce, with room for timer slack. */
export const REPAINT_INTERVAL_MS = 250;
/** After a quiet spell, how long a burst of changes is gathered before its repaint. */
export const COALESCE_MS = 50;

/** The clock and timers the queue runs on (the real ones, or a test's). */
export interface RepaintClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: RepaintClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Gathers the nodes to repaint and hands them to `repaint` in batches spaced as described at
 * the top of this file: `repaint(undefined)` means the whole tree.
 */
export class RepaintQueue<T> {
  private readonly marked = new Set<T>();
  private whole = false;
  private timer: unknown;
  private lastRepaint = -Infinity;
  private disposed = false;

  constructor(
    private readonly repaint: (nodes: T[] | undefined) => void,
    private readonly clock: RepaintClock = realClock,
  ) {}

  mark(node: T): void {
    this.marked.add(node);
    this.schedule();
  }

  markAll(): void {
    this.whole = true;
    this.schedule();
  }

  /** True while marked changes wait for their repaint. */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.marked.clear();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.disposed) return;
    const wait = Math.max(COALESCE_MS, this.lastRepaint + REPAINT_INTERVAL_MS - this.clock.now());
    this.timer = this.clock.setTimeout(() => this.run(), wait);
  }

  private run(): void {
    this.timer = undefined;
    if (this.disposed) return;
    this.lastRepaint = this.clock.now();
    if (this.whole) {
      this.whole = false;
      this.marked.clear();
      this.repaint(undefined);
      return;
    }
    const nodes = [...this.marked];
    this.marked.clear();
    if (nodes.length) this.repaint(nodes);
  }
}
