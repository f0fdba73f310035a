// Putting the Agents tree back when Arbor starts in a window: every root that was live here when
// the window last went away (a reload, a quit, a crash), with its subtree, from the core's
// live-state records (Runtime.restoreLive). Pure (no 'vscode' import): activation hands it the
// runtime, the tree's ended rows, the worktree runs and its log, and runs it without waiting.
//
// Invariants:
// - Never blocks activation and never throws: it runs after the views and commands exist, and
//   the rows appear as the agents are registered; what could not be put back is logged and
//   said once, in one warning.
// - The editor's own parts of the record (ended rows, worktree links) are said to the core here
//   (describeWith) and put back here, so the record stays one file per root.
// - Interrupted agents stay held until `afterRestore` decides (the after-reload setting); by
//   default they stay as they are, and a Send or Resume continues them.
import type { Runtime, RestoreReport } from '../../core';
import type { Agent, TurnEngine } from '../../core/agents';
import type { ModelProvider } from '../../core/models';
import type { LiveRunRecord } from '../../core/restore';
import type { SessionLog } from '../../core/sessions';
import type { GitWorktree } from '../../core/workspace';
import { messageOf } from '../../core';
import { afterReload, type AfterReloadNotifications } from '../sessions/afterReload';
import type { AfterReloadSetting } from '../sessions/afterReloadSetting';
import { isEndedHow, type EndedSubagents } from './endedSubagents';

export interface RestoreAtStartDeps {
  readonly runtime: Runtime;
  readonly ended: EndedSubagents;
  /** The worktree runs, when they are loaded (undefined otherwise: none has a worktree yet). */
  readonly worktreeOf: (root: Agent) => GitWorktree | undefined;
  /** Loads the worktree runs to give a restored root its worktree back. */
  readonly adoptWorktree: (root: Agent, worktree: GitWorktree) => void;
  readonly log: { info(line: string): void; warn(line: string): void };
  /** Says once what could not be put back (a warning message). */
  readonly warn: (message: string) => void;
  readonly modelFor?: (run: LiveRunRecord, rootLabel: string) => ModelProvider | undefined;
  readonly externalEngine?: (log: SessionLog, run: LiveRunRecord) => TurnEngine<Agent> | Promise<TurnEngine<Agent>>;
  /** Each agent put back, once it is live (an external agent's process starts again here). */
  readonly onRestored?: (agent: Agent) => void;
  /**
   * What happens to agents whose turn the window cut short: `arbor.sessions.afterReload` decides
   * (sessions/afterReload.ts), never awaited here (it waits for the person's answer). Without it
   * they stay held, and a Send continues them.
   */
  readonly afterReload?: {
    readonly setting: () => AfterReloadSetting;
    readonly notifications: AfterReloadNotifications;
    /** Show: the agent's node in the Agents view. */
    reveal(agent: Agent): void | Promise<void>;
  };
}

/** Tells the core what the editor keeps of each agent, so every live-state record carries it. */
export function describeEditorParts(deps: Pick<RestoreAtStartDeps, 'runtime' | 'ended' | 'worktreeOf'>): void {
  deps.runtime.liveRecords?.describeWith({
    ended: (agent) => deps.ended.of(agent).map(({ id, label, kind, how, tokens, cost, creationOrder }) => ({ id, label, kind, how, tokens, cost, creationOrder })),
    worktree: (root) => {
      const worktree = deps.worktreeOf(root);
      return worktree && { repo: worktree.repo, root: worktree.root, folder: worktree.folder, branch: worktree.branch, base: worktree.base };
    },
  });
}

/**
 * The restored children are numbered anew in this window; each ended row gets a number between
 * those of the children it stood between, so the rows keep the order they had.
 */
export function inOrderAmong<Row extends { creationOrder: number }>(children: readonly { recorded: number; now: number }[], rows: readonly Row[]): Row[] {
  const live = [...children].sort((a, b) => a.recorded - b.recorded);
  const sorted = [...rows].sort((a, b) => a.creationOrder - b.creationOrder);
  const out: Row[] = [];
  let before = (live[0]?.now ?? 1) - 1;
  let next = 0;
  for (let i = 0; i < sorted.length; i++) {
    while (next < live.length && live[next].recorded < sorted[i].creationOrder) before = live[next++].now;
    // Up to the next live child (or one past the last), the rows of this gap share the room evenly.
    let gap = 1;
    while (i + gap < sorted.length && (next >= live.length || sorted[i + gap].creationOrder < live[next].recorded)) gap++;
    const after = next < live.length ? live[next].now : before + 1;
    for (let k = 0; k < gap; k++) out.push({ ...sorted[i + k], creationOrder: before + ((after - before) * (k + 1)) / (gap + 1) });
    before = out[out.length - 1].creationOrder;
    i += gap - 1;
  }
  return out;
}

/** Restores the tree, puts the editor's parts back, and hands the interrupted agents on. */
export async function restoreAtStart(deps: RestoreAtStartDeps): Promise<RestoreReport> {
  describeEditorParts(deps);
  const report = await deps.runtime.restoreLive({ modelFor: deps.modelFor, externalEngine: deps.externalEngine, log: (line) => deps.log.info(line) });
  const recordedOrder = new Map(report.agents.map((r) => [r.agent, r.recordedOrder]));
  for (const { agent, ended, worktree } of report.agents) {
    if (!deps.runtime.agents.isLive(agent)) continue;
    // A row whose agent is live again (a child restored in its own right) is not shown twice.
    const rows = ended.flatMap((row) => (isEndedHow(row.how) && !deps.runtime.agents.get(row.id) ? [{ ...row, how: row.how }] : []));
    const children = deps.runtime.agents.childrenOf(agent).flatMap((child) => {
      const recorded = recordedOrder.get(child);
      return recorded === undefined ? [] : [{ recorded, now: child.creationOrder }];
    });
    deps.ended.restore(agent, inOrderAmong(children, rows));
    if (worktree) deps.adoptWorktree(agent, worktree);
    deps.onRestored?.(agent);
  }
  const problems = report.problems.filter((p) => p.code !== 'SESSION_IN_USE');
  for (const p of report.problems) deps.log.warn(`Not put back${p.sessionId ? ` (${p.sessionId})` : ''}: ${p.message}`);
  if (problems.length > 0) {
    deps.warn(
      problems.length === 1
        ? `Arbor could not put back one agent after the window reopened: ${problems[0].message}`
        : `Arbor could not put back ${problems.length} agents after the window reopened; the Arbor log names them. Their sessions are in History.`,
    );
  }
  if (report.roots.length > 0) deps.log.info(`Put back ${report.roots.length} root agent(s); ${report.interrupted.length} were interrupted by the window closing.`);
  if (report.interrupted.length > 0 && deps.afterReload) handInterrupted(deps, deps.afterReload, report.interrupted);
  return report;
}

function handInterrupted(deps: RestoreAtStartDeps, after: NonNullable<RestoreAtStartDeps['afterReload']>, interrupted: readonly Agent[]): void {
  const { runtime, log } = deps;
  void afterReload(interrupted, {
    setting: after.setting(),
    resume: (agent) => runtime.resumeInterrupted(agent),
    reveal: (agent) => after.reveal(agent),
    notifications: after.notifications,
    isStillInterrupted: (agent) => runtime.agents.isLive(agent) && agent.holds.some((h) => h.reason === 'reload' && h.interrupted === true),
    onProblem: (agent, err) => log.warn(`Could not resume "${agent.label}": ${messageOf(err)}`),
  }).catch((err: unknown) => log.warn(`Could not ask about the interrupted agents: ${messageOf(err)}`));
}
