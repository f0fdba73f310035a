// Why this file stays whole: it is the core's one door for agent operations (start, resume, stop,
// stop a branch, end, send, dispose) and the AgentHost every agent calls back; each method is a
// few lines handing over to the module that owns the rule (agentFactory, continuation,
// branchStop, budgets, endedAgentLogs), so splitting it would only add pass-through layers.
import type { Agent, AgentChange, AgentHost, TurnEngine } from './agents/agent';
import { AgentFactory, labelFromPrompt, sessionIdMaker } from './agents/agentFactory';
import { EndedAgentLogs, isDurableStore, type ClosableSessionLog, type DurableSessionStore } from './agents/endedAgentLogs';
import { AgentRegistry } from './agents/registry';
import type { RuntimeEvent } from './agents/runtimeEvent';
import { readSessionSnapshot, type SessionSnapshot } from './agents/sessionSnapshot';
import { BASE_PROMPT, systemPromptFor } from './agents/systemPrompt';
import { BudgetGuard } from './budgets';
import type { SliceRequest } from './budgets/sliceRequest';
import type { DefinedAgentSpec, ModelResolver } from './definitions/definedAgents';
import { definedAgentsPart, restorePart } from './parts';
import { AgentDefinitions } from './definitions/definitionSet';
import type { AgentDefinition } from './definitions/types';
import { ArborError, asArborError } from './errors';
import { Emitter } from './events';
import { ApprovalService, UserInteractionService, resolveInteractionPolicy, type RunInteractionPolicy } from './interaction';
import { resolveLimits, type RunLimits, type RunLimitsInput } from './limits';
import type { ModelProvider, ToolCall, ToolSpec } from './models/types';
import { warnProcess, type OnProblem } from './problems';
import { Run } from './run';
import { CommandSandbox } from './sandbox';
import type { ResumeRootOptions, RuntimeOptions, StartRootOptions } from './runtimeOptions';
import type { RestoreLiveOptions, RestoreReport } from './restore';
import { LiveRecords } from './restore/liveRecords';
import { memorySessionLogs } from './sessions/memoryLog';
import type { AgentKind } from './sessions/types';
import { stopBranches, type BranchStopResult } from './subagents/branchStop';
import { ContinuationManager, type InterruptResult, type SubagentService } from './subagents/continuation';
import { checkDelegationLimits } from './subagents/delegationLimits';
import { interruptLive } from './subagents/interrupt';
import { settledChildLoader } from './subagents/settledChildLoader';
import { runOneShot, type OneShotOutcome } from './subagents/oneShot';
import { builtinTools } from './tools/builtinTools';
import { ToolCatalog } from './tools/catalog';
import type { RuntimeTool, RuntimeToolContext } from './tools/context';
import type { ToolResult } from './tools/types';
import { errorResult } from './tools/catalog';
import { isToolVisible } from './tools/visibility';
import { ChangeSets, MemoryChangeSetStorage } from './workspace/changeSets';
import { NodeWorkspace } from './workspace/nodeWorkspace';
import type { WorkspacePort } from './workspace/port';

export { Run };
export type { SubagentService };
export type { ClosableSessionLog, DurableSessionStore, ResumeRootOptions, RuntimeOptions, RuntimeTool, RuntimeToolContext, StartRootOptions };
export type { RuntimeEvent };
export type { BranchStopResult };

/** The note a turn the window cut short is continued with (Runtime.resumeInterrupted). */
export const INTERRUPTED_NOTE = '[Arbor] The window closed while your last turn was running. Continue where you left off.';

/**
 * The agent runtime: the composition root that creates agents, hosts their turns, and owns
 * the registry, the continuation manager and the tools. Created on activation, disposed on
 * deactivation; nothing in here is a module-level singleton.
 *
 * This file keeps the public operations (start, resume, stop, end, send, delegate, dispose)
 * and the AgentHost side; making agents, their prompts, reading a session back and closing
 * ended agents' logs live beside the agents (src/core/agents).
 */
const DEFAULT_SHUTDOWN_WAIT_MS = 15_000;

