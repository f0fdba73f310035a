import type { Agent, AgentChange, AgentHost, TurnEngine } from './agents/agent';
import { AgentFactory, labelFromPrompt, sessionIdMaker } from './agents/agentFactory';
import { EndedAgentLogs, isDurableStore, type ClosableSessionLog, type DurableSessionStore } from './agents/endedAgentLogs';
import { AgentRegistry } from './agents/registry';
import { RuntimeEventChannel, runtimeEventNamesBut, type RuntimeEvent, type RuntimeEventName, type RuntimeEventOf } from './agents/runtimeEvent';
import { BASE_PROMPT } from './agents/systemPrompt';
import { BudgetGuard } from './budgets';
import { AgentDefinitions } from './definitions/definitionSet';
import type { AgentDefinition } from './definitions/types';
import { ArborError } from './errors';
import { ApprovalService, UserInteractionService, resolveInteractionPolicy } from './interaction';
import { resolveLimits, type RunLimits, type RunLimitsInput } from './limits';
import type { ModelProvider, ToolCall, ToolSpec } from './models/types';
import { warnProcess, type OnProblem } from './problems';
import { Run } from './run';
import { CommandSandbox } from './sandbox';
import type { ResumeRootOptions, RuntimeOptions, StartRootOptions } from './runtimeOptions';
import type { RestoreLiveOptions, RestoreReport } from './restore';
import type { LiveRecords } from './restore/liveRecords';
import { createChild, definedSpec, runOneShotChild, startContinuableChild, type DelegationHost } from './runtimeDelegation';
import { liveRecordsIn, restoreLive, resumeInterrupted, resumeRoot, type ResumeHost } from './runtimeResume';
import { settledWithin, shutDown, type ShutdownParts } from './runtimeShutdown';
import { userEnd, userSend, userStop, userStopAll, userStopBranch, type UserActionsHost } from './runtimeUserActions';
import { RuntimeTools } from './runtimeTools';
import { memorySessionLogs } from './sessions/memoryLog';
import type { BranchStopResult } from './subagents/branchStop';
import { ContinuationManager, type InterruptResult, type SubagentService } from './subagents/continuation';
import { settledChildLoader } from './subagents/settledChildLoader';
import type { OneShotOutcome } from './subagents/oneShot';
import { builtinTools } from './tools/builtinTools';
import type { RuntimeTool, RuntimeToolContext } from './tools/context';
import type { ToolResult } from './tools/types';
import { ChangeSets, MemoryChangeSetStorage } from './workspace/changeSets';
import { NodeWorkspace } from './workspace/nodeWorkspace';
import { Writes, type BranchScopeRequest } from './scopes';
import type { WorkspacePort } from './workspace/port';

export { Run };
export { INTERRUPTED_NOTE } from './runtimeResume';
export { runtimeEventNamesBut };
export type { BranchStopResult, ClosableSessionLog, DurableSessionStore, ResumeRootOptions, RuntimeEvent, RuntimeEventName, RuntimeEventOf, RuntimeOptions, RuntimeTool, RuntimeToolContext, StartRootOptions, SubagentService };

/**
 * The agent runtime: the composition root that creates agents, hosts their turns, and owns the
 * registry, the continuation manager and the tools. Created on activation, disposed on
 * deactivation; nothing in here is a module-level singleton. It is the core's one door for agent
 * operations and the AgentHost every agent calls back; it wires the parts and keeps what is about
 * the runtime as a whole (nothing starts after dispose). Each concept's rules live with it:
 * runtimeDelegation.ts (children), runtimeUserActions.ts (the user's Stop, End, messages),
 * runtimeResume.ts (resume, restore, live-state records), runtimeTools.ts (offered tools, tool
 * calls, system prompt), runtimeShutdown.ts; making agents and closing ended agents' logs: agents/.
 */
const DEFAULT_SHUTDOWN_WAIT_MS = 15_000;

type RuntimeParts = DelegationHost & ResumeHost & ShutdownParts & UserActionsHost;

