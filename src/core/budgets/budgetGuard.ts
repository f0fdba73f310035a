import type { Agent, AgentRun, TurnEnd } from '../agents/agent';
import type { RunGate } from '../agents/agentRun';
import type { Hold } from '../agents/holds';
import type { AgentRegistry } from '../agents/registry';
import type { OnRuntimeEvents, RuntimeEvent } from '../agents/runtimeEvent';
import { Emitter, type Disposable } from '../events';
import type { RunLimits, RunLimitsInput } from '../limits';
import { budgetPart } from '../parts';
import { RESUME_NOTE, type BudgetEvent } from './budgetEvent';
import { budgetGate } from './budgetGate';
import { budgetLevel, budgetStatus, hasRunBudget, spentBudget, type BudgetStatus } from './budgetStatus';
import { priceTableSchema, type PriceTable } from './prices';
import type { RunawaySettingsInput } from './runaway';
import { RunawayGuard } from './runawayGuard';
import type { RunCapsHost, RunEntry } from './runCaps';
import type { SliceGuardDeps } from './sliceEvents';
import type { SliceGuard } from './sliceGuard';

/**
 * The budget guard watches every run on the core's event channel and keeps its budgets.
 *
 * Invariants:
 * - At 80% of a run budget the run warns once (until a raise); at 100% the run is paused, never
 *   killed: every agent of the run gets a `budget` hold (agents/holds.ts), and every one that is
 *   running has its turn cancelled with cause `budget` and its queue held, exactly as a Stop
 *   would, so conversations and queued work are kept. A held agent starts no model call (the
 *   turn loop asks the agent's gate); an agent that joins a paused run is held too.
 * - A budget counted in turns or model calls may be met by a turn first (budgetGate.ts): that
 *   turn ends held, and the guard then pauses the run.
 * - `raise` lifts the pause only with limits under which no budget is spent: it takes off every
 *   `budget` hold and wakes exactly the agents whose hold cut work short (`interrupted`), with a
 *   note that tells them to continue.
 * - An unattended run (scheduled, webhook, autonomous) cannot wait for a raise: at its cap its
 *   root ends BLOCKED, its final result a report of what was done and what is left.
 * - A branch with a budget of its own (a slice) is kept the same way, alone, by sliceGuard.ts.
 * - A runaway guard warns once per agent (until a person speaks to it) and, when the setting
 *   says so, holds that agent alone the same way (a `runaway` hold).
 */

export type { BudgetEvent };

export interface BudgetGuardDeps {
  /** The runtime's channel: the guard hears arrivals, departures, usage, turn ends and log lines. */
  onEvents: OnRuntimeEvents;
  agents: Pick<AgentRegistry, 'all' | 'isLive' | 'parentOf' | 'get'>;
  /** Whether a tool only reads (its calls change nothing). */
  isReadOnlyTool: (name: string) => boolean;
  now?: () => number;
  runaway?: RunawaySettingsInput;
  /** What each model's tokens cost; parsed here (a bad table throws). */
  prices?: unknown;
  /** Hears a listener of `onEvent` here that throws. */
  onProblem: (problem: string, err: unknown) => void;
  /** Ends a continuable agent (an unattended branch at its cap ends so). */
  end?: (agent: Agent) => Promise<void>;
}


export { RESUME_NOTE };

export class BudgetGuard {
  private readonly events = new Emitter<BudgetEvent>((problem, err) => this.deps.onProblem(problem, err));
  readonly onEvent = this.events.on;
  private readonly runs = new Map<AgentRun, RunEntry>();
  private readonly runaway: RunawayGuard;
  private readonly sliceDeps: SliceGuardDeps;
  /** What pausing and raising a run (runCaps.ts, in the part) use of this guard. */
  private readonly caps: RunCapsHost = {
    entry: (run) => this.entry(run),
    agentsOf: (run) => this.agentsOf(run),
    isLive: (agent) => this.deps.agents.isLive(agent),
    fire: (event) => this.events.fire(event),
    clearTimer: (entry) => this.clearTimer(entry),
    armTimer: (run, entry) => this.armTimer(run, entry),
    now: () => this.now(),
    keepsHeld: (agent) => this.sliceGuard?.keepsHeld(agent) ?? false,
  };
  /** Made with the first slice asked for or put back: until then no run has one. */
  private sliceGuard: SliceGuard | undefined;
  private readonly subscription: Disposable;
  private readonly now: () => number;
  private prices: PriceTable;