/** Resolves when `promise` settles or after `ms`, whichever comes first. */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([promise.then(() => undefined, () => undefined), late]).finally(() => clearTimeout(timer));
}

const visibleInContext = (def: RuntimeTool, ctx: RuntimeToolContext): boolean => isToolVisible(ctx.agent, def);

export class Runtime implements AgentHost {
  /** The one event channel: the registry announces arrivals and departures, the runtime each agent's changes. */
  private readonly events = new Emitter<RuntimeEvent>((problem, err) => this.onProblem(problem, err));
  readonly onEvent = this.events.on;
  readonly agents = new AgentRegistry(this.events);
  readonly subagents: SubagentService;
  readonly model: ModelProvider;
  readonly interaction: UserInteractionService;
  readonly approvals: ApprovalService;
  private readonly ownsInteraction: boolean;
  private readonly tools = new ToolCatalog<RuntimeToolContext>();
  /** The agent definitions in use; the editor replaces them as their files change. */
  readonly definitions = new AgentDefinitions();
  private readonly resolveModel: ModelResolver | undefined;
  /** The tools offered under each policy, with and without plan mode, as of a version of the tools. */
  private readonly offered = new WeakMap<RunInteractionPolicy, { version: number; plan?: readonly ToolSpec[]; work?: readonly ToolSpec[] }>();
  /** Set when sessions are durable: past sessions can be resumed and ended agents' logs closed. */
  private readonly store: DurableSessionStore | undefined;
  private readonly endedLogs = new EndedAgentLogs((problem, err) => this.onProblem(problem, err));
  private readonly factory: AgentFactory;
  private defaultLimits: RunLimits;
  /** Run budgets: what each run used, the warning at 80% and the pause at 100%, and the runaway guards. */
  readonly budgets: BudgetGuard;
  private readonly manager: ContinuationManager;
  private readonly basePrompt: string;
  private readonly folder: string | undefined;
  /** The user's files, confined to the workspace folders; none when no folder is open. */
  readonly workspace: WorkspacePort | undefined;
  /** Per agent (session id), the files it changed and their content before its first change. */
  readonly changes: ChangeSets;
  /** What bounds the commands agents run; off unless the options give one (the editor does). */
  readonly sandbox: CommandSandbox;
  private disposed = false;
  private readonly shutdownWaitMs: number;
  /** Where failures nobody awaits are reported (RuntimeOptions.onProblem). */
  readonly onProblem: OnProblem;
  /** Keeps each live root's live-state record, when the runtime has durable sessions and a place for them. */
  readonly liveRecords: LiveRecords | undefined;
  private readonly liveRecordsFolder: string | undefined;

  /** The folder commands run in and paths are relative to; none when no folder is open. */
  get workspaceFolder(): string | undefined {
    return this.folder;
  }

