import type { Agent, TurnEnd, TurnEngine } from '../agents/agent';
import type { ClosableSessionLog, DurableSessionStore } from '../agents/endedAgentLogs';
import { newHold } from '../agents/holds';
import type { AgentRegistry } from '../agents/registry';
import { readSessionSnapshot, type SessionSnapshot } from '../agents/sessionSnapshot';
import { ArborError, asArborError, errnoOf, isArborError, type ArborErrorCode } from '../errors';
import { resolveInteractionPolicy } from '../interaction';
import { resolveLimits, type RunLimits } from '../limits';
import type { ModelProvider } from '../models/types';
import type { OnProblem } from '../problems';
import { Run } from '../run';
import type { RunGate } from '../agents/agentRun';
import type { PriceTable } from '../budgets/prices';
import type { Hold } from '../agents/holds';
import type { SliceRecordData } from '../budgets/sliceRequest';
import type { WriteScope } from '../scopes/writeScope';
import type { SessionLog } from '../sessions/types';
import type { WorkspacePort } from '../workspace/port';
import type { EndedRowRecord, LiveAgentRecord, LiveRootRecord, LiveRunRecord, WorktreeLinkRecord } from './liveRecord';
import { deferredSnapshot, reserve } from './deferredLog';
import { LiveRecordFiles } from './liveRecordFiles';
import { readLiveRecords, setAside } from './liveRecordReading';

/** Something restore could not put back: the session it concerns (when known) and why. */
export interface RestoreProblem {
  readonly sessionId?: string;
  readonly code: ArborErrorCode;
  readonly message: string;
}

/** A restored agent and what the editor kept of it (ended rows, its run's worktree). */
export interface RestoredAgent {
  readonly agent: Agent;
  /** Where it stood among its siblings in the window that recorded it (its creation order there). */
  readonly recordedOrder: number;
  readonly ended: readonly EndedRowRecord[];
  readonly worktree?: WorktreeLinkRecord;
}

export interface RestoreReport {
  /** The roots put back, in the order they were in the tree. */
  readonly roots: Agent[];
  /** Agents whose turn was running when the window went away: held `reload`, marked interrupted. */
  readonly interrupted: Agent[];
  readonly problems: RestoreProblem[];
  /** Every agent put back (roots and their continuable children), with the editor's parts of its record. */
  readonly agents: RestoredAgent[];
}

export interface RestoreLiveOptions {
  /** The run's own model (the demo's scripted one) when the record names one; the window's otherwise. */
  modelFor?(run: LiveRunRecord, rootLabel: string): ModelProvider | undefined;
  /** For a session an external agent ran: the engine that reopens it (in `run`'s folder); without one it is not put back. */
  externalEngine?(log: SessionLog, run: LiveRunRecord): TurnEngine<Agent> | Promise<TurnEngine<Agent>>;
  /** Lines for the log: what was put back, what was dropped. */
  log?(line: string): void;
}

/** What restore needs of the runtime (runtime.ts gives it; nothing else calls these). */
export interface RestoreHost {
  readonly store: DurableSessionStore;
  /** The sessions folder, where the records are (live/). */
  readonly folder: string;
  readonly agents: AgentRegistry;
  readonly onProblem: OnProblem;
  defaultLimits(): RunLimits;
  newRunBudget(): { prices: PriceTable; clock: () => number; gate: RunGate };
  /** Puts a spent budget's pause back on a run before its agents join it. */
  restorePause(run: Run, hold: Hold): void;
  /** Gives a restored agent back its slice, before it joins the run (so its branch spends from it). */
  restoreSlice?(agent: Agent, slice: SliceRecordData): void;
  /** Gives a restored agent back its write scope, before it can write. */
  restoreScope?(agent: Agent, scope: WriteScope): void;
  /** Makes (not registers) a root over a reopened session. */
  makeRoot(label: string, run: Run, past: SessionSnapshot, planMode: boolean, engine?: TurnEngine<Agent>): Agent;
  /** Makes (not registers) a continuable child of `parent` over a reopened session. */
  makeChild(parent: Agent, label: string, past: SessionSnapshot, engine?: TurnEngine<Agent>): Agent;
  /** Registers a made root, with no owner. */
  addRoot(agent: Agent): void;
  /** Registers a made child under `parent` and gives it back its Activation. */
  adoptChild(parent: Agent, child: Agent): void;
  isOpen(): boolean;
  /** The files of a run's own folder (a worktree run's). */
  workspaceFor(folder: string): WorkspacePort;
}

