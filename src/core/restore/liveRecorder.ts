import { unwrapLog, type Agent } from '../agents/agent';
import { isoNow } from '../clock';
import type { AgentRegistry } from '../agents/registry';
import { runtimeEventNamesBut, type OnRuntimeEvents, type RuntimeEvent } from '../agents/runtimeEvent';
import type { BudgetEvent } from '../budgets';
import type { Disposable } from '../events';
import type { Hold } from '../agents/holds';
import type { OnProblem } from '../problems';
import type { WriteScope } from '../scopes/writeScope';
import type { EndedRowRecord, LiveAgentRecord, LiveRootRecord, WorktreeLinkRecord } from './liveRecord';
import { draftPast, lengthOf, lengthSync, settlePast, type PastDraft } from './sessionPast';
import { LIVE_RECORD_VERSION, type LiveRecordFiles } from './liveRecordFiles';

/** What the editor keeps of an agent that the core does not: its ended-subagent rows, its run's worktree. */
export interface LiveRecordExtras {
  ended?(agent: Agent): readonly EndedRowRecord[] | undefined;
  worktree?(root: Agent): WorktreeLinkRecord | undefined;
}

/** What the record keeps changes with: everything but log lines and tools' starts. */
const RECORDED = runtimeEventNamesBut('log', 'activity');

export interface LiveRecorderDeps {
  readonly files: LiveRecordFiles;
  readonly agents: AgentRegistry;
  readonly onEvents: OnRuntimeEvents;
  onBudgetEvent(listener: (event: BudgetEvent) => void): Disposable;
  /** The pause a spent budget put on the run, if any. */
  pauseOf(agent: Agent): Hold | undefined;
  readonly onProblem: OnProblem;
  /** How long changes gather before their roots' records are written (1 s by default). */
  readonly delayMs?: number;
  /** The agent's write scope, if it has one. */
  scopeOf?(agent: Agent): WriteScope | undefined;
}

const DEFAULT_DELAY_MS = 1_000;
/** A log that can write what it holds at once (the JSONL log), or let its session go unread (deferredLog.ts). */
interface ExitLog {
  flushSync?(): void;
  releaseSync?(): void;
}

/**
 * Keeps each live root's record (liveRecord.ts) current, off the agents' path: an event only
 * marks its root changed (a set insert); a timer writes the changed roots' records together,
 * at most once per delay, and the window's last moment writes what is left synchronously
 * (`flushSync`, before the runtime aborts its turns, so a turn in flight is recorded as such).
 * An ended root's record is removed. Only roots the user started or resumed (kind `root`) have
 * one; a continuable child whose parent ended is not put back (its session stays in History).
 */
export class LiveRecorder {
  private readonly dirty = new Set<Agent>();
  private readonly ended = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private extras: LiveRecordExtras = {};
  private readonly subscriptions: Disposable[];
  private stopped = false;

  constructor(private readonly deps: LiveRecorderDeps) {
    this.subscriptions = [
      // A log line or a tool's start changes nothing the record keeps: the hot path stays free of it.
      deps.onEvents(RECORDED, (event) => this.observe(event)),
      deps.onBudgetEvent((event) => {
        if ('root' in event && event.root) this.changed(event.root);
        else if ('agent' in event) this.changed(event.agent);
      }),
    ];
  }

  /** The editor says what it keeps of agents (ended rows, worktrees); each part may add its own. */
  describeWith(extras: LiveRecordExtras): void {
    this.extras = { ...this.extras, ...extras };
  }