  constructor(options: RuntimeOptions) {
    this.onProblem = options.onProblem ?? warnProcess;
    this.model = options.model;
    this.resolveModel = options.resolveModel;
    this.store = isDurableStore(options.sessions) ? options.sessions : undefined;
    this.defaultLimits = resolveLimits(options.limits);
    this.basePrompt = options.systemPrompt ?? BASE_PROMPT;
    this.folder = options.workspace;
    this.shutdownWaitMs = options.shutdownWaitMs ?? DEFAULT_SHUTDOWN_WAIT_MS;
    this.workspace = options.workspaceFiles ?? (options.workspace ? new NodeWorkspace({ folders: [options.workspace] }) : undefined);
    this.sandbox = options.sandbox ?? new CommandSandbox();
    this.changes = new ChangeSets(options.changeSets ?? new MemoryChangeSetStorage(), () => this.workspace, this.onProblem);
    this.factory = new AgentFactory(this, options.sessions ?? memorySessionLogs, options.newId ?? sessionIdMaker(), options.workspace, options.now);
    this.ownsInteraction = !options.interaction;
    this.interaction = options.interaction ?? new UserInteractionService({ agents: this.agents, onProblem: this.onProblem });
    this.approvals = new ApprovalService({ interaction: this.interaction, rules: options.approvalRules });
    for (const tool of [...builtinTools, ...(options.tools ?? [])]) this.tools.add(tool);
    // Subscribed first: an ended agent's approvals and log are settled before anyone else hears of it.
    this.events.on((event) => {
      if (event.type === 'agent_removed') this.agentLeft(event.agent);
    });
    const isReadOnlyTool = (name: string): boolean => this.tools.get(name)?.readOnly ?? false;
    this.budgets = new BudgetGuard({ onEvent: this.onEvent, agents: this.agents, isReadOnlyTool, now: options.now, runaway: options.runaway, prices: options.prices, onProblem: this.onProblem, end: (agent) => this.end(agent) });
    this.manager = new ContinuationManager({
      agents: this.agents,
      onEvent: this.onEvent,
      createContinuable: (parent, label, resume, engine, definition) => this.createChild(parent, 'continuable', label, resume, engine, definition),
      loadSettled: this.store ? settledChildLoader(this.store, this.agents, this.endedLogs, this.onProblem) : undefined,
    });
    this.subagents = this.manager;
    const folder = (this.liveRecordsFolder = this.store ? options.liveRecordsFolder : undefined);
    const records = (this.liveRecords =
      folder === undefined
        ? undefined
        : new LiveRecords(() => {
            const part = restorePart();
            return new part.LiveRecorder({ files: new part.LiveRecordFiles(folder), agents: this.agents, onEvent: this.onEvent, onBudgetEvent: this.budgets.onEvent, pauseOf: (a) => this.budgets.holdOf(a.run), onProblem: this.onProblem, delayMs: options.liveRecordDelayMs });
          }));
    // The recorder starts with the first agent that goes live (that agent's record included).
    if (records) {
      const first = this.events.on((event) => {
        if (event.type !== 'agent_added') return;
        first.dispose();
        records.changed(event.agent);
      });
    }
  }

  /**
   * Offer one more tool from now on (a tool another extension contributes); disposing withdraws
   * it. A name already taken is refused (Error), so no tool can shadow another.
   */
  registerTool(tool: RuntimeTool): { dispose(): void } {
    this.tools.add(tool);
    return { dispose: () => this.tools.remove(tool) };
  }