/** A session taken over: its log, read now (`past` absent) or later (`past` from its record, its log deferred). */
type Opened = { log: ClosableSessionLog; engine?: TurnEngine<Agent>; past?: SessionSnapshot } | { error: unknown };

/**
 * Puts back every root that was live in this folder's windows when they went away, each with
 * its live subtree, from the live-state records (liveRecord.ts) and the sessions' own logs.
 * A session whose log still has the length its record names is not read: the agent is built
 * from the record and reads its log when it needs it (deferredLog.ts). Only a root whose turn
 * was running is read at once (the question it may have been waiting on is asked again), and
 * any session whose record is older than its log, or an external agent's.
 *
 * Invariants:
 * - Never throws: a record or session that cannot be used is a problem of its own root (or of
 *   its own subtree, for a child), and everything else is put back.
 * - A session another live window writes is never taken: the session lock refuses it
 *   (SESSION_IN_USE), and a record written by another process that is still running is left
 *   to that window without trying.
 * - A turn that was running is not run again: the agent comes back held (`reload`, marked
 *   interrupted) with what the turn had streamed and the tool results it had received, and a
 *   waking send (or Runtime.resumeInterrupted) continues it. A question or approval that was
 *   open is asked again instead, as Resume does.
 * - A record whose root session no longer exists is removed, with a log line.
 */
