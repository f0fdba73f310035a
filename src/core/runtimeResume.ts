import type { Writes } from './scopes/writes';
import type { Agent } from './agents/agent';
import type { AgentFactory } from './agents/agentFactory';
import type { DurableSessionStore, EndedAgentLogs } from './agents/endedAgentLogs';
import type { AgentRegistry } from './agents/registry';
import type { OnRuntimeEvents } from './agents/runtimeEvent';
import type { BudgetGuard } from './budgets';
import { ArborError, asArborError } from './errors';
import type { RunLimits } from './limits';
import { restorePart, resumeSessionPart } from './parts';
import type { OnProblem } from './problems';
import type { RestoreLiveOptions, RestoreReport } from './restore';
import { LiveRecords } from './restore/liveRecords';
import { definedSpec, definitionOf, type DelegationHost } from './runtimeDelegation';
import type { ResumeRootOptions } from './runtimeOptions';
import type { ContinuationManager } from './subagents/continuation';
import { NodeWorkspace } from './workspace/nodeWorkspace';

/** The note a turn the window cut short is continued with (Runtime.resumeInterrupted). */
export const INTERRUPTED_NOTE = '[Arbor] The window closed while your last turn was running. Continue where you left off.';

/** What bringing sessions back needs of the runtime (with what making an agent under its definition does). */
export interface ResumeHost extends Pick<DelegationHost, 'definitions' | 'resolveModel'> {
  /** Set only when sessions are durable: without it nothing can be brought back. */
  readonly store: DurableSessionStore | undefined;
  /** Where live-state records are kept; set only with a store. */
  readonly liveRecordsFolder: string | undefined;
  readonly agents: AgentRegistry;
  readonly endedLogs: EndedAgentLogs;
  readonly factory: AgentFactory;
  readonly manager: ContinuationManager;
  readonly budgets: BudgetGuard;
  readonly onProblem: OnProblem;
  readonly writes: Writes;
  defaultLimits(): RunLimits;
  isOpen(): boolean;
  /** Throws AGENT_DISPOSED once the runtime has shut down. */
  assertOpen(): void;
}

/**
 * The runtime's ways back to a past session: reopening one as a new unowned root (resumeRoot),
 * putting back every root a window had live when it went away (restoreLive, from the live-state
 * records, through the lazily loaded restore part), and continuing a turn the window cut short
 * (resumeInterrupted).
 *
 * Invariants: a session is live at most once (SESSION_IN_USE, checked again after every wait);
 * a resumed root heads a new run with fresh limits and budget and the interaction mode its log
 * recorded, resolved through the policy again, because recorded lineage is history, never
 * authority; a resume that fails lets its log go and changes nothing else; restoreLive never
 * throws (what cannot be put back is in its report).
 */
/**
 * Reopen a past session as a new unowned agent. The session continues under its own id (its
 * log is taken over for writing, a turn a crash left open is closed as `interrupted`), so
 * its transcript, the ids its conversation mentions and its children's recorded parent all
 * stay valid: after a reload, a resumed parent can cold-resume its continuable children.
 *
 * The agent is registered with no owner, so it may ask the human whatever its header says
 * about a parent: recorded lineage is history, never authority. It heads a new run (fresh
 * limits and token budget, delegation depth 0) whose interaction mode is the persisted one,
 * resolved through the policy again. Its conversation is rebuilt from the log,
 * its turn count and token usage carry over. A session that is live here is refused
 * (SESSION_IN_USE); without durable sessions resume is unavailable (INPUT_INVALID). A
 * session an external agent ran resumes only on the engine `externalEngine` gives for it
 * (EXTERNAL_NOT_RESUMABLE otherwise).
 */
export async function resumeRoot(host: ResumeHost, sessionId: string, options: ResumeRootOptions): Promise<Agent> {
  // Loaded at the first resume (History's Resume), not with every window; a part that will not load rejects (PART_LOAD_FAILED).
  return resumeSessionPart().resumeRoot(host, sessionId, options, (header) => definedSpec(host, undefined, definitionOf(host, header)));
}