  constructor(private readonly deps: BudgetGuardDeps) {
    this.now = deps.now ?? Date.now;
    this.prices = priceTableSchema.parse(deps.prices ?? {});
    this.runaway = new RunawayGuard(deps.isReadOnlyTool, (e) => this.events.fire(e), (a) => deps.agents.isLive(a), deps.runaway);
    this.sliceDeps = { agents: deps.agents, now: this.now, fire: (e) => this.events.fire(e), runHoldOf: (run) => this.holdOf(run), end: deps.end };
    this.subscription = deps.onEvents(['agent_added', 'agent_removed', 'usage', 'turn_end', 'log'], (event) => this.handle(event));
  }

  /** The runaway guards' settings from now on (a bad value throws and changes nothing). */
  setRunaway(settings: RunawaySettingsInput): void {
    this.runaway.configure(settings);
  }

  /** The price table runs started from now on count their cost with (a bad table throws and changes nothing). */
  setPrices(prices: unknown): void {
    this.prices = priceTableSchema.parse(prices ?? {});
  }

  /** What a new run counts its budget with: the current prices, the guard's clock, and the budget gate. */
  newRunBudget(): { prices: PriceTable; clock: () => number; gate: RunGate } {
    return { prices: this.prices, clock: this.now, gate: budgetGate };
  }

  /** Budgets per branch: a child's slice, its pause and its raise (loads the part; what only looks asks `run.budget.slices`). */
  get slices(): SliceGuard {
    return (this.sliceGuard ??= new (budgetPart().SliceGuard)(this.sliceDeps));
  }

  /** The hold every agent of the run is under while a budget is spent, or undefined. */
  holdOf(run: AgentRun): Hold | undefined {
    return this.runs.get(run)?.hold;
  }

  /** A run put back after a reload was paused: its agents join it held, and a raise lifts it as before. */
  restorePause(run: AgentRun, hold: Hold): void {
    this.entry(run).hold = hold;
  }

  /** Let an agent a runaway guard paused go on (its warning is cleared too). */
  resumeAgent(agent: Agent): void {
    this.runaway.resume(agent);
  }

  /** How much of each budget the run has used, and whether it warns or is spent. */
  status(run: AgentRun): BudgetStatus {
    return budgetStatus(run.budget, this.now());
  }

  /** The live agents of a run, in no particular order. */
  agentsOf(run: AgentRun): Agent[] {
    return this.deps.agents.all().filter((a) => a.run === run);
  }

  /** The runs that have a live agent, each with its root (when that is still live). */
  liveRuns(): Array<{ run: AgentRun; root: Agent | undefined }> {
    const seen = new Set<AgentRun>();
    for (const agent of this.deps.agents.all()) seen.add(agent.run);
    return [...seen].map((run) => ({ run, root: this.runs.get(run)?.root }));
  }

  /**
   * Looks at the run's budgets now (the wall-time timer does, and anyone who changed the clock).
   * `streaming` is the agent whose reply just spent the budget: it is not cancelled, so its reply
   * is kept whole; its turn loop runs none of the reply's tool calls and ends paused. Its queue
   * is parked all the same, so what arrives while that turn closes waits for the raise.
   */
  check(run: AgentRun, streaming?: Agent): void {
    if (!hasRunBudget(run.budget.limits) || this.holdOf(run)) return;
    const spent = spentBudget(run.budget, this.now());
    if (spent) return this.pause(run, spent, streaming);
    const entry = this.entry(run);
    if (entry.warned) return;
    const now = this.now();
    // The level alone first: the status with its texts is built only for the warning it sends.
    if (budgetLevel(run.budget, now) !== 'warning') return;
    entry.warned = true;
    this.events.fire({ type: 'warning', run, root: entry.root, status: budgetStatus(run.budget, now) });
  }

