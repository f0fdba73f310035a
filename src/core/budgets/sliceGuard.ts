import type { Agent, AgentRun } from '../agents/agent';
import { newHold, type Hold } from '../agents/holds';
import { ArborError } from '../errors';
import { SLICE_RESUME_NOTE, type SliceGuardDeps } from './sliceEvents';
import { blockedLines } from './blockedReport';
import { holdAll } from './holdAll';
import { formatCount } from './budgetStatus';
import { sliceBookOf, slicesOf } from './sliceBook';
import { formatCost } from './prices';
import { raisedSlice, sliceSpent, sliceStatus, spentSliceOf, tighterRequest, type BudgetSlice } from './slices';
import { SLICE_KEYS, type SliceLimits, type SliceRecordData, type SliceRequest } from './sliceRequest';

/**
 * Keeps the slices of every run (budgets per branch, slices.ts) the way the budget guard keeps a
 * run's budgets: a spent slice pauses its branch alone, as a spent run budget pauses the run. In
 * a part (budgetPart.ts) the budget guard loads with the first slice asked for or put back.
 *
 * Invariants:
 * - The branch of a slice is its owner and every live agent that spends from it (the owner's
 *   descendants). Pausing it puts a `slice` hold on each, and cancels each running turn with
 *   cause `budget`, queue kept, exactly as a run pause does; an agent that joins a paused branch
 *   is held too. Nothing outside the branch is touched.
 * - A raise of a slice takes off its hold only: an agent that is also under the run's pause, or
 *   a spent slice deeper down, stays held (the run's raise, or that slice's, wakes it).
 * - An unattended branch cannot wait for a raise: its owner's turn ends BLOCKED with a report of
 *   the branch, and the branch then ends, so the parent gets the report as from any ended child.
 */
export class SliceGuard {
  private readonly timers = new Map<BudgetSlice, ReturnType<typeof setTimeout>>();
  /** The slice the child being started now gets as it joins the run (startWith). */
  private starting: { parent: Agent; slice: BudgetSlice } | undefined;

  constructor(private readonly deps: SliceGuardDeps) {}

  /**
   * The slice a child of `parent` would get for `request` (and its definition's budget, the
   * tighter of the two per measure), taken from what is left; BUDGET_SLICE_TOO_LARGE when the
   * remainder is smaller. Nothing is given until `give`, so a refusal changes nothing.
   */
  take(parent: Agent, label: string, request: SliceRequest | undefined, definitionBudget?: SliceRequest): BudgetSlice | undefined {
    const asked = tighterRequest(request, definitionBudget);
    if (!asked || !SLICE_KEYS.some((k) => asked[k] !== undefined)) return undefined;
    return sliceBookOf(parent.run.budget).take(parent.id, label, asked, this.deps.now());
  }

  /**
   * Runs `start`, which adds a child of `parent` to the registry and sends it its task: that child
   * gets `slice` (from `take`) as it joins, before its first turn can spend anything.
   */
  startWith<T>(parent: Agent, slice: BudgetSlice | undefined, start: () => T): T {
    if (!slice) return start();
    const outer = this.starting;
    this.starting = { parent, slice };
    try {
      return start();
    } finally {
      this.starting = outer;
    }
  }

  /** A slice put back after a reload (restore/), before its agent joins the run: spent, its branch comes back paused. */
  restore(agent: Agent, record: SliceRecordData): void {
    const slice = sliceBookOf(agent.run.budget).restore(agent.id, agent.label, record, this.deps.now());
    if (slice.hold) agent.putHold(slice.hold);
    else this.armTimer(agent.run, slice);
  }

  /** The slice `agent` was given, if any. */
  ownSliceOf(agent: Agent): BudgetSlice | undefined {
    return slicesOf(agent.run.budget)?.ownOf(agent.id);
  }

  added(agent: Agent): void {
    const parent = this.deps.agents.parentOf(agent);
    const starting = this.starting;
    if (starting && parent === starting.parent) {
      this.starting = undefined;
      this.armTimer(agent.run, sliceBookOf(agent.run.budget).give(agent.id, starting.slice));
    }
    const book = slicesOf(agent.run.budget);
    if (!book) return;
    const slice = book.join(agent.id, parent?.id);
    // A child started by a paused branch (a tool of its stopped turn) waits for the raise too.
    for (let s = slice; s; s = s.parent) if (s.hold) return agent.putHold(s.hold);
  }