  /** The names of the tools offered now (what a definition's `tools` may name). */
  toolNames(): string[] {
    return this.tools.names();
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
    const defined = this.definedSpec(undefined, options.definition);
    const agent = this.factory.create({ label, kind: 'root', run, planMode: options.planMode, engine: options.engine, ...defined });
    this.agents.add(agent);
    agent.send(options.prompt, { from: 'user' });
    return agent;
  }
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
  async resumeRoot(sessionId: string, options: ResumeRootOptions = {}): Promise<Agent> {
    this.assertOpen();
    const store = this.store;
    if (!store) throw new ArborError('INPUT_INVALID', 'This runtime keeps sessions in memory only, so past sessions cannot be resumed.');
    const assertNotLive = (): void => {
      const live = this.agents.get(sessionId);
      if (live) throw new ArborError('SESSION_IN_USE', `"${live.label}" is already running in this window; find it in the Agents view.`, { id: sessionId });
    };
    assertNotLive();
    await this.endedLogs.whenClosed(sessionId);
    const log = await store.reopenLog(sessionId);
    try {
      if (log.header.external && !options.externalEngine) {
        throw new ArborError('EXTERNAL_NOT_RESUMABLE', `"${log.header.label}" was run by the external agent ${log.header.external}; its session can be read in History but not continued here. Run the agent again to carry on.`);
      }
      const engine = log.header.external ? await options.externalEngine?.(log) : undefined;
      this.assertOpen();
      assertNotLive();
      const policy = resolveInteractionPolicy({ interactionMode: log.header.interactionMode });
      const limits = options.limits ? resolveLimits({ ...this.defaultLimits, ...options.limits }) : this.defaultLimits;
      const run = new Run(limits, policy, options.model, undefined, this.budgets.newRunBudget());
      const defined = this.definedSpec(undefined, this.definitionOf(log.header));
      const past = readSessionSnapshot(log, { resumeWaiting: true });
      const agent = this.factory.create({ label: log.header.label, kind: 'root', run, past, engine, ...defined });
      this.agents.add(agent);
      // A question or approval open when the session stopped is asked again before anything else.
      if (past.waiting) agent.continueWaitingCall(past.waiting.call);
      if (options.message !== undefined) agent.send(options.message, { from: 'user' });
      return agent;
    } catch (err) {
      // The resume's own failure is what the caller hears: closing only lets the session go.
      void log.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Puts back every root that was live in this folder when its window last went away (a reload,
   * a quit, a crash), each with its live subtree, states, queues, usage and holds, from the
   * live-state records and the sessions' logs (restore/restoreLive.ts). Never throws: what
   * cannot be put back is in the report's problems. Without durable sessions and live-state
   * records there is nothing to restore.
   */
  restoreLive(options: RestoreLiveOptions = {}): Promise<RestoreReport> {
    const store = this.store;
    const folder = this.liveRecordsFolder;
    if (!store || folder === undefined || this.disposed) return Promise.resolve({ roots: [], interrupted: [], problems: [], agents: [] });
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
        agents: this.agents,
        onProblem: this.onProblem,
        defaultLimits: () => this.defaultLimits,
        newRunBudget: () => this.budgets.newRunBudget(),
        restorePause: (run, hold) => this.budgets.restorePause(run, hold),
        restoreSlice: (agent, slice) => this.budgets.slices.restore(agent, slice),
        makeRoot: (label, run, past, planMode, engine) => this.factory.create({ label, kind: 'root', run, past, planMode, engine }),
        makeChild: (parent, label, past, engine) => this.factory.create({ label, kind: 'continuable', run: parent.run, parent, past, engine }),
        addRoot: (agent) => this.agents.add(agent),
        adoptChild: (parent, child) => this.manager.adopt(parent, child),
        isOpen: () => !this.disposed,
        workspaceFor: (folder) => new NodeWorkspace({ folders: [folder] }),
      },
      options,
    );
  }

  /**
   * Continues an agent whose turn the window cut short (held `reload`, interrupted): the hold
   * comes off and a turn starts with a note to go on, after any queued messages. Any waking
   * send does the same with its own message. An agent not held so is left as it is.
   */
  resumeInterrupted(agent: Agent): void {
    if (!this.agents.isLive(agent)) throw new ArborError('AGENT_DISPOSED', `"${agent.label}" is no longer live.`);
    if (!agent.holds.some((h) => h.reason === 'reload' && h.interrupted)) return;
    agent.send(INTERRUPTED_NOTE, { from: 'system', wake: true });
  }

  /**
   * The user's Stop: ends only this agent's current turn; its queue is parked and its
   * children keep running. The exact live agent is the authority (interruptLive); a caller
   * with only an id and a parent address uses `subagents.interrupt`. One-shot children belong
   * to their holder.
   */
  stop(agent: Agent): InterruptResult {
    if (agent.kind === 'one-shot') {
      throw new ArborError('SUBAGENT_UNAUTHORIZED', `"${agent.label}" is a one-shot subagent; stop the agent that is waiting for it.`);
    }
    return interruptLive(agent, this.agents, this.manager.get(agent.id));
  }

  /**
   * The user's Stop All Below: `target` (an agent or its id) and every live agent below it are
   * stopped as by Stop and held until a waking message (a child's report only queues); nothing
   * else is touched. A target not live is an accepted no-op. Rules and races: branchStop.ts.
   */
  stopBranch(target: Agent | string): BranchStopResult {
    const agent = typeof target === 'string' ? this.agents.get(target) : target;
    if (!agent || !this.agents.isLive(agent)) return { accepted: true, agentIds: [], interrupted: [] };
    return stopBranches([agent], this.agents, (a) => this.manager.isEnding(a));
  }

