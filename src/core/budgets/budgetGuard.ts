import type { Agent, TurnEnd } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';
import type { RuntimeEvent } from '../agents/runtimeEvent';
import { ArborError } from '../errors';
import { Emitter, type Disposable } from '../events';
import { resolveLimits, type RunBudget, type RunLimits, type RunLimitsInput } from '../limits';
import { blockedReport } from './blockedReport';
import { budgetStatus, spentBudget, type BudgetStatus } from './budgetStatus';
import { priceTableSchema, type PriceTable } from './prices';
import { raisedLimits } from './raisedLimits';
import type { RunawaySettingsInput } from './runaway';
import { RunawayGuard, type RunawayEvent } from './runawayGuard';

/**
 * The budget guard watches every run on the core's event channel and keeps its budgets.
 *
 * Invariants:
 * - At 80% of a run budget the run warns once (until a raise); at 100% the run is paused, never
 *   killed: every agent of the run has its turn cancelled with cause `budget` and its queue
 *   parked, exactly as a Stop would, so conversations and queued work are kept. A paused run
 *   starts no turn and no model call (the turn loop checks `RunBudget.pauseReason`).
 * - `raise` lifts the pause only with limits under which no budget is spent, and wakes exactly
 *   the agents the pause stopped, with a note that tells them to continue.
 * - An unattended run (scheduled, webhook, autonomous) cannot wait for a raise: at its cap its
 *   root ends BLOCKED, its final result a report of what was done and what is left.
 * - A runaway guard warns once per agent (until a person speaks to it) and, when the setting
 *   says so, pauses that agent alone the same way.
 */

export type BudgetEvent =
  | { type: 'warning'; run: RunBudget; root: Agent | undefined; status: BudgetStatus }
  | { type: 'paused'; run: RunBudget; root: Agent | undefined; reason: string }
  | { type: 'blocked'; run: RunBudget; root: Agent | undefined; reason: string; report: string }
  | { type: 'resumed'; run: RunBudget; root: Agent | undefined; limits: RunLimits }
  | RunawayEvent;

export interface BudgetGuardDeps {
  onEvent: (listener: (event: RuntimeEvent) => void) => Disposable;
  agents: Pick<AgentRegistry, 'all' | 'isLive' | 'parentOf'>;
  /** Whether a tool only reads (its calls change nothing). */
  isReadOnlyTool: (name: string) => boolean;
  now?: () => number;
  runaway?: RunawaySettingsInput;
  /** What each model's tokens cost; parsed here (a bad table throws). */
  prices?: unknown;
}

interface RunEntry {
  root: Agent | undefined;
  warned: boolean;
  /** The agents the current pause stopped (a raise wakes them). */
  stopped: Set<Agent>;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export const RESUME_NOTE = "[Arbor] The run's limit was raised. Continue where you left off.";

export class BudgetGuard {
  private readonly events = new Emitter<BudgetEvent>();
  readonly onEvent = this.events.on;
  private readonly runs = new Map<RunBudget, RunEntry>();
  private readonly runaway: RunawayGuard;
  private readonly subscription: Disposable;
  private readonly now: () => number;
  private prices: PriceTable;

  constructor(private readonly deps: BudgetGuardDeps) {
    this.now = deps.now ?? Date.now;
    this.prices = priceTableSchema.parse(deps.prices ?? {});
    this.runaway = new RunawayGuard(deps.isReadOnlyTool, (e) => this.events.fire(e), (a) => deps.agents.isLive(a), deps.runaway);
    this.subscription = deps.onEvent((event) => this.handle(event));
  }

  /** The runaway guards' settings from now on (a bad value throws and changes nothing). */
  setRunaway(settings: RunawaySettingsInput): void {
    this.runaway.configure(settings);
  }

  /** The price table runs started from now on count their cost with (a bad table throws and changes nothing). */
  setPrices(prices: unknown): void {
    this.prices = priceTableSchema.parse(prices ?? {});
  }

  /** What a new run counts its budget with: the current prices and the guard's clock. */
  newRunBudget(): { prices: PriceTable; clock: () => number } {
    return { prices: this.prices, clock: this.now };
  }

  /** Let an agent a runaway guard paused go on (its warning is cleared too). */
  resumeAgent(agent: Agent): void {
    this.runaway.resume(agent);
  }

  /** How much of each budget the run has used, and whether it warns or is spent. */
  status(run: RunBudget): BudgetStatus {
    return budgetStatus(run, this.now());
  }

  /** The live agents of a run, in no particular order. */
  agentsOf(run: RunBudget): Agent[] {
    return this.deps.agents.all().filter((a) => a.run === run);
  }

  /** The runs that have a live agent, each with its root (when that is still live). */
  liveRuns(): Array<{ run: RunBudget; root: Agent | undefined }> {
    const seen = new Set<RunBudget>();
    for (const agent of this.deps.agents.all()) seen.add(agent.run);
    return [...seen].map((run) => ({ run, root: this.runs.get(run)?.root }));
  }

  /**
   * Looks at the run's budgets now (the wall-time timer does, and anyone who changed the clock).
   * `streaming` is the agent whose reply just spent the budget: it is not cancelled, so its reply
   * is kept whole; its turn loop runs none of the reply's tool calls and ends paused. Its queue
   * is parked all the same, so what arrives while that turn closes waits for the raise.
   */
  check(run: RunBudget, streaming?: Agent): void {
    if (run.paused) return;
    const spent = spentBudget(run, this.now());
    if (spent) {
      this.pause(run, spent, streaming);
      return;
    }
    const entry = this.entry(run);
    if (entry.warned) return;
    const status = budgetStatus(run, this.now());
    if (status.level === 'warning') {
      entry.warned = true;
      this.events.fire({ type: 'warning', run, root: entry.root, status });
    }
  }