  removed(agent: Agent): void {
    const closed = slicesOf(agent.run.budget)?.leave(agent.id);
    if (closed) this.clearTimer(closed);
  }

  /** Looks at the slices `agent` spends from now (after a response's usage, when a timer is up). */
  check(agent: Agent, streaming?: Agent): void {
    const slice = slicesOf(agent.run.budget)?.of(agent.id);
    if (!slice) return;
    const spent = spentSliceOf(slice, this.deps.now());
    if (spent && !spent.slice.hold) this.pause(agent.run, spent.slice, spent.reason, streaming);
  }

  /** A turn ended against a slice's hold: the gate found it spent first (model calls), or the branch was paused. */
  turnEnded(agent: Agent, hold: Hold): void {
    if (hold.reason !== 'slice' || hold.slice === undefined) return;
    const slice = slicesOf(agent.run.budget)?.ownOf(hold.slice);
    if (!slice) return;
    if (!slice.hold) this.pause(agent.run, slice, hold.detail ?? 'its budget is spent');
    const held = slice.hold;
    if (held && agent.kind !== 'one-shot' && agent.holds.some((h) => h.reason === 'slice')) agent.putHold({ ...held, interrupted: true });
    // An unattended branch's owner has its BLOCKED result: the branch ends, its parent gets the report.
    if (hold.report !== undefined && agent.id === slice.owner && agent.kind === 'continuable' && this.deps.end) {
      // The deepest first, the owner last: its report reaches its parent after the branch is gone.
      for (const a of this.branchOf(agent.run, slice).filter((b) => b.kind === 'continuable').reverse()) void this.deps.end(a);
    }
  }

  /** Pause the branch of `slice`: every agent of it is held, every running one stopped, as a run pause does. */
  pause(run: AgentRun, slice: BudgetSlice, reason: string, streaming?: Agent): void {
    if (slice.hold || slice.closed) return;
    const owner = this.deps.agents.get(slice.owner);
    if (!owner || !this.deps.agents.isLive(owner)) return;
    const agents = this.branchOf(run, slice);
    const report = run.policy.unattended ? branchReport(slice, reason, agents, this.deps.now()) : undefined;
    const hold = newHold('slice', { detail: reason, slice: slice.owner });
    slice.hold = hold;
    this.clearTimer(slice);
    const withReport = report ? { ...hold, report } : hold;
    holdAll(agents, (agent) => (agent === owner ? withReport : hold), streaming);
    if (report) {
      // An idle owner still gets its BLOCKED result: a turn that ends at once, with no model call.
      if (owner.status === 'idle' && !owner.disposed) owner.send(`[Arbor] Your branch is paused: ${reason}.`, { from: 'system', wake: true });
      this.deps.fire({ type: 'slice_blocked', run, agent: owner, slice, reason, report });
    } else {
      this.deps.fire({ type: 'slice_paused', run, agent: owner, slice, reason });
    }
  }

  /**
   * Raise the slice `owner` was given and let its branch go on. Without `limits`, each measure at
   * or past 80% is doubled until it is below. Limits under which the slice is still spent are
   * refused (INPUT_INVALID). The run's own budgets are not raised: the run's total still caps.
   */
  raise(owner: Agent, limits?: Partial<SliceLimits>): SliceLimits {
    const slice = this.ownSliceOf(owner);
    if (!slice || slice.closed) throw new ArborError('INPUT_INVALID', `"${owner.label}" was not started with a budget of its own; raise the run's limit instead.`);
    const now = this.deps.now();
    const next = limits ? { ...slice.limits, ...limits } : raisedSlice(slice, now);
    for (const key of SLICE_KEYS) if (!(Number.isFinite(next[key]) && next[key] >= 0)) throw new ArborError('INPUT_INVALID', `A slice's ${key} must be a number of at least 0.`);
    const before = slice.limits;
    slice.limits = next;
    const still = sliceSpent(slice, now, 'modelCall');
    if (still) {
      slice.limits = before;
      throw new ArborError('INPUT_INVALID', `These limits leave the branch paused: ${still}. Raise it further.`);
    }
    const hold = slice.hold;
    slice.hold = undefined;
    slice.warned = false;
    this.armTimer(owner.run, slice);
    if (hold) this.resume(owner.run, slice);
    this.deps.fire({ type: 'slice_resumed', run: owner.run, agent: owner, slice });
    return next;
  }