  /** The user's Stop All: every live agent is stopped and held, as by Stop All Below on each top-level node. */
  stopAll(): BranchStopResult {
    return stopBranches(this.agents.topLevel(), this.agents, (a) => this.manager.isEnding(a), () => this.agents.all());
  }

  /**
   * The user ends an agent: its turn is aborted and its queue dropped, and it leaves the
   * registry. Its continuable subagents live on (their parent is then offline); one-shot
   * subagents end with the turn that holds them.
   */
  end(agent: Agent): Promise<void> {
    if (!this.agents.isLive(agent)) return Promise.resolve();
    if (agent.kind === 'one-shot') {
      throw new ArborError('SUBAGENT_UNAUTHORIZED', `"${agent.label}" is a one-shot subagent; stop the agent that is waiting for it.`);
    }
    if (agent.kind === 'continuable') return this.manager.end(agent);
    agent.dispose({ dropQueue: true });
    this.agents.remove(agent);
    return Promise.resolve();
  }

  /** Queue a message from the user for a live root or continuable agent, waking it. */
  sendFromUser(agent: Agent, text: string): void {
    if (!this.agents.isLive(agent)) throw new ArborError('AGENT_DISPOSED', `"${agent.label}" is no longer live.`);
    if (agent.kind === 'one-shot') {
      throw new ArborError('SUBAGENT_UNAUTHORIZED', `"${agent.label}" is a one-shot subagent; it only works on the task it was given.`);
    }
    agent.send(text, { from: 'user' });
  }

  runOneShot(parent: Agent, label: string, prompt: string, signal: AbortSignal, definition?: AgentDefinition, budget?: SliceRequest): Promise<OneShotOutcome> {
    this.checkDelegation(parent);
    const slice = this.budgets.slices.take(parent, label, budget, definition?.budget);
    const child = this.createChild(parent, 'one-shot', label, undefined, undefined, definition);
    this.budgets.slices.startWith(parent, slice, () => this.agents.add(child, { owner: parent }));
    return runOneShot(child, prompt, signal, this.releaseOneShot, (s, onAbort) => parent.whenTurnAborted(s, onAbort));
  }

  /** A one-shot child is done: it leaves the registry (one made for the runtime, not per child). */
  private readonly releaseOneShot = (done: Agent): void => {
    // A child the shutdown already removed still gets its log closed.
    if (!this.agents.remove(done)) this.agentLeft(done);
  };

