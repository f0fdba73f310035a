import { randomBytes } from 'node:crypto';
import { Agent, unwrapLog, type AgentChange, type AgentHost, type TurnEnd } from './agents/agent';
import { AgentRegistry } from './agents/registry';
import { ArborError, isArborError } from './errors';
import { Emitter } from './events';
import { RunBudget, resolveLimits, type RunLimits, type RunLimitsInput } from './limits';
import type { ChatMessage, ModelProvider, ToolCall, ToolSpec } from './models/types';
import { conversationFromEvents } from './sessions/conversationFromEvents';
import { pendingQueueFromEvents, type PendingMessage } from './sessions/pendingQueue';
import { memorySessionLogs } from './sessions/memoryLog';
import {
  SESSION_FORMAT_VERSION,
  type AgentKind,
  type InteractionMode,
  type SessionEvent,
  type SessionHeader,
  type SessionLog,
  type SessionLogFactory,
} from './sessions/types';
import {
  type Activation,
  ContinuationManager,
  type InterruptAuthority,
  type InterruptResult,
  type LoadedSettledChild,
  type SettledChild,
} from './subagents/continuation';
import { runOneShot, type OneShotOutcome } from './subagents/oneShot';
import {
  ApprovalService,
  UserInteractionService,
  resolveInteractionPolicy,
  type ApprovalRuleStore,
  type RunContext,
  type RunInteractionPolicy,
} from './interaction';
import { askUserQuestionTool } from './tools/askUserQuestion';
import { ToolCatalog } from './tools/catalog';
import { exitPlanModeTool } from './tools/exitPlanMode';
import { runCommandTool } from './tools/runCommand';
import type { RuntimeToolContext } from './tools/context';
import { limitExceeded, subagentTools } from './tools/subagentTools';
import type { ToolDefinition, ToolResult } from './tools/types';

export type { RuntimeToolContext };
export type RuntimeTool = ToolDefinition<RuntimeToolContext>;

/**
 * One root agent and everything it delegates to share a run: its limits, its token budget and
 * its interaction policy, which is resolved once from the run's context.
 */
export class Run extends RunBudget {
  constructor(
    limits: RunLimits,
    readonly policy: RunInteractionPolicy,
    readonly model?: ModelProvider,
  ) {
    super(limits);
  }
  get mode(): InteractionMode {
    return this.policy.mode;
  }
}

export type RuntimeEvent =
  | { type: 'agent_added'; agent: Agent }
  | { type: 'agent_removed'; agent: Agent }
  | { type: 'agent_changed'; agent: Agent; change: AgentChange };

/** A session log that can be released once its agent has ended (the durable JSONL log). */
export interface ClosableSessionLog extends SessionLog {
  /** Writes what is left, then frees the log; appending afterwards throws. */
  close(): Promise<void>;
}

/**
 * Durable sessions (the JSONL store): new sessions are created in it, past ones are read back
 * and taken over for writing when they are resumed, and the runtime closes the log of every
 * agent that ends, so memory does not grow with the number of agents a window has run.
 */
export interface DurableSessionStore extends SessionLogFactory {
  create(header: SessionHeader): ClosableSessionLog;
  /** Takes an existing session over for writing, repairing a crashed turn; SESSION_IN_USE if open. */
  reopenLog(id: string): Promise<ClosableSessionLog>;
  /** Reads a session without taking it over (nothing is written). */
  loadSession(id: string): Promise<{ header: SessionHeader; events: SessionEvent[] }>;
}

export interface RuntimeOptions {
  model: ModelProvider;
  /** The human-interaction seam; one is created over this runtime's registry when omitted. */
  interaction?: UserInteractionService;
  /**
   * Where agents write their sessions: in memory by default. A DurableSessionStore also makes
   * past sessions resumable (`resumeRoot`, and cold resume of settled continuable children).
   */
  sessions?: SessionLogFactory | DurableSessionStore;
  limits?: RunLimitsInput;
  /** Tools offered in addition to the subagent tools. */
  tools?: RuntimeTool[];
  /** Remembered approval rules (the editor keeps them per workspace and user); in memory when omitted. */
  approvalRules?: ApprovalRuleStore;
  systemPrompt?: string;
  workspace?: string;
  /** Session ids; unique across reloads by default. */
  newId?: (label: string) => string;
}