/**
 * Puts back every root that was live in this folder when its window last went away, each with
 * its live subtree, states, queues, usage and holds, from the live-state records and the
 * sessions' logs (restore/restoreLive.ts, loaded here on first use). Never throws: what cannot be
 * put back, including a restore part that will not load, is in the report's problems. Without
 * durable sessions and live-state records, or after dispose, there is nothing to restore.
 */
export function restoreLive(host: ResumeHost, options: RestoreLiveOptions): Promise<RestoreReport> {
  const { store, liveRecordsFolder: folder } = host;
  if (!store || folder === undefined || !host.isOpen()) return Promise.resolve({ roots: [], interrupted: [], problems: [], agents: [] });
  let part: ReturnType<typeof restorePart>;
  try {
    part = restorePart();
  } catch (err) {
    // A damaged installation: nothing is put back, and the report says why.
    const error = asArborError(err, 'INTERNAL');
    return Promise.resolve({ roots: [], interrupted: [], problems: [{ code: error.code, message: error.message }], agents: [] });
  }
  return part.restoreLive(
    {
      store,
      folder,
      agents: host.agents,
      onProblem: host.onProblem,
      defaultLimits: () => host.defaultLimits(),
      newRunBudget: () => host.budgets.newRunBudget(),
      restorePause: (run, hold) => host.budgets.restorePause(run, hold),
      restoreSlice: (agent, slice) => host.budgets.slices.restore(agent, slice),
      restoreScope: (agent, scope) => host.writes.set(agent, scope),
      makeRoot: (label, run, past, planMode, engine) => host.factory.create({ label, kind: 'root', run, past, planMode, engine }),
      makeChild: (parent, label, past, engine) => host.factory.create({ label, kind: 'continuable', run: parent.run, parent, past, engine }),
      addRoot: (agent) => host.agents.add(agent),
      adoptChild: (parent, child) => host.manager.adopt(parent, child),
      isOpen: () => host.isOpen(),
      workspaceFor: (folder) => new NodeWorkspace({ folders: [folder] }),
    },
    options,
  );
}

/** Continues an agent the window cut short (held `reload`, interrupted); any other is left as it is. */
export function resumeInterrupted(agents: AgentRegistry, agent: Agent): void {
  if (!agents.isLive(agent)) throw new ArborError('AGENT_DISPOSED', `"${agent.label}" is no longer live.`);
  if (!agent.holds.some((h) => h.reason === 'reload' && h.interrupted)) return;
  agent.send(INTERRUPTED_NOTE, { from: 'system', wake: true });
}

/** What keeping live-state records needs: the runtime's channel and the places it reads a root's state from. */
export interface LiveRecordsHost {
  readonly agents: AgentRegistry;
  readonly budgets: BudgetGuard;
  readonly onProblem: OnProblem;
  readonly writes: Writes;
  readonly onEvents: OnRuntimeEvents;
}

/**
 * The keeper of each live root's live-state record in `folder` (what restoreLive reads next
 * time). The restore part is loaded, and the recorder started, with the first agent that goes
 * live (that agent's record included), so a window that never runs an agent pays for neither.
 */
export function liveRecordsIn(folder: string, host: LiveRecordsHost, delayMs: number | undefined): LiveRecords {
  const records = new LiveRecords(() => {
    const part = restorePart();
    return new part.LiveRecorder({ files: new part.LiveRecordFiles(folder), agents: host.agents, onEvents: host.onEvents, onBudgetEvent: host.budgets.onEvent, pauseOf: (a) => host.budgets.holdOf(a.run), onProblem: host.onProblem, delayMs, scopeOf: (a) => host.writes.scopeOf(a) });
  });
  const first = host.onEvents(['agent_added'], (event) => {
    first.dispose();
    records.changed(event.agent);
  });
  return records;
}