  /** Start a continuable child of `parent`; with an engine it is an external agent; with a definition it is bounded by it. */
  startContinuable(parent: Agent, label: string, prompt: string, engine?: TurnEngine<Agent>, definition?: AgentDefinition, budget?: SliceRequest): Agent {
    this.checkDelegation(parent);
    const slice = this.budgets.slices.take(parent, label, budget, definition?.budget);
    return this.budgets.slices.startWith(parent, slice, () => this.manager.start(parent, label, prompt, engine, definition));
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
    this.budgets.dispose();
    this.manager.dispose();
    const writes: Promise<void>[] = [];
    const live = this.agents.all();
    for (const agent of live) {
      agent.dispose();
      // The aborted turn records its end a moment later: write after that, not before.
      writes.push(settledWithin(agent.whenIdle(), this.shutdownWaitMs).then(() => agent.log.flush()).catch(() => undefined));
    }
    writes.push(...this.endedLogs.pending());
    // The channel closes first: a shutdown is not announced agent by agent, and the logs of
    // agents still live are flushed above, not closed as if they had ended.
    this.events.dispose();
    for (const agent of live) this.agents.remove(agent);
    this.agents.dispose();
    if (this.ownsInteraction) this.interaction.dispose();
    return Promise.all(writes).then(() => undefined);
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  // --- AgentHost -----------------------------------------------------------------------

  /**
   * What a tool sees is its policy's and plan mode's to say (visibility.ts), so the list for each
   * pair is made once per set of tools and every model call of such an agent is offered the same.
   */
  toolSpecs(agent: Agent): readonly ToolSpec[] {
    const policy = agent.run.policy;
    let lists = this.offered.get(policy);
    if (!lists || lists.version !== this.tools.version) this.offered.set(policy, (lists = { version: this.tools.version }));
    const key = agent.planMode ? 'plan' : 'work';
    const specs = (lists[key] ??= this.tools.specs((def) => isToolVisible(agent, def)));
    // Definitions cost nothing (their part is not even loaded) until one is in use.
    if (!agent.bounds && this.definitions.list().length === 0) return specs;
    const part = definedAgentsPart();
    return part.withDefinitionsListed(part.boundedSpecs(specs, agent.bounds), this.definitions);
  }

  runTool(agent: Agent, call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
    const policy = agent.run.policy;
    // A tool its definitions leave out is refused by name, not reported as unknown.
    const refusal = agent.bounds && this.tools.get(call.name) ? definedAgentsPart().toolRefusal(agent.bounds, call.name) : undefined;
    if (refusal) return Promise.resolve(errorResult(refusal));
    const ctx: RuntimeToolContext = { agent, signal, toolCallId: call.id, runtime: this, policy, interaction: this.interaction, approvals: this.approvals };
    return this.tools.execute(call, ctx, visibleInContext);
  }

  systemPrompt(agent: Agent): string {
    const prompt = systemPromptFor(this.basePrompt, agent, agent.run.policy);
    return agent.definition ? definedAgentsPart().withDefinitionPrompt(prompt, agent.definition) : prompt;
  }

  /** The agent's one output: put on the event channel (the continuation manager hears turn ends there). */
  agentChanged(agent: Agent, change: AgentChange): void {
    this.events.fire({ type: 'agent_changed', agent, change });
    // Not a subscriber: an ended agent's aborted turn may record its end after shutdown closed the channel.
    if (change.type === 'turn_end') this.endedLogs.turnEnded(agent);
  }

  // --- internals -------------------------------------------------------------------------

  private checkDelegation(parent: Agent): void {
    this.assertOpen();
    // A child needs a live parent: one that has ended (or whose End has begun) would leave it
    // with no parent to report to and no ancestry to be stopped through.
    if (!this.agents.isLive(parent) || parent.disposed || this.manager.isEnding(parent)) {
      throw new ArborError('AGENT_DISPOSED', `"${parent.label}" has ended; it cannot start subagents.`);
    }
    checkDelegationLimits(parent, this.agents);
  }

  private createChild(parent: Agent, kind: AgentKind, label: string, past?: SessionSnapshot, engine?: TurnEngine<Agent>, definition?: AgentDefinition): Agent {
    const defined = this.definedSpec(parent, past ? this.definitionOf(past.log.header) : definition);
    const agent = this.factory.create({ label, kind, run: parent.run, parent, past, engine, ...defined });
    if (kind === 'continuable') this.agents.add(agent, { parent });
    return agent;
  }

  /** An agent left the registry (ended, settled, or its one-shot task is done). */
  private agentLeft(agent: Agent): void {
    // "Allow for this agent" ends with the agent's life here: a resume asks again.
    this.approvals.forgetAgent(agent);
    // A turn aborted by the disposal still records its end: the log is closed after that.
    if (this.store) this.endedLogs.agentEnded(agent);
  }

  /**
   * The definition a reopened session was started with, as it is now: it goes on under the same
   * name's bounds. One whose definition is gone is not reopened unbounded (DEFINITION_UNKNOWN).
   */
  private definitionOf(header: { definition?: { name: string } }): AgentDefinition | undefined {
    return header.definition ? this.definitions.get(header.definition.name) : undefined;
  }

  /** What a new agent takes from its definition and its parent's bounds and model (nothing, without either). */
  private definedSpec(parent: Agent | undefined, definition: AgentDefinition | undefined): DefinedAgentSpec {
    if (!definition && !parent?.bounds && !parent?.model) return {};
    return definedAgentsPart().definedAgentSpec(parent, definition, this.resolveModel);
  }

  private assertOpen(): void {
    if (this.disposed) throw new ArborError('AGENT_DISPOSED', 'Arbor has shut down; reload the window to start agents again.');
  }
}