export interface StartRootOptions {
  prompt: string;
  label?: string;
  limits?: RunLimitsInput;
  /**
   * Internal callers only: public entry points parse their input with the trust boundary's
   * parsePublicRunRequest, which cannot carry these keys. An invalid mode throws POLICY_INVALID.
   */
  context?: RunContext;
  planMode?: boolean;
  /** A model for this run only (the demo runs on the scripted model whatever the setting). */
  model?: ModelProvider;
}

export interface ResumeRootOptions {
  limits?: RunLimitsInput;
  model?: ModelProvider;
  /** A message from the user to start the resumed agent's next turn with. */
  message?: string;
}

/** What an agent reopened from its log starts with, instead of an empty history. */
interface PastSession {
  log: SessionLog;
  conversation: ChatMessage[];
  turns: number;
  usage?: { inputTokens: number; outputTokens: number };
  lastTurnEnd?: TurnEnd;
  /** Messages queued but never claimed when the log ended; they come back parked. */
  pending?: PendingMessage[];
  lastQueueId?: number;
}

const BASE_PROMPT =
  'You are an agent running inside Arbor, in the user\'s editor. Work step by step with the tools you have. ' +
  'When you are done, answer with your final result as plain text and no tool calls.';
const PLAN_PROMPT =
  'You are in plan mode: only read-only tools are available. Investigate, then call exit_plan_mode with your plan to ask the user to approve it.';
const EXIT_PLAN_MODE = 'exit_plan_mode';
const SUBAGENT_PROMPT =
  'You are a subagent working for another agent, not directly for the user. You cannot ask the user anything: ' +
  'if a decision is missing, make a minimal reversible assumption and say so, or put the open question in your final result.';

/**
 * The agent runtime: the composition root that creates agents, hosts their turns, and owns
 * the registry, the continuation manager and the tools. Created on activation, disposed on
 * deactivation; nothing in here is a module-level singleton.
 */
export class Runtime implements AgentHost {
  readonly agents = new AgentRegistry();
  readonly subagents: SubagentService;
  readonly model: ModelProvider;
  readonly interaction: UserInteractionService;
  readonly approvals: ApprovalService;
  private readonly ownsInteraction: boolean;
  private readonly events = new Emitter<RuntimeEvent>();
  readonly onEvent = this.events.on;
  private readonly tools = new ToolCatalog<RuntimeToolContext>();
  private readonly sessions: SessionLogFactory;
  /** Set when sessions are durable: past sessions can be resumed and ended agents' logs closed. */
  private readonly store: DurableSessionStore | undefined;
  /** Logs being closed, by session id: reopening one waits for its close to finish. */
  private readonly closing = new Map<string, Promise<void>>();
  /** Ended agents whose aborted turn has yet to record its end before their log can close. */
  private readonly closeAfterTurn = new Set<Agent>();
  private readonly defaultLimits: RunLimits;
  private readonly manager: ContinuationManager;
  private readonly basePrompt: string;
  private readonly workspace: string | undefined;

  /** The folder commands run in and paths are relative to; none when no folder is open. */
  get workspaceFolder(): string | undefined {
    return this.workspace;
  }
  private readonly newId: (label: string) => string;
  private created = 0;
  private disposed = false;