  /** `agent`, freed by a raise of the run, is still held by a spent slice: that slice's raise wakes it. */
  keepsHeld(agent: Agent): boolean {
    const hold = agent.holds.find((h) => h.reason === 'slice');
    if (hold) agent.putHold({ ...hold, interrupted: true });
    return hold !== undefined;
  }

  /** How much of its slice `agent` has used, when it was given one. */
  statusOf(agent: Agent): ReturnType<typeof sliceStatus> | undefined {
    const slice = this.ownSliceOf(agent);
    return slice && sliceStatus(slice, this.deps.now());
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** Takes the slice's hold off its branch; wakes the agents it cut short that nothing else holds. */
  private resume(run: AgentRun, slice: BudgetSlice): void {
    const agents = this.branchOf(run, slice);
    const runHold = this.deps.runHoldOf(run);
    const stopped: Agent[] = [];
    for (const agent of agents) {
      const inner = heldInner(run, agent, slice);
      if (inner) continue;
      const released = agent.releaseHolds('slice-raise');
      if (!released.some((h) => h.interrupted)) continue;
      // Still under the run's pause: the run's raise wakes it.
      if (runHold && agent.holds.some((h) => h.reason === 'budget')) agent.putHold({ ...runHold, interrupted: true });
      else stopped.push(agent);
    }
    for (const agent of stopped) {
      if (this.deps.agents.isLive(agent) && !agent.disposed) agent.send(SLICE_RESUME_NOTE, { from: 'system', wake: true });
    }
  }

  /** The live agents that spend from `slice`: its owner and every agent below it. */
  private branchOf(run: AgentRun, slice: BudgetSlice): Agent[] {
    const book = slicesOf(run.budget);
    if (!book) return [];
    return this.deps.agents.all().filter((a) => {
      if (a.run !== run) return false;
      for (let s = book.of(a.id); s; s = s.parent) if (s === slice) return true;
      return false;
    });
  }

  /** A branch with wall time is looked at again when its time is up. */
  private armTimer(run: AgentRun, slice: BudgetSlice): void {
    this.clearTimer(slice);
    const seconds = slice.limits.wallTimeSeconds;
    if (seconds <= 0) return;
    const due = Math.max(0, slice.startedAt + seconds * 1000 - this.deps.now());
    const timer = setTimeout(() => {
      this.timers.delete(slice);
      const owner = this.deps.agents.get(slice.owner);
      if (owner && owner.run === run) this.check(owner);
    }, due + 10);
    timer.unref?.();
    this.timers.set(slice, timer);
  }

  private clearTimer(slice: BudgetSlice): void {
    const timer = this.timers.get(slice);
    if (timer) clearTimeout(timer);
    this.timers.delete(slice);
  }
}

/** A spent slice below `raised` in `agent`'s chain still holds it. */
function heldInner(run: AgentRun, agent: Agent, raised: BudgetSlice): BudgetSlice | undefined {
  for (let s = slicesOf(run.budget)?.of(agent.id); s && s !== raised; s = s.parent) if (s.hold) return s;
  return undefined;
}

/** The BLOCKED result of an unattended branch at its cap: what it did and what is left, written by Arbor. */
function branchReport(slice: BudgetSlice, reason: string, agents: readonly Agent[], now: number): string {
  const cost = slice.cost > 0 ? `, ${formatCost(slice.cost)}` : '';
  const limits = sliceStatus(slice, now).measures.map((m) => m.text).join(', ');
  return [
    `BLOCKED: this branch reached its budget (${reason}), so it was stopped before it finished.`,
    '',
    `Done: ${slice.modelCallsUsed} model call(s), ${formatCount(slice.tokensUsed)} tokens${cost} (${limits}), by ${agents.length} agent(s):`,
    ...blockedLines(agents, '- Every agent of the branch has ended: start a new subagent with a larger budget to continue.'),
  ].join('\n');
}