export class Runtime implements AgentHost {
  /** The one event channel: the registry announces arrivals and departures, the runtime each agent's changes. */
  private readonly events = new RuntimeEventChannel((problem, err) => this.onProblem(problem, err));
  /** Hears every event of the channel. */
  readonly onEvent = this.events.on;
  /** Hears only the events with the names given: what a listener that needs a few of them should use. */
  readonly onEvents = this.events.onEvents;
  readonly agents = new AgentRegistry(this.events);
  readonly subagents: SubagentService;
  readonly model: ModelProvider;
  readonly interaction: UserInteractionService;
  readonly approvals: ApprovalService;
  /** The agent definitions in use; the editor replaces them as their files change. */
  readonly definitions = new AgentDefinitions();
  private readonly endedLogs = new EndedAgentLogs((problem, err) => this.onProblem(problem, err));
  private defaultLimits: RunLimits;
  /** Run budgets: what each run used, the warning at 80% and the pause at 100%, and the runaway guards. */
  readonly budgets: BudgetGuard;
  private readonly tools: RuntimeTools;
  /** What the concept modules share of the runtime (one object, made once). */
  private readonly parts: RuntimeParts;
  private readonly folder: string | undefined;
  /** The user's files, confined to the workspace folders; none when no folder is open. */
  readonly workspace: WorkspacePort | undefined;
  /** Per agent (session id), the files it changed and their content before its first change. */
  readonly changes: ChangeSets;
  /** Each agent's write scope, and the guard every write passes (made with its part on first use). */
  readonly writes: Writes;
  /** What bounds the commands agents run; off unless the options give one (the editor does). */
  readonly sandbox: CommandSandbox;
  private disposed = false;
  /** Where failures nobody awaits are reported (RuntimeOptions.onProblem). */
  readonly onProblem: OnProblem;
  /** Keeps each live root's live-state record, when the runtime has durable sessions and a place for them. */
  readonly liveRecords: LiveRecords | undefined;

  /** The folder commands run in and paths are relative to; none when no folder is open. */
  get workspaceFolder(): string | undefined {
    return this.folder;
  }

  constructor(options: RuntimeOptions) {
    this.onProblem = options.onProblem ?? warnProcess;
    this.model = options.model;
    const store = isDurableStore(options.sessions) ? options.sessions : undefined;
    this.defaultLimits = resolveLimits(options.limits);
    this.folder = options.workspace;
    this.workspace = options.workspaceFiles ?? (options.workspace ? new NodeWorkspace({ folders: [options.workspace] }) : undefined);
    this.sandbox = options.sandbox ?? new CommandSandbox();
    this.changes = new ChangeSets(options.changeSets ?? new MemoryChangeSetStorage(), () => this.workspace, this.onProblem);
    const factory = new AgentFactory(this, options.sessions ?? memorySessionLogs, options.newId ?? sessionIdMaker(), options.workspace, options.now);
    this.interaction = options.interaction ?? new UserInteractionService({ agents: this.agents, onProblem: this.onProblem });
    this.approvals = new ApprovalService({ interaction: this.interaction, rules: options.approvalRules, lineage: this.agents });
    const writes = (this.writes = new Writes(this));
    const tools = (this.tools = new RuntimeTools(this, options.systemPrompt ?? BASE_PROMPT));
    for (const tool of [...builtinTools, ...(options.tools ?? [])]) tools.catalog.add(tool);
    // Subscribed first: an ended agent's approvals and log are settled before anyone else hears of it.
    this.events.onEvents(['agent_removed'], (event) => this.agentLeft(event.agent));
    const isReadOnlyTool = (name: string): boolean => tools.catalog.get(name)?.readOnly ?? false;
    this.budgets = new BudgetGuard({ onEvents: this.onEvents, agents: this.agents, isReadOnlyTool, now: options.now, runaway: options.runaway, prices: options.prices, onProblem: this.onProblem, end: (agent) => this.end(agent) });
    const { agents, definitions, endedLogs, budgets, onProblem, events } = this;
    const manager = new ContinuationManager({
      agents,
      onEvents: this.onEvents,
      createContinuable: (parent, label, resume, engine, definition, request) => createChild(this.parts, parent, 'continuable', label, resume, engine, definition, request),
      loadSettled: store ? settledChildLoader(store, agents, endedLogs, onProblem) : undefined,
    });
    this.subagents = manager;
    const liveRecordsFolder = store ? options.liveRecordsFolder : undefined;
    this.parts = {
      agents, definitions, endedLogs, budgets, onProblem, events, manager, factory, store, liveRecordsFolder, writes,
      resolveModel: options.resolveModel,
      ownInteraction: options.interaction ? undefined : this.interaction,
      waitMs: options.shutdownWaitMs ?? DEFAULT_SHUTDOWN_WAIT_MS,
      defaultLimits: () => this.defaultLimits,
      isOpen: () => !this.disposed,
      assertOpen: () => this.assertOpen(),
      releaseOneShot: (done) => void (agents.remove(done) || this.agentLeft(done)),
    };
    this.liveRecords = liveRecordsFolder === undefined ? undefined : liveRecordsIn(liveRecordsFolder, this, options.liveRecordDelayMs);
  }