  /** Something the record of `agent`'s root says changed (the editor's ended rows, say). */
  changed(agent: Agent): void {
    if (this.stopped) return;
    const root = this.rootOf(agent);
    if (!root) return;
    this.dirty.add(root);
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.deps.delayMs ?? DEFAULT_DELAY_MS);
    this.timer.unref?.();
  }

  /** Writes every changed root's record now; resolves when they are on disk. */
  flush(): Promise<void> {
    const [roots, ended] = this.take();
    const step = this.writing.then(async () => {
      await Promise.all([
        ...ended.map((id) => this.deps.files.remove(id).catch((err: unknown) => this.deps.onProblem(`Arbor: could not remove the live-state record of ${id}`, err))),
        ...roots.map((root) => this.measured(root).then((record) => this.deps.files.write(record, () => !this.stopped)).catch((err: unknown) => this.deps.onProblem(`Arbor: could not save the live-state record of "${root.label}"`, err))),
      ]);
    });
    this.writing = step;
    return step;
  }

  /**
   * The window's last moment: every live root's record is written before returning (a write
   * still under way is dropped, so each record is rewritten here), and nothing after.
   */
  flushSync(): void {
    if (this.stopped) return;
    const [, ended] = this.take();
    this.stop();
    const all = this.deps.agents.all();
    const roots = all.filter((a) => a.kind === 'root');
    // Written now rather than by the store's exit flush a moment later: each record can then say
    // its logs' final length, and the next window reads none of them to put the tree back.
    for (const agent of all) {
      try {
        (unwrapLog(agent.log) as ExitLog).flushSync?.();
      } catch {
        // Not written: its record says no length, and the next window reads its log; the store's exit flush reports the failure.
      }
    }
    for (const id of ended) {
      try {
        this.deps.files.removeSync(id);
      } catch (err) {
        this.deps.onProblem(`Arbor: could not remove the live-state record of ${id}`, err);
      }
    }
    for (const root of roots) {
      try {
        this.deps.files.writeSync(this.recordOf(root));
      } catch (err) {
        this.deps.onProblem(`Arbor: could not save the live-state record of "${root.label}"`, err);
      }
    }
    // A restored session never read is let go with the window, as the store lets go its logs.
    for (const agent of all) (unwrapLog(agent.log) as ExitLog).releaseSync?.();
  }

  /** Resolves once no write started before is still under way (each then leaves no file behind). */
  settled(): Promise<void> {
    return this.writing;
  }

  /** No more records: the subscriptions and the timer go. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }

  /** The record of a live root as it stands, its sessions' lengths read now (the restore's tests read it too). */
  recordOf(root: Agent): LiveRootRecord {
    const [record, drafts] = this.draft(root);
    for (const draft of drafts) settlePast(draft, lengthSync(draft));
    return record;
  }

  /** The same, its sessions' lengths read without blocking. */
  private async measured(root: Agent): Promise<LiveRootRecord> {
    const [record, drafts] = this.draft(root);
    const lengths = await Promise.all(drafts.map(lengthOf));
    drafts.forEach((draft, i) => settlePast(draft, lengths[i]));
    return record;
  }

  /** The record as it stands, and the pasts of its sessions (sessionPast.ts), which wait for their files' lengths. */
  private draft(root: Agent): [LiveRootRecord, PastDraft[]] {
    const drafts: PastDraft[] = [];
    const run = root.run;
    const budget = run.budget;
    const agents: LiveAgentRecord[] = [];
    const queue: Array<{ agent: Agent; parent?: string }> = [{ agent: root }];
    while (queue.length) {
      const { agent, parent } = queue.shift()!;
      const record = this.agentRecord(agent, parent);
      agents.push(record);
      const draft = draftPast(agent, record);
      if (draft) drafts.push(draft);
      for (const child of this.deps.agents.childrenOf(agent)) if (child.kind === 'continuable') queue.push({ agent: child, parent: agent.id });
    }
    const worktree = this.extras.worktree?.(root);
    const paused = this.deps.pauseOf(root);
    const record: LiveRootRecord = {
      version: LIVE_RECORD_VERSION,
      root: root.id,
      writtenAt: isoNow(),
      pid: process.pid,
      run: {
        mode: run.policy.mode,
        limits: { ...budget.limits },
        tokensUsed: budget.tokensUsed,
        turnsUsed: budget.turnsUsed,
        modelCallsUsed: budget.modelCallsUsed,
        cost: budget.cost,
        unpricedTokens: budget.unpricedTokens,
        wallSeconds: budget.wallSeconds(),
        ...(run.model ? { model: run.model.id } : {}),
        ...(run.workspace ? { folder: run.workspace.folder } : {}),
        ...(worktree ? { worktree: { ...worktree } } : {}),
        ...(paused ? { paused: { ...paused } } : {}),
      },
      agents,
    };
    return [record, drafts];
  }

  private agentRecord(agent: Agent, parent: string | undefined): LiveAgentRecord {
    const budget = agent.run.budget;
    const warning = budget.agentWarning(agent.id);
    const ended = this.extras.ended?.(agent);
    const slice = budget.slices?.recordOf(agent.id, budget.clock());
    const scope = this.deps.scopeOf?.(agent);
    return {
      id: agent.id,
      ...(parent ? { parent } : {}),
      kind: agent.kind === 'root' ? 'root' : 'continuable',
      label: agent.label,
      holds: agent.holds.map((h) => ({ ...h })),
      queued: agent.pendingCount,
      running: agent.status === 'running',
      ...(agent.planMode ? { planMode: true } : {}),
      cost: budget.costOf(agent.id),
      ...(warning !== undefined ? { warning } : {}),
      ...(slice ? { slice } : {}),
      ...(scope ? { scope: { terms: scope.terms.map((t) => [...t]), globs: [...scope.globs], setBy: [...scope.setBy] } } : {}),
      ...(ended?.length ? { ended: ended.map((row) => ({ ...row })) } : {}),
      order: agent.creationOrder,
    };
  }

  private observe(event: RuntimeEvent): void {
    if (event.type === 'agent_changed') return this.changed(event.agent);
    if (event.type === 'agent_removed' && event.agent.kind === 'root' && !event.parent) {
      this.dirty.delete(event.agent);
      if (!this.stopped) this.ended.add(event.agent.id);
      this.schedule();
      return;
    }
    this.changed(event.type === 'agent_removed' && event.parent ? event.parent : event.agent);
  }

  /** The root `agent` belongs to in the tree (itself for a root), when that root is live. */
  private rootOf(agent: Agent): Agent | undefined {
    let at: Agent | undefined = agent;
    for (let hops = 0; at && hops < 1000; hops++) {
      if (at.kind === 'root') return this.deps.agents.isLive(at) ? at : undefined;
      at = this.deps.agents.parentOf(at);
    }
    return undefined;
  }

  private take(): [Agent[], string[]] {
    const roots = [...this.dirty].filter((r) => this.deps.agents.isLive(r));
    const ended = [...this.ended].filter((id) => !roots.some((r) => r.id === id));
    this.dirty.clear();
    this.ended.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    return [roots, ended];
  }
}