  /**
   * Pause the whole run: every agent's turn is cancelled with cause `budget`, its queue parked.
   * An unattended run ends BLOCKED instead of waiting for a raise. A paused run is left alone.
   */
  pause(run: RunBudget, reason: string, streaming?: Agent): void {
    if (run.paused) return;
    const entry = this.entry(run);
    const root = entry.root && this.deps.agents.isLive(entry.root) ? entry.root : undefined;
    const agents = this.agentsOf(run);
    const unattended = root?.run.policy.unattended ?? false;
    const report = unattended && root ? blockedReport(run, reason, agents) : undefined;
    run.paused = { reason, blocked: report && root ? { rootId: root.id, report } : undefined };
    entry.stopped.clear();
    this.clearTimer(entry);
    for (const agent of agents) {
      if (agent.kind === 'one-shot') continue;
      // The agent whose reply spent the budget finishes that reply, but its queue waits for the raise too.
      const stopped = agent === streaming ? agent.parkQueue() : agent.cancel('budget', { keepInbox: true });
      if (stopped) entry.stopped.add(agent);
    }
    if (report && root) {
      // An idle root still gets its BLOCKED result: a turn that ends at once, with no model call.
      if (root.status === 'idle' && !root.disposed) root.send(`[Arbor] The run is paused: ${reason}.`, { from: 'system', wake: true });
      this.events.fire({ type: 'blocked', run, root, reason, report });
    } else {
      this.events.fire({ type: 'paused', run, root, reason });
    }
  }

  /**
   * Raise the run's limits and go on. Without `limits`, each spent budget is doubled (until it
   * has room again). Limits under which a budget is still spent are refused (INPUT_INVALID).
   */
  raise(run: RunBudget, limits?: RunLimitsInput): RunLimits {
    const now = this.now();
    const next = limits ? resolveLimits({ ...run.limits, ...limits }) : raisedLimits(run, now);
    const probe = { ...run, limits: next } as RunBudget;
    const still = spentBudget(probe, now, 'turn') ?? spentBudget(probe, now, 'modelCall');
    if (still) throw new ArborError('INPUT_INVALID', `These limits leave the run paused: ${still}. Raise it further.`);
    const entry = this.entry(run);
    run.limits = next;
    run.paused = undefined;
    entry.warned = false;
    const stopped = [...entry.stopped];
    entry.stopped.clear();
    this.armTimer(run, entry);
    for (const agent of stopped) {
      if (this.deps.agents.isLive(agent) && !agent.disposed) agent.send(RESUME_NOTE, { from: 'system', wake: true });
    }
    this.events.fire({ type: 'resumed', run, root: entry.root, limits: next });
    return next;
  }

  dispose(): void {
    this.subscription.dispose();
    for (const entry of this.runs.values()) this.clearTimer(entry);
    this.runs.clear();
    this.runaway.dispose();
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
        return;
      case 'turn_end':
        this.turnEnded(agent, change.end);
        return;
      case 'log':
        this.runaway.logged(agent, change.event);
        return;
      default:
        return;
    }
  }

  private added(agent: Agent): void {
    const run = agent.run;
    if (agent.kind === 'root') {
      const entry = this.entry(run);
      entry.root = agent;
      this.armTimer(run, entry);
      return;
    }
    run.liveSubagents++;
    run.deepest = Math.max(run.deepest, agent.delegationDepth);
  }

  private removed(agent: Agent): void {
    this.runaway.forget(agent);
    if (agent.kind !== 'root') {
      agent.run.liveSubagents = Math.max(0, agent.run.liveSubagents - 1);
      return;
    }
    const entry = this.runs.get(agent.run);
    if (entry?.root === agent && !this.agentsOf(agent.run).some((a) => a !== agent)) {
      this.clearTimer(entry);
      this.runs.delete(agent.run);
    }
  }

  private turnEnded(agent: Agent, { reason, paused, message }: TurnEnd): void {
    if (reason === 'completed') this.runaway.turnCompleted(agent);
    if (!paused) return;
    const run = agent.run;
    if (run.paused) {
      // A turn that started while paused (a report woke its parent, a message arrived) and ended
      // at once: the raise wakes it with the others.
      if (agent.kind !== 'one-shot') this.entry(run).stopped.add(agent);
      return;
    }
    // The turn loop found a budget spent before the guard did (turns, model calls): pause the run.
    if (run.agentPause(agent.id)) return;
    this.pause(run, message ?? 'a run budget is spent');
    if (agent.kind !== 'one-shot') this.entry(run).stopped.add(agent);
  }

  private entry(run: RunBudget): RunEntry {
    let entry = this.runs.get(run);
    if (!entry) {
      entry = { root: undefined, warned: false, stopped: new Set(), timer: undefined };
      this.runs.set(run, entry);
    }
    return entry;
  }

  /** A run with a wall-time budget is looked at again when its time is up. */
  private armTimer(run: RunBudget, entry: RunEntry): void {
    this.clearTimer(entry);
    const seconds = run.limits.maxWallTimeSeconds;
    if (seconds <= 0) return;
    const due = Math.max(0, run.startedAt + seconds * 1000 - this.now());
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