  /**
   * Offer one more tool from now on (a tool another extension contributes); disposing withdraws
   * it. A name already taken is refused (Error), so no tool can shadow another.
   */
  registerTool(tool: RuntimeTool): { dispose(): void } {
    this.tools.catalog.add(tool);
    return { dispose: () => this.tools.catalog.remove(tool) };
  }

  /** The names of the tools offered now (what a definition's `tools` may name). */
  toolNames(): string[] {
    return this.tools.catalog.names();
  }

  /** The limits runs started from now on get unless they bring their own (a bad value throws and changes nothing). */
  setDefaultLimits(limits: RunLimitsInput | undefined): void {
    this.defaultLimits = resolveLimits(limits);
  }

  /** Start a root agent on a prompt. */
  startRoot(options: StartRootOptions): Agent {
    this.assertOpen();
    const policy = resolveInteractionPolicy(options.context);
    const limits = options.limits ? resolveLimits({ ...this.defaultLimits, ...options.limits }) : this.defaultLimits;
    const run = new Run(limits, policy, options.model, options.workspace, this.budgets.newRunBudget());
    const label = options.label?.trim() || options.definition?.name || labelFromPrompt(options.prompt);
    const defined = definedSpec(this.parts, undefined, options.definition);
    const { scope } = this.writes.guard.childScope(undefined, options.definition, undefined);
    const agent = this.parts.factory.create({ label, kind: 'root', run, planMode: options.planMode, engine: options.engine, ...defined });
    this.writes.set(agent, scope);
    this.agents.add(agent);
    agent.send(options.prompt, { from: 'user' });
    return agent;
  }

  /**
   * Reopen a past session as a new unowned root that continues under the session's own id, at
   * the head of a new run. A session live here is refused (SESSION_IN_USE); without durable
   * sessions resume is unavailable (INPUT_INVALID); an external agent's session needs
   * `externalEngine` (EXTERNAL_NOT_RESUMABLE). Rules and why: runtimeResume.ts.
   */
  resumeRoot(sessionId: string, options: ResumeRootOptions = {}): Promise<Agent> {
    return resumeRoot(this.parts, sessionId, options);
  }

  /**
   * Puts back every root live in this folder when its window last went away (a reload, a quit, a
   * crash), with its live subtree, states, queues, usage and holds (restore/restoreLive.ts). Never
   * throws: what cannot be put back is in the report's problems.
   */
  restoreLive(options: RestoreLiveOptions = {}): Promise<RestoreReport> {
    return restoreLive(this.parts, options);
  }

  /**
   * Continues an agent whose turn the window cut short (held `reload`, interrupted): the hold
   * comes off and a turn starts with a note to go on, after any queued messages. Any waking
   * send does the same with its own message. An agent not held so is left as it is.
   */
  resumeInterrupted(agent: Agent): void {
    resumeInterrupted(this.agents, agent);
  }

  /**
   * The user's Stop: ends only this agent's current turn; its queue is parked and its children
   * keep running. The exact live agent is the authority (interruptLive); a caller with only an id
   * and a parent address uses `subagents.interrupt`. One-shot children belong to their holder.
   */
  stop(agent: Agent): InterruptResult {
    return userStop(this.parts, agent);
  }

