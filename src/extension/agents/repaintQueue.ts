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
// - At most one repaint is in flight. The extension host queues each repaint behind the
//   previous one until the workbench has applied it; when the workbench is slower than the
//   repaints (a busy renderer, hundreds of rows), that queue grew without end and what the view
//   showed fell further and further behind. So after a repaint the next one waits until the host
//   asks for the repainted rows (`acknowledge`), or ACK_TIMEOUT_MS at most (a host that never
//   asks, for rows it does not show). Marks made meanwhile are gathered into that next repaint.

/** The extension host's debounce of tree changes (ExtHostTreeView in VS Code 1.100). */
export const HOST_DEBOUNCE_MS = 200;
/** The least time between two repaints: wider than the host's debounce, with room for timer slack. */
export const REPAINT_INTERVAL_MS = 250;
/** After a quiet spell, how long a burst of changes is gathered before its repaint. */
export const COALESCE_MS = 50;
/** The longest a repaint waits for the host to take the previous one. */
export const ACK_TIMEOUT_MS = 2000;

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
  /** Set while the last repaint waits for the host to take it. */
  private unacknowledged: unknown;
  private acknowledgedEarly = false;

  /** `repaint` returns whether the host will answer what it fired (only then is an acknowledgement awaited). */
  constructor(
    private readonly repaint: (nodes: T[] | undefined) => boolean,
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

  /** The host took the last repaint (it asked for its rows): the next one may go. */
  acknowledge(): void {
    if (this.unacknowledged === undefined) {
      this.acknowledgedEarly = true;
      return;
    }
    this.clock.clearTimeout(this.unacknowledged);
    this.unacknowledged = undefined;
    if (this.whole || this.marked.size > 0) this.schedule();
  }

  /** True while marked changes wait for their repaint. */
  get pending(): boolean {
    return this.timer !== undefined || (this.unacknowledged !== undefined && (this.whole || this.marked.size > 0));
  }

  /** True while the last repaint waits for the host to take it. */
  get awaitingHost(): boolean {
    return this.unacknowledged !== undefined;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    if (this.unacknowledged !== undefined) this.clock.clearTimeout(this.unacknowledged);
    this.timer = undefined;
    this.unacknowledged = undefined;
    this.marked.clear();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.unacknowledged !== undefined || this.disposed) return;
    const wait = Math.max(COALESCE_MS, this.lastRepaint + REPAINT_INTERVAL_MS - this.clock.now());
    this.timer = this.clock.setTimeout(() => this.run(), wait);
  }

  private run(): void {
    this.timer = undefined;
    if (this.disposed) return;
    this.lastRepaint = this.clock.now();
    // A host that asks for the rows at once, while they are being fired, has taken them too.
    this.acknowledgedEarly = false;
    let fired: boolean;
    if (this.whole) {
      this.whole = false;
      this.marked.clear();
      fired = this.repaint(undefined);
    } else {
      const nodes = [...this.marked];
      this.marked.clear();
      fired = nodes.length > 0 && this.repaint(nodes);
    }
    if (fired && !this.acknowledgedEarly) this.unacknowledged = this.clock.setTimeout(() => this.acknowledge(), ACK_TIMEOUT_MS);
    else if (this.whole || this.marked.size > 0) this.schedule();
  }
}