  constructor(options: RuntimeOptions) {
    this.model = options.model;
    this.sessions = options.sessions ?? memorySessionLogs;
    this.store = isDurableStore(options.sessions) ? options.sessions : undefined;
    this.defaultLimits = resolveLimits(options.limits);
    this.basePrompt = options.systemPrompt ?? BASE_PROMPT;
    this.workspace = options.workspace;
    this.newId = options.newId ?? idMaker();
    this.ownsInteraction = !options.interaction;
    this.interaction = options.interaction ?? new UserInteractionService({ agents: this.agents });
    this.approvals = new ApprovalService({ interaction: this.interaction, rules: options.approvalRules });
    for (const tool of subagentTools) this.tools.add(tool as RuntimeTool);
    this.tools.add(askUserQuestionTool as unknown as RuntimeTool);
    this.tools.add(exitPlanModeTool as unknown as RuntimeTool);
    this.tools.add(runCommandTool as unknown as RuntimeTool);
    for (const tool of options.tools ?? []) this.tools.add(tool);
    this.manager = new ContinuationManager({
      agents: this.agents,
      createContinuable: (parent, label, resume) => this.createChild(parent, 'continuable', label, resume),
      released: (agent) => this.release(agent),
      loadSettled: this.store ? (caller, targetId) => this.loadSettledChild(caller, targetId) : undefined,
    });
    this.subagents = new SubagentService(this.manager);
  }

  /**
   * Offer one more tool from now on (a tool another extension contributes); disposing withdraws
   * it. A name already taken is refused (Error), so no tool can shadow another.
   */
  registerTool(tool: RuntimeTool): { dispose(): void } {
    this.tools.add(tool);
    return { dispose: () => this.tools.remove(tool) };
  }

  /** Start a root agent on a prompt. */
  startRoot(options: StartRootOptions): Agent {
    this.assertOpen();
    const policy = resolveInteractionPolicy(options.context);
    const run = new Run(options.limits ? resolveLimits({ ...this.defaultLimits, ...options.limits }) : this.defaultLimits, policy, options.model);
    const label = options.label?.trim() || summarise(options.prompt);
    const agent = this.createAgent({ label, kind: 'root', run, planMode: options.planMode });
    this.register(agent, {});
    agent.send(options.prompt, { from: 'user' });
    return agent;
  }