  /**
   * Pause the whole run: every agent gets the run's `budget` hold, and every running one has its
   * turn cancelled with cause `budget` and its queue held (runCaps.ts). A paused run is left alone.
   */
  pause(run: AgentRun, reason: string, streaming?: Agent): void {
    if (!this.entry(run).hold) budgetPart().pauseRun(this.caps, run, reason, streaming);
  }

  /**
   * Raise the run's limits and go on. Without `limits`, each spent budget is doubled (until it
   * has room again). Limits under which a budget is still spent are refused (INPUT_INVALID).
   */
  raise(run: AgentRun, limits?: RunLimitsInput): RunLimits {
    return budgetPart().raiseRun(this.caps, run, limits);
  }

  dispose(): void {
    this.subscription.dispose();
    for (const entry of this.runs.values()) this.clearTimer(entry);
    this.runs.clear();
    this.runaway.dispose();
    this.sliceGuard?.dispose();
    this.events.dispose();
  }

  // --- events --------------------------------------------------------------------------

  private handle(event: RuntimeEvent): void {
    if (event.type === 'agent_added') return this.added(event.agent);
    if (event.type === 'agent_removed') return this.removed(event.agent);
    const { agent, change } = event;
    switch (change.type) {
      case 'usage':
        this.check(agent.run, agent);
        if (agent.run.budget.slices) this.sliceGuard?.check(agent, agent);
        return;
      case 'turn_end':
        return this.turnEnded(agent, change.end);
      case 'log':
        return this.runaway.logged(agent, change.event);
      case 'status':
      case 'turn_start':
      case 'activity':
      case 'session_problem':
      case 'stop_overdue':
      case 'envelope':
      case 'disposed':
        return;
    }
  }

  private added(agent: Agent): void {
    const run = agent.run;
    // A child that joins a paused run (a tool of a stopped turn started it) waits for the raise too.
    const hold = this.holdOf(run);
    if (hold) agent.putHold(hold);
    this.sliceGuard?.added(agent);
    if (agent.kind === 'root') {
      const entry = this.entry(run);
      entry.root = agent;
      this.armTimer(run, entry);
      return;
    }
    run.budget.liveSubagents++;
    run.budget.deepest = Math.max(run.budget.deepest, agent.delegationDepth);
  }

  private removed(agent: Agent): void {
    this.runaway.forget(agent);
    this.sliceGuard?.removed(agent);
    if (agent.kind !== 'root') {
      agent.run.budget.liveSubagents = Math.max(0, agent.run.budget.liveSubagents - 1);
      return;
    }
    const entry = this.runs.get(agent.run);
    if (entry?.root === agent && !this.agentsOf(agent.run).some((a) => a !== agent)) {
      this.clearTimer(entry);
      this.runs.delete(agent.run);
    }
  }

  private turnEnded(agent: Agent, { reason, hold, message }: TurnEnd): void {
    if (reason === 'completed') this.runaway.turnCompleted(agent);
    if (!hold) return;
    if (hold.reason === 'slice') return this.sliceGuard?.turnEnded(agent, hold);
    const entry = this.entry(agent.run);
    if (!entry.hold) {
      // The turn loop found a budget spent before the guard did (turns, model calls): pause the run.
      if (agent.holds.some((h) => h.reason === 'runaway')) return;
      this.pause(agent.run, message ?? 'a run budget is spent');
    }
    // A turn that ended against the hold (a report woke it, a message came, it met the spent
    // budget): the raise wakes it with the others.
    const held = entry.hold;
    if (held && agent.kind !== 'one-shot' && agent.holds.some((h) => h.reason === 'budget')) agent.putHold({ ...held, interrupted: true });
  }

  private entry(run: AgentRun): RunEntry {
    let entry = this.runs.get(run);
    if (!entry) this.runs.set(run, (entry = { root: undefined, warned: false, hold: undefined, timer: undefined }));
    return entry;
  }

  /** A run with a wall-time budget is looked at again when its time is up. */
  private armTimer(run: AgentRun, entry: RunEntry): void {
    this.clearTimer(entry);
    const seconds = run.budget.limits.maxWallTimeSeconds;
    if (seconds <= 0) return;
    const due = Math.max(0, run.budget.startedAt + seconds * 1000 - this.now());
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.check(run);
    }, due + 10);
    entry.timer.unref?.();
  }

  private clearTimer(entry: RunEntry): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
  }
}
