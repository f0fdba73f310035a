import type { Agent, AgentRun } from '../agents/agent';
import { newHold, type Hold } from '../agents/holds';
import { ArborError } from '../errors';
import { resolveLimits, type RunBudget, type RunLimits, type RunLimitsInput } from '../limits';
import { blockedReport } from './blockedReport';
import { holdAll } from './holdAll';
import { RESUME_NOTE, type BudgetEvent } from './budgetEvent';
import { spentBudget } from './budgetStatus';
import { raisedLimits } from './raisedLimits';

/**
 * A run at its cap and its raise (budgetGuard.ts keeps the runs; these are in a part, budgetPart.ts,
 * since most runs never reach a limit). The invariants are the budget guard's.
 */

/** What the budget guard keeps of each run. */
export interface RunEntry {
  root: Agent | undefined;
  warned: boolean;
  /** The hold every agent of the run is under while a budget is spent; a raise takes it off. */
  hold: Hold | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** The budget guard's state and events, as pausing and raising a run use them. */
export interface RunCapsHost {
  entry(run: AgentRun): RunEntry;
  agentsOf(run: AgentRun): Agent[];
  isLive(agent: Agent): boolean;
  fire(event: BudgetEvent): void;
  clearTimer(entry: RunEntry): void;
  armTimer(run: AgentRun, entry: RunEntry): void;
  now(): number;
  /** A spent slice still holds `agent` after the run's raise (its slice's raise wakes it). */
  keepsHeld(agent: Agent): boolean;
}

/**
 * Pause the whole run: every agent gets the run's `budget` hold, and every running one has its
 * turn cancelled with cause `budget` and its queue held. An unattended run ends BLOCKED instead
 * of waiting for a raise. A paused run is left alone.
 */
export function pauseRun(host: RunCapsHost, run: AgentRun, reason: string, streaming?: Agent): void {
  const entry = host.entry(run);
  if (entry.hold) return;
  const root = entry.root && host.isLive(entry.root) ? entry.root : undefined;
  const agents = host.agentsOf(run);
  const unattended = root?.run.policy.unattended ?? false;
  const report = unattended && root ? blockedReport(run.budget, reason, agents) : undefined;
  const hold = newHold('budget', { detail: reason });
  entry.hold = hold;
  host.clearTimer(entry);
  const withReport = report ? { ...hold, report } : hold;
  // The root's interrupted hold carries the report too: whichever of its holds is read, it says BLOCKED.
  holdAll(agents, (agent) => (agent === root ? withReport : hold), streaming);
  if (report && root) {
    // An idle root still gets its BLOCKED result: a turn that ends at once, with no model call.
    if (root.status === 'idle' && !root.disposed) root.send(`[Arbor] The run is paused: ${reason}.`, { from: 'system', wake: true });
    host.fire({ type: 'blocked', run, root, reason, report });
  } else {
    host.fire({ type: 'paused', run, root, reason });
  }
}

/**
 * Raise the run's limits and go on. Without `limits`, each spent budget is doubled (until it
 * has room again). Limits under which a budget is still spent are refused (INPUT_INVALID).
 */
export function raiseRun(host: RunCapsHost, run: AgentRun, limits?: RunLimitsInput): RunLimits {
  const now = host.now();
  const next = limits ? resolveLimits({ ...run.budget.limits, ...limits }) : raisedLimits(run.budget, now);
  const probe = { ...run.budget, limits: next } as RunBudget;
  const still = spentBudget(probe, now, 'turn') ?? spentBudget(probe, now, 'modelCall');
  if (still) throw new ArborError('INPUT_INVALID', `These limits leave the run paused: ${still}. Raise it further.`);
  const entry = host.entry(run);
  run.budget.limits = next;
  entry.hold = undefined;
  entry.warned = false;
  host.armTimer(run, entry);
  // Every hold comes off before any agent is woken, as it went on before any was stopped.
  const stopped = host.agentsOf(run).filter((agent) => agent.releaseHolds('raise').some((h) => h.interrupted));
  for (const agent of stopped) {
    // A branch whose own budget is spent goes on with its slice's raise.
    if (!host.keepsHeld(agent) && host.isLive(agent) && !agent.disposed) agent.send(RESUME_NOTE, { from: 'system', wake: true });
  }
  host.fire({ type: 'resumed', run, root: entry.root, limits: next });
  return next;
}