  /**
   * Reopen a past session as a new runtime root. The session continues under its own id (its
   * log is taken over for writing, a turn a crash left open is closed as `interrupted`), so
   * its transcript, the ids its conversation mentions and its children's recorded parent all
   * stay valid: after a reload, a resumed parent can cold-resume its continuable children.
   *
   * The agent is registered with no owner, so it may ask the human whatever its header says
   * about a parent: recorded lineage is history, never authority. It runs as a root in a new
   * run (fresh limits and token budget, delegation depth 0) whose interaction mode is the
   * persisted one, resolved through the policy again. Its conversation is rebuilt from the log,
   * its turn count and token usage carry over. A session that is live here is refused
   * (SESSION_IN_USE); without durable sessions resume is unavailable (INPUT_INVALID).
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
    await this.closing.get(sessionId);
    const log = await store.reopenLog(sessionId);
    try {
      this.assertOpen();
      assertNotLive();
      const policy = resolveInteractionPolicy({ interactionMode: log.header.interactionMode });
      const limits = options.limits ? resolveLimits({ ...this.defaultLimits, ...options.limits }) : this.defaultLimits;
      const run = new Run(limits, policy, options.model);
      const agent = this.createAgent({ label: log.header.label, kind: 'root', run, past: pastOf(log) });
      this.register(agent, {});
      if (options.message !== undefined) agent.send(options.message, { from: 'user' });
      return agent;
    } catch (err) {
      void log.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * The user's Stop: ends only this agent's current turn; its queue is parked and its
   * children keep running. Continuable children go through the interrupt authority check
   * with their durable parent address; one-shot children belong to their holder.
   */
  stop(agent: Agent): InterruptResult {
    if (agent.kind === 'one-shot') {
      throw new ArborError('SUBAGENT_UNAUTHORIZED', `"${agent.label}" is a one-shot subagent; stop the agent that is waiting for it.`);
    }
    if (agent.kind === 'continuable') {
      return this.subagents.interrupt(agent.id, { kind: 'user', parentSessionId: agent.log.header.parentSession ?? '' });
    }
    if (this.agents.isLive(agent) && agent.cancel('user', { keepInbox: true })) {
      agent.append({ type: 'interrupt', at: new Date().toISOString(), authority: 'user' });
    }
    return { accepted: true };
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
    this.release(agent);
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

  runOneShot(parent: Agent, label: string, prompt: string, signal: AbortSignal): Promise<OneShotOutcome> {
    this.checkDelegation(parent);
    const child = this.createChild(parent, 'one-shot', label);
    this.register(child, { owner: parent });
    return runOneShot(child, prompt, signal, (a) => this.release(a));
  }

  startContinuable(parent: Agent, label: string, prompt: string): Agent {
    this.checkDelegation(parent);
    return this.manager.start(parent, label, prompt);
  }

  /**
   * Abort every turn, dispose every agent, release every listener. Resolves once every log is
   * written, each aborted turn's end included: the live agents' and those of agents that ended
   * just before (still closing, or waiting for their aborted turn to record its end).
   */
  dispose(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.disposed = true;
    this.manager.dispose();
    const writes: Promise<void>[] = [];
    for (const agent of this.agents.all()) {
      agent.dispose();
      this.agents.remove(agent);
      // The aborted turn records its end a moment later: write after that, not before.
      writes.push(agent.whenIdle().then(() => agent.log.flush()).catch(() => undefined));
    }
    for (const agent of this.closeAfterTurn) writes.push(agent.whenIdle().then(() => this.closing.get(agent.id)));
    writes.push(...this.closing.values());
    this.events.dispose();
    this.agents.dispose();
    if (this.ownsInteraction) this.interaction.dispose();
    return Promise.all(writes).then(() => undefined);
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  // --- AgentHost -----------------------------------------------------------------------

  toolSpecs(agent: Agent): readonly ToolSpec[] {
    return this.tools.specs((def) => this.visible(agent, def));
  }

  runTool(agent: Agent, call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
    const policy = (agent.run as Run).policy;
    const ctx: RuntimeToolContext = { agent, signal, toolCallId: call.id, runtime: this, policy, interaction: this.interaction, approvals: this.approvals };
    return this.tools.execute(call, ctx, (def) => this.visible(agent, def));
  }

  systemPrompt(agent: Agent): string {
    const parts = [this.basePrompt];
    if (agent.kind !== 'root') parts.push(SUBAGENT_PROMPT);
    const guidance = (agent.run as Run).policy.systemPromptGuidance();
    if (guidance) parts.push(guidance);
    if (agent.planMode) parts.push(PLAN_PROMPT);
    return parts.join('\n\n');
  }

  agentChanged(agent: Agent, change: AgentChange): void {
    if (change.type === 'turn_end' && agent.kind === 'continuable') this.manager.turnEnded(agent, change.end);
    if (this.events.hasListeners) this.events.fire({ type: 'agent_changed', agent, change });
    if (change.type === 'turn_end' && this.closeAfterTurn.has(agent)) {
      this.closeAfterTurn.delete(agent);
      this.closeLog(agent);
    }
  }

  // --- internals -------------------------------------------------------------------------

  /** The run's policy decides what a model may see; plan mode narrows it to read-only tools. */
  private visible(agent: Agent, def: ToolDefinition<RuntimeToolContext>): boolean {
    if (agent.planMode && !def.readOnly) return false;
    if (def.name === EXIT_PLAN_MODE && !agent.planMode) return false;
    return (agent.run as Run).policy.isToolVisible(def.name);
  }

  private checkDelegation(parent: Agent): void {
    this.assertOpen();
    // A child needs a live parent: one that has ended (or whose End has begun) would leave it
    // with no parent to report to and no ancestry to be stopped through.
    if (!this.agents.isLive(parent) || parent.disposed || this.manager.isEnding(parent)) {
      throw new ArborError('AGENT_DISPOSED', `"${parent.label}" has ended; it cannot start subagents.`);
    }
    const limits = parent.run.limits;
    if (parent.delegationDepth + 1 > limits.maxDelegationDepth) {
      throw limitExceeded(`delegation may go at most ${limits.maxDelegationDepth} levels deep`);
    }
    if (this.agents.liveChildCount(parent) >= limits.maxLiveChildren) {
      throw limitExceeded(`an agent may have at most ${limits.maxLiveChildren} live subagents at once`);
    }
  }

  private createChild(parent: Agent, kind: AgentKind, label: string, resume?: { id: string; settled: SettledChild }): Agent {
    const agent = this.createAgent({ label, kind, run: parent.run as Run, parent, past: resume?.settled });
    if (kind === 'continuable') this.register(agent, { parent });
    return agent;
  }

  private createAgent(spec: {
    label: string;
    kind: AgentKind;
    run: Run;
    parent?: Agent;
    planMode?: boolean;
    /** A session reopened from its log (resume), instead of a new one. */
    past?: PastSession;
  }): Agent {
    const { label, kind, run, parent, past } = spec;
    let log: SessionLog;
    if (past) {
      log = past.log;
    } else {
      log = this.createLog({
        type: 'header',
        version: SESSION_FORMAT_VERSION,
        id: this.newId(label),
        createdAt: new Date().toISOString(),
        parentSession: parent?.id,
        delegationDepth: parent ? parent.delegationDepth + 1 : 0,
        kind,
        label,
        workspace: this.workspace,
        interactionMode: run.mode,
      });
    }
    const agent = new Agent({
      id: log.header.id,
      label,
      kind,
      // Depth counts within the run: a resumed root starts a new run at 0, whatever its header recorded.
      delegationDepth: parent ? parent.delegationDepth + 1 : 0,
      log,
      host: this,
      run,
      createdAt: ++this.created,
      planMode: spec.planMode,
      conversation: past?.conversation,
      turnsSoFar: past?.turns,
      pending: past?.pending,
      lastQueueId: past?.lastQueueId,
    });
    if (past?.usage) {
      agent.usage.inputTokens = past.usage.inputTokens;
      agent.usage.outputTokens = past.usage.outputTokens;
    }
    if (past?.lastTurnEnd) agent.lastTurnEnd = past.lastTurnEnd;
    return agent;
  }

  /** Session creation is exclusive: an id another window (or a past session) holds gets a new id. */
  private createLog(header: SessionHeader): SessionLog {
    for (let attempt = 1; ; attempt++) {
      try {
        return this.sessions.create(header);
      } catch (err) {
        if (!isArborError(err, 'SESSION_EXISTS') || attempt >= 3) throw err;
        header = { ...header, id: this.newId(header.label) };
      }
    }
  }

  private register(agent: Agent, relations: { owner?: Agent; parent?: Agent }): void {
    this.agents.add(agent, relations);
    if (this.events.hasListeners) this.events.fire({ type: 'agent_added', agent });
  }

  private release(agent: Agent): void {
    // "Allow for this agent" ends with the agent's life here: a resume asks again.
    this.approvals.forgetAgent(agent);
    const parent = this.agents.parentOf(agent);
    if (this.agents.remove(agent) && this.events.hasListeners) this.events.fire({ type: 'agent_removed', agent });
    this.manager.agentRemoved(agent, parent);
    if (!this.store) return;
    // A turn aborted by the disposal still records its end: close the log after that.
    if (agent.status === 'running') this.closeAfterTurn.add(agent);
    else this.closeLog(agent);
  }

  /** Frees an ended agent's durable log; a resume of the same session waits for it. */
  private closeLog(agent: Agent): void {
    const log = unwrapLog(agent.log);
    if (!isClosable(log) || this.closing.has(agent.id)) return;
    const closing = log.close().catch((err: unknown) => console.error(`Arbor: could not save session ${agent.id}`, err));
    this.closing.set(agent.id, closing);
    void closing.then(() => {
      if (this.closing.get(agent.id) === closing) this.closing.delete(agent.id);
    });
  }

  /**
   * The continuation manager's loader: a continuable session whose recorded parent is exactly
   * `caller`, taken over for writing. Durable lineage only selects which past session the
   * caller may reopen; it never grants authority over a live agent.
   */
  private async loadSettledChild(caller: Agent, targetId: string): Promise<LoadedSettledChild | undefined> {
    const store = this.store;
    if (!store) return undefined;
    const live = this.agents.get(targetId);
    if (live) {
      throw new ArborError('SUBAGENT_UNAUTHORIZED', `Agent ${targetId} ("${live.label}") was reopened by the user and runs on its own now; it no longer takes messages from you.`);
    }
    await this.closing.get(targetId);
    let header: SessionHeader;
    try {
      header = (await store.loadSession(targetId)).header;
    } catch (err) {
      if (isArborError(err, 'SESSION_NOT_FOUND')) return undefined;
      throw err;
    }
    if (header.kind !== 'continuable' || header.parentSession !== caller.id) return undefined;
    const log = await store.reopenLog(targetId);
    const past = pastOf(log);
    return {
      ...past,
      parentSessionId: caller.id,
      label: log.header.label,
      delegationDepth: caller.delegationDepth + 1,
      discard: () => void log.close().catch(() => undefined),
    };
  }

  private assertOpen(): void {
    if (this.disposed) throw new ArborError('AGENT_DISPOSED', 'Arbor has shut down; reload the window to start agents again.');
  }
}

/** The subagent operations the editor and the tools use. */
export class SubagentService {
  constructor(private readonly manager: ContinuationManager) {}

  interrupt(targetSessionId: string, authority: InterruptAuthority): InterruptResult {
    return this.manager.interrupt(targetSessionId, authority);
  }

  deliver(caller: Agent, targetId: string, message: string): Promise<{ agentId: string; resumed: boolean }> {
    return this.manager.deliver(caller, targetId, message);
  }

  /** The live Activation of a continuable child (for views and tests; not an authority). */
  get(id: string): Activation | undefined {
    return this.manager.get(id);
  }

  isContinuable(agent: Agent): boolean {
    return this.manager.isActivation(agent);
  }

  liveContinuableCount(): number {
    return this.manager.liveCount();
  }
}

function isDurableStore(sessions: SessionLogFactory | DurableSessionStore | undefined): sessions is DurableSessionStore {
  return typeof (sessions as Partial<DurableSessionStore> | undefined)?.reopenLog === 'function';
}

function isClosable(log: SessionLog): log is ClosableSessionLog {
  return typeof (log as Partial<ClosableSessionLog>).close === 'function';
}

/** Reads back what a reopened session carries into its agent: conversation, turns, usage, last turn end. */
function pastOf(log: SessionLog): PastSession {
  let turns = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let lastText = '';
  let lastTurnEnd: TurnEnd | undefined;
  for (const event of log.events) {
    switch (event.type) {
      case 'turn_start':
        turns = Math.max(turns, event.turn);
        lastText = '';
        break;
      case 'assistant_text':
        lastText = event.text;
        break;
      case 'turn_end':
        turns = Math.max(turns, event.turn);
        lastTurnEnd = { turn: event.turn, reason: event.reason, cause: event.cause, message: event.message, finalText: lastText };
        break;
      case 'usage':
        inputTokens += event.inputTokens;
        outputTokens += event.outputTokens;
        break;
      default:
        break;
    }
  }
  const queue = pendingQueueFromEvents(log.events);
  return {
    log,
    conversation: conversationFromEvents(log.events),
    turns,
    usage: { inputTokens, outputTokens },
    lastTurnEnd,
    pending: queue.pending,
    lastQueueId: queue.lastId,
  };
}

/**
 * Session ids unique across reloads and windows: the label, the time, and a random part drawn
 * once per runtime followed by a counter (a random draw per id showed up in fan-out profiles).
 */
function idMaker(): (label: string) => string {
  const nonce = randomBytes(4).toString('hex');
  let count = 0;
  return (label) => {
    const slug = label.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 24) || 'agent';
    return `${slug}-${Date.now().toString(36)}-${nonce}${(++count).toString(36)}`;
  };
}

function summarise(prompt: string): string {
  const line = prompt.trim().split('\n')[0];
  return line.length > 40 ? `${line.slice(0, 39)}…` : line || 'Agent';
}