export async function restoreLive(host: RestoreHost, options: RestoreLiveOptions): Promise<RestoreReport> {
  const report: RestoreReport = { roots: [], interrupted: [], problems: [], agents: [] };
  const problem = (sessionId: string | undefined, err: unknown): void => {
    const error = asArborError(err, 'INTERNAL');
    report.problems.push({ ...(sessionId ? { sessionId } : {}), code: error.code, message: error.message });
    host.onProblem(`Arbor: could not put back ${sessionId ? `session ${sessionId}` : 'a live-state record'}`, error);
  };
  const files = new LiveRecordFiles(host.folder);
  const { records, problems } = await readLiveRecords(files);
  for (const p of problems) {
    problem(p.sessionId, p.error);
    await setAside(p.file);
  }
  const mine = records.filter((record) => {
    if (record.pid === process.pid || !processRuns(record.pid)) return true;
    options.log?.(`Left "${record.agents[0].label}" (${record.root}) to the window of process ${record.pid}, which runs it.`);
    return false;
  });
  mine.sort((a, b) => a.agents[0].order - b.agents[0].order);
  // Roots first, all at once (the store's pool bounds the file operations), with the children
  // whose logs wait (a lock and a length each, so the lock file is written once for all); then
  // the children to read, of the roots that opened.
  const waiting = mine.map((record) => record.agents.slice(1).map((a) => (deferrable(host, a, false) ? open(host, a, record.run, options, false) : undefined)));
  const roots = await Promise.all(mine.map((record) => open(host, record.agents[0], record.run, options, true)));
  const dropped: Promise<void>[] = [];
  const usable = mine.filter((record, i) => {
    const opened = roots[i];
    if (!('error' in opened)) return true;
    // Not put back: its waiting children's sessions are let go unread.
    for (const child of waiting[i]) void child?.then((o) => ('error' in o ? undefined : o.log.close())).catch(() => undefined);
    if (isArborError(opened.error, 'SESSION_NOT_FOUND')) {
      options.log?.(`Dropped the live-state record of ${record.root}: its session no longer exists.`);
      dropped.push(files.remove(record.root).catch((err: unknown) => host.onProblem(`Arbor: could not remove the live-state record of ${record.root}`, err)));
    } else problem(record.root, opened.error);
    return false;
  });
  await Promise.all(dropped);
  const rootLogs = roots.filter((o): o is Exclude<Opened, { error: unknown }> => !('error' in o));
  const waitingOf = new Map(mine.map((record, i) => [record, waiting[i]]));
  const children = await Promise.all(usable.map((record) => Promise.all(record.agents.slice(1).map((a, i) => waitingOf.get(record)?.[i] ?? open(host, a, record.run, options, false)))));
  for (let i = 0; i < usable.length; i++) {
    try {
      build(host, usable[i], rootLogs[i], children[i], report, problem, options);
    } catch (err) {
      // A failure nobody foresaw is this root's alone: the others are put back all the same.
      problem(usable[i].root, err);
    }
    // One root's tree at a time, then the event loop: the views paint rows as they come, and a
    // window with many roots is never frozen for all of them at once.
    if (i + 1 < usable.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return report;
}

async function open(host: RestoreHost, agent: LiveAgentRecord, run: LiveRunRecord, options: RestoreLiveOptions, root: boolean): Promise<Opened> {
  const id = agent.id;
  if (host.agents.get(id)) return { error: new ArborError('SESSION_IN_USE', `Session ${id} is already live in this window.`, { id }) };
  const past = agent.past;
  const store = host.store;
  if (past && deferrable(host, agent, root)) {
    let reserved: Awaited<ReturnType<typeof reserve>>;
    try {
      reserved = await reserve(store, id);
    } catch (error) {
      return { error };
    }
    // The log is as the record saw it: the record is all the tree needs, and the log waits.
    if (reserved && reserved.length === past.length) {
      const log = deferredSnapshot(agent, past, reserved.length, { reopen: () => store.reopenLog(id), release: reserved.release, releaseSync: reserved.releaseSync });
      return { log: log.log as ClosableSessionLog, past: log };
    }
    // Written after its record (a crash, a record not yet rewritten): the log says what is true.
  }
  let log: ClosableSessionLog;
  try {
    log = await host.store.reopenLog(id);
  } catch (error) {
    return { error };
  }
  if (!log.header.external) return { log };
  try {
    if (!options.externalEngine) throw new ArborError('EXTERNAL_NOT_RESUMABLE', `"${log.header.label}" was run by the external agent ${log.header.external}, which is not started again here; resume it from History.`);
    return { log, engine: await options.externalEngine(log, run) };
  } catch (error) {
    // The session was not taken: letting it go is all that is left, and its failure is the store's to report.
    void log.close().catch(() => undefined);
    return { error };
  }
}

/** The agent's record says all the tree shows of it, and its log may wait: not an external agent's, nor a root's turn that was running (its question is asked again). */
function deferrable(host: RestoreHost, agent: LiveAgentRecord, root: boolean): boolean {
  const past = agent.past;
  return past !== undefined && host.store.lockOf !== undefined && !past.header.external && past.header.id === agent.id && !(root && agent.running);
}

function build(host: RestoreHost, record: LiveRootRecord, root: { log: ClosableSessionLog; engine?: TurnEngine<Agent>; past?: SessionSnapshot }, opened: Opened[], report: RestoreReport, problem: (id: string, err: unknown) => void, options: RestoreLiveOptions): void {
  const closeAll = (): void => {
    // Shut down while restoring: the sessions go back as they were, and the store reports a failed write.
    for (const o of [root, ...opened]) if (!('error' in o)) void o.log.close().catch(() => undefined);
  };
  if (!host.isOpen()) return closeAll();
  const [head] = record.agents;
  const run = newRun(host, record.run, head.label, options);
  const past = root.past ?? readSessionSnapshot(root.log, { resumeWaiting: true });
  const agent = host.makeRoot(head.label, run, past, head.planMode ?? false, root.engine);
  if (head.scope) host.restoreScope?.(agent, head.scope);
  carryOver(run, record);
  const live = new Map<string, Agent>([[head.id, agent]]);
  // Holds go on before the agent is registered: its first row already shows them.
  const asks = settle(agent, head, past, report, true, record.run.worktree);
  host.addRoot(agent);
  if (asks) agent.continueWaitingCall(asks.call, asks.since);
  report.roots.push(agent);
  record.agents.slice(1).forEach((child, i) => {
    const o = opened[i];
    const parent = child.parent ? live.get(child.parent) : undefined;
    if ('error' in o) {
      if (isArborError(o.error, 'SESSION_NOT_FOUND')) options.log?.(`Dropped ${child.id} ("${child.label}") from the tree of ${record.root}: its session no longer exists.`);
      else problem(child.id, o.error);
      return;
    }
    if (!parent || o.log.header.kind !== 'continuable' || o.log.header.parentSession !== parent.id) {
      // Its parent was not put back, or its session is not that parent's child: the session is let go, untouched (the store reports a failed write).
      if (parent) problem(child.id, new ArborError('LIVE_RECORD_UNREADABLE', `The live-state record of ${record.root} lists ${child.id} under ${parent.id}, but that session is not its continuable subagent; it was not put back.`, { id: child.id }));
      void o.log.close().catch(() => undefined);
      return;
    }
    const snapshot = o.past ?? readSessionSnapshot(o.log);
    const restored = host.makeChild(parent, child.label, snapshot, o.engine);
    settle(restored, child, snapshot, report, false);
    if (child.slice) host.restoreSlice?.(restored, child.slice);
    if (child.scope) host.restoreScope?.(restored, child.scope);
    host.adoptChild(parent, restored);
    live.set(child.id, restored);
  });
  options.log?.(`Put back "${head.label}" (${head.id}) with ${live.size - 1} live subagent(s).`);
}

/**
 * The agent's holds and warning as recorded; a turn cut short is held interrupted. Returns the
 * question or approval to ask again (a root only), which the caller runs once it is registered.
 */
function settle(agent: Agent, record: LiveAgentRecord, past: SessionSnapshot, report: RestoreReport, asks: boolean, worktree?: WorktreeLinkRecord): SessionSnapshot['waiting'] {
  for (const hold of record.holds) agent.putHold(hold);
  if (record.warning !== undefined) agent.run.budget.warnAgent(agent.id, record.warning);
  report.agents.push({ agent, recordedOrder: record.order, ended: record.ended ?? [], ...(worktree ? { worktree } : {}) });
  if (asks && past.waiting) return past.waiting;
  if (record.running || cutShort(past.lastTurnEnd)) {
    agent.putHold(newHold('reload', { interrupted: true }));
    report.interrupted.push(agent);
  }
  return undefined;
}

/** The turn ended because the window went away: the shutdown aborted it, or a crash left it open. */
function cutShort(end: TurnEnd | undefined): boolean {
  return end?.reason === 'interrupted' || (end?.reason === 'aborted' && end.cause === 'disposed');
}

function newRun(host: RestoreHost, record: LiveRunRecord, label: string, options: RestoreLiveOptions): Run {
  let limits: RunLimits;
  try {
    limits = resolveLimits(record.limits);
  } catch {
    // Limits this version no longer accepts: the run goes on under today's defaults.
    limits = host.defaultLimits();
  }
  const workspace = record.folder ? { folder: record.folder, files: host.workspaceFor(record.folder) } : undefined;
  const run = new Run(limits, resolveInteractionPolicy({ interactionMode: record.mode }), options.modelFor?.(record, label), workspace, host.newRunBudget());
  if (record.paused) host.restorePause(run, record.paused);
  return run;
}

function carryOver(run: Run, record: LiveRootRecord): void {
  const r = record.run;
  run.budget.carryOver(
    { tokensUsed: r.tokensUsed, turnsUsed: r.turnsUsed, modelCallsUsed: r.modelCallsUsed, cost: r.cost, unpricedTokens: r.unpricedTokens, wallSeconds: r.wallSeconds },
    record.agents.map((a) => [a.id, a.cost] as const),
  );
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user's process.
    return errnoOf(err) === 'EPERM';
  }
}