  /**
   * The user's Stop All Below: `target` (an agent or its id) and every live agent below it are
   * stopped as by Stop and held until a waking message (a child's report only queues); nothing
   * else is touched. A target not live is an accepted no-op. Rules and races: branchStop.ts.
   */
  stopBranch(target: Agent | string): BranchStopResult {
    return userStopBranch(this.parts, target);
  }

  /** The user's Stop All: every live agent is stopped and held, as by Stop All Below on each top-level node. */
  stopAll(): BranchStopResult {
    return userStopAll(this.parts);
  }

  /**
   * The user ends an agent: its turn is aborted and its queue dropped, and it leaves the
   * registry. Its continuable subagents live on (their parent is then offline); one-shot
   * subagents end with the turn that holds them.
   */
  end(agent: Agent): Promise<void> {
    return userEnd(this.parts, agent);
  }

  /** Queue a message from the user for a live root or continuable agent, waking it. */
  sendFromUser(agent: Agent, text: string): void {
    userSend(this.agents, agent, text);
  }

  /** Run a one-shot child of `parent` to completion inside its turn (rules: runtimeDelegation.ts). */
  runOneShot(parent: Agent, label: string, prompt: string, signal: AbortSignal, definition?: AgentDefinition, request?: BranchScopeRequest): Promise<OneShotOutcome> {
    return runOneShotChild(this.parts, parent, label, prompt, signal, definition, request);
  }

  /** Start a continuable child of `parent`; with an engine it is an external agent; with a definition it is bounded by it. */
  startContinuable(parent: Agent, label: string, prompt: string, engine?: TurnEngine<Agent>, definition?: AgentDefinition, request?: BranchScopeRequest): Agent {
    return startContinuableChild(this.parts, parent, label, prompt, engine, definition, request);
  }

  /**
   * Abort every turn, dispose every agent, release every listener. Resolves once every log is
   * written, each aborted turn's end included: the live agents' and those of agents that ended
   * just before (still closing, or waiting for their aborted turn to record its end). A turn
   * that has not recorded its end within `shutdownWaitMs` is written as it stands, so this
   * always settles.
   */
  dispose(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    // First, while turns still run: a turn in flight is recorded as one, so the next window holds it interrupted.
    this.liveRecords?.flushSync();
    this.disposed = true;
    // A record write started before the last one above ends (dropped, its temporary file removed) before this resolves, or within the wait a turn gets.
    const records = this.liveRecords ? settledWithin(this.liveRecords.settled(), this.parts.waitMs) : undefined;
    return Promise.all([shutDown(this.parts), records]).then(() => undefined);
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  // --- AgentHost (every model call goes through these; their rules: runtimeTools.ts) -----

  /** The tools offered to `agent` now: one list per policy and plan mode for a set of tools. */
  toolSpecs(agent: Agent): readonly ToolSpec[] {
    return this.tools.specs(agent);
  }

  runTool(agent: Agent, call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
    return this.tools.run(agent, call, signal);
  }

  systemPrompt(agent: Agent): string {
    return this.tools.systemPrompt(agent);
  }

  /** The agent's one output: put on the event channel (the continuation manager hears turn ends there). */
  agentChanged(agent: Agent, change: AgentChange): void {
    if (this.events.wants(change.type)) this.events.fire({ type: 'agent_changed', agent, change });
    // Not a subscriber: an ended agent's aborted turn may record its end after shutdown closed the channel.
    if (change.type === 'turn_end') this.endedLogs.turnEnded(agent);
  }

  // --- internals -------------------------------------------------------------------------

  /** An agent left the registry (ended, settled, or its one-shot task is done). */
  private agentLeft(agent: Agent): void {
    // "Allow for this agent" ends with the agent's life here: a resume asks again.
    this.approvals.forgetAgent(agent);
    // A turn aborted by the disposal still records its end: the log is closed after that.
    if (this.parts.store) this.endedLogs.agentEnded(agent);
  }

  private assertOpen(): void {
    if (this.disposed) throw new ArborError('AGENT_DISPOSED', 'Arbor has shut down; reload the window to start agents again.');
  }
}
