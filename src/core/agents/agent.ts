import { isoNow } from '../clock';
import { ArborError, type CancelCause } from '../errors';
import type { AgentBounds } from '../definitions/bounds';
import type { AgentDefinition } from '../definitions/types';
import type { AgentChange, AgentInitOf, AgentStatus } from './agentInit';
import type { ChatMessage, ModelProvider, ToolCall, ToolSpec } from '../models/types';
import { unwrapLog } from '../sessions/observedLog';
import type { AgentKind, PlanItem, SessionEvent, SessionLog } from '../sessions/types';
import type { ToolResult } from '../tools/types';
import { newHold, type GateStep, type Hold, type HoldRelease, type HoldTarget } from './holds';
import type { CancelOptions, SendOptions } from './inbox';
import type { DeferredPast } from './deferredPast';
import { AgentQueue } from './agentQueue';
import { AgentTurns, STATUS_CHANGED } from './agentTurns';
import type { AgentRun } from './agentRun';
import { AgentLog } from './agentLog';
import type { TurnEngine } from './turnEngine';
import type { TurnEnd } from './turnLoop';

export { unwrapLog };
export type { AgentChange, AgentStatus, TurnEnd };
export type { CancelOptions, MessageSource, SendOptions, WakeMode } from './inbox';
export type { EngineNotice, EngineTurn, TurnEngine } from './turnEngine';
export type { AgentRun, RunWorkspace } from './agentRun';

/** What an agent needs from the runtime that hosts it. */
export interface AgentHost {
  readonly model: ModelProvider;
  toolSpecs(agent: Agent): readonly ToolSpec[];
  runTool(agent: Agent, call: ToolCall, signal: AbortSignal): Promise<ToolResult>;
  systemPrompt(agent: Agent): string;
  /** Every change of the agent, in order: the agent's one output (the runtime's event channel). */
  agentChanged(agent: Agent, change: AgentChange): void;
  /** A failure nobody awaits: a session that could not be saved after its turn ended. */
  onProblem(problem: string, err: unknown): void;
}

/** What an Agent is made from (agentInit.ts). */
export type AgentInit = AgentInitOf<AgentHost, TurnEngine<Agent>>;

const NO_USAGE = Object.freeze({ inputTokens: 0, outputTokens: 0 });
const now = isoNow;

/** When the prompt a resumed waiting call opens again was first opened (continueWaitingCall): kept aside, since few agents ever have one. */
const waitingSince = new WeakMap<object, number>();

/**
 * One conversation driven by a turn loop (turnLoop.ts): model call, tool calls, results, repeat
 * until the model answers without tool calls. Messages queue in a FIFO inbox; a turn claims one
 * message. Each turn has a signal (turnAbort.ts) that reaches the model request and every tool.
 * Every change is reported to the host, in order, and nowhere else.
 *
 * The agent is one state machine whose transitions read one another (a Stop holds the queue, a
 * turn end claims from it, disposal aborts the turn); this class is its one face and keeps the
 * transitions that cross its parts (send, cancel, interrupt, dispose). Its parts hold their own
 * state and rules: the queue and what holds it in agentQueue.ts (holds.ts says what a hold is),
 * the conversation, the running turn and the step to the next in agentTurns.ts.
 */
export class Agent implements HoldTarget {
  readonly id: string;
  readonly label: string;
  readonly kind: AgentKind;
  readonly delegationDepth: number;
  readonly log: SessionLog;
  readonly run: AgentRun;
  /** Creation order within the process (a counter, not a time). */
  readonly creationOrder: number;
  planMode: boolean;
  /** Tokens used, made at the first response that reports any (an agent that never spent shares NO_USAGE). */
  private spent: { inputTokens: number; outputTokens: number } | undefined;
  lastTurnEnd: TurnEnd | undefined;
  /** The latest problem saving this agent's session (shown on its node), if any. */
  sessionProblem: ArborError | undefined;
  /** Set for an external agent: what runs its turns instead of Arbor's model loop. */
  readonly engine: TurnEngine<Agent> | undefined;
  /** The definition it was started with; undefined for an agent started without one. */
  readonly definition: AgentDefinition | undefined;
  /** What definitions allow it (its own and its ancestors'); undefined when none bounds it. */
  readonly bounds: AgentBounds | undefined;
  /** Its definition's model, used instead of the run's; undefined for the run's. */
  readonly model: ModelProvider | undefined;
  /** Its latest plan (update_plan, an external agent's plan); set as its log records it (plans/plan.ts). */
  plan: readonly PlanItem[] | undefined;

  private readonly host: AgentHost;
  /** The inbox and its holds. */
  private readonly queue: AgentQueue;
  /** The conversation and the running turn. */
  private readonly turns: AgentTurns<Agent>;
  private disposedFlag = false;
  /** Stops the session log's problem reports to this agent. */
  private stopProblemReports: (() => void) | undefined;

  constructor(init: AgentInit) {
    this.id = init.id;
    this.label = init.label;
    this.kind = init.kind;
    this.delegationDepth = init.delegationDepth;
    // Every append, including those tools make through ctx.agent.log, reaches the views.
    this.log = new AgentLog(unwrapLog(init.log), this, init.host);
    this.stopProblemReports =
      unwrapLog(init.log).onProblem?.((problem) => {
        this.sessionProblem = problem;
        this.host.agentChanged(this, { type: 'session_problem', problem });
      }) ?? undefined;
    this.host = init.host;
    this.run = init.run;
    this.creationOrder = init.creationOrder;
    this.planMode = init.planMode ?? false;
    this.queue = new AgentQueue(init.lastQueueId ?? 0, init.pending);
    this.turns = new AgentTurns<Agent>(this, init.host, this.queue, init.conversation ?? [], init.turnsSoFar ?? 0);
    this.engine = init.engine;
    this.definition = init.definition;
    this.bounds = init.bounds;
    this.model = init.model;
    this.plan = init.plan;
  }

  /** The creation order under its former name; it was never a time. */
  get createdAt(): number {
    return this.creationOrder;
  }
  get status(): AgentStatus {
    return this.turns.running ? 'running' : 'idle';
  }
  get conversation(): ChatMessage[] {
    return this.turns.messages;
  }
  /** Tokens in and out used by the agent so far. */
  get usage(): Readonly<{ inputTokens: number; outputTokens: number }> {
    return this.spent ?? NO_USAGE;
  }
  /** Counts the tokens of one response (the turn loop; a resumed session's past usage). */
  addUsage(inputTokens: number, outputTokens: number): void {
    const spent = (this.spent ??= { inputTokens: 0, outputTokens: 0 });
    spent.inputTokens += inputTokens;
    spent.outputTokens += outputTokens;
  }
  get disposed(): boolean {
    return this.disposedFlag;
  }
  /** Messages waiting in the inbox (parked or not). */
  get pendingCount(): number {
    return this.queue.size;
  }
  /** Everything that keeps the agent from running, oldest first (holds.ts). */
  get holds(): readonly Hold[] {
    return this.queue.holds;
  }
  /** True when a hold keeps queued work waiting for the next waking send (a Stop, a branch Stop, a reload). */
  get isParked(): boolean {
    return this.queue.isParked;
  }
  /** After a branch Stop, until a waking send: only that send starts a turn (a child's report just queues). */
  get isHeld(): boolean {
    return this.queue.has('branch');
  }
  /** Set between a cancel and the end of the turn it aborted. */
  get stopping(): CancelCause | undefined {
    return this.turns.running?.stopping;
  }
  /** A restored agent's log still unread (restore/deferredLog.ts) is read now; undefined when its conversation is in memory. Rejects when it cannot be read. */
  loadPast(): Promise<void> | undefined {
    return (unwrapLog(this.log) as Partial<DeferredPast>).readInto?.(this.turns);
  }
  get turnCount(): number {
    return this.turns.count;
  }
  get currentTurn(): number | undefined {
    return this.turns.running?.turn;
  }
  get turnStartedAt(): number | undefined {
    return this.turns.running?.startedAt;
  }

  /** Queue a message. A waking send starts a turn when the agent is idle. */
  send(text: string, options: SendOptions): void {
    if (this.disposedFlag) {
      throw new ArborError('AGENT_DISPOSED', `Agent "${this.label}" has ended; start a new agent or resume its session.`);
    }
    const item = this.queue.send(text, options.from, options.atNextStep ?? false, now());
    this.append(item);
    if (item.from === 'user') this.releaseHolds('person-message');
    const wake = options.wake ?? true;
    if (wake === false) {
      this.host.agentChanged(this, STATUS_CHANGED);
      return;
    }
    if (wake === true) this.releaseHolds('waking-send');
    if (!this.turns.running) this.turns.startNext();
    else this.host.agentChanged(this, STATUS_CHANGED);
  }

  /**
   * Abort the current turn. Without keepInbox the unclaimed queue is cleared; with it the
   * queue is held (`stop`) until the next waking send. Cancelling an idle agent does nothing.
   * Returns whether a signal was issued.
   */
  cancel(cause: CancelCause, options: CancelOptions = {}): boolean {
    return this.turns.cancel(cause, options.keepInbox ?? false);
  }

  /**
   * Park the unclaimed queue as a cancel with keepInbox does, but let the running turn go on: a
   * budget pause keeps whole the reply that spent the budget, and that agent's queue must wait
   * for the raise like every other agent's. Returns whether a turn was running; an idle agent's
   * queue is left as it is, as a cancel leaves it.
   */
  parkQueue(): boolean {
    if (!this.turns.running) return false;
    this.putHold(newHold('stop'));
    return true;
  }

  /**
   * A Stop on someone's authority, already checked by the caller: the current turn is cancelled
   * with its queue parked, and the session records who interrupted it (the one place an
   * `interrupt` record is written). `by` is the interrupting ancestor's id. Returns whether a
   * turn was signalled; an idle agent records nothing.
   */
  interrupt(authority: 'user' | 'ancestor', by?: string): boolean {
    if (!this.cancel(authority === 'user' ? 'user' : 'parent', { keepInbox: true })) return false;
    this.append(by === undefined ? { type: 'interrupt', at: now(), authority } : { type: 'interrupt', at: now(), authority, by });
    return true;
  }

  /** Keep the agent stopped after a branch Stop (see isHeld); its running turn is the caller's to interrupt. */
  hold(): void {
    if (this.disposedFlag || this.isHeld) return;
    this.putHold(newHold('branch'));
    this.host.agentChanged(this, STATUS_CHANGED);
  }

  /** Puts a hold on the agent (one per reason; see AgentQueue.put). It announces nothing: the caller's stop does. */
  putHold(hold: Hold): void {
    this.queue.put(hold);
  }

  /** Takes off the holds `rule` releases; returns them. */
  releaseHolds(rule: HoldRelease): readonly Hold[] {
    return this.queue.release((h) => h.release === rule);
  }

  /**
   * The one gate: the hold that stops `step` now, if any. Before a claim, the queue holds; in the
   * turn loop, the run holds, then (before a turn or a model call) the run's own gate.
   */
  gate(step: GateStep): Hold | undefined {
    const held = this.queue.heldAt(step);
    if (held) return held;
    return step === 'turn' || step === 'modelCall' ? this.run.gate?.gate(this.run.budget, step, this.id) : undefined;
  }

  /**
   * Calls `callback` once when `signal` (normally this agent's turn signal, handed to a tool)
   * aborts; returns the unsubscribe. The one-shot children a turn holds are cancelled this way.
   */
  whenTurnAborted(signal: AbortSignal, callback: () => void): () => void {
    return this.turns.whenTurnAborted(signal, callback);
  }

  /** Resolves when no turn is running and none is about to start. */
  whenIdle(): Promise<void> {
    return this.turns.whenIdle();
  }

  /**
   * End the agent: abort its turn. The registry entry is removed by the owner. With
   * `dropQueue` its queued messages are recorded as dropped; without it (shutdown) they stay
   * in the session log and come back when the session is reopened.
   */
  dispose(options: { dropQueue?: boolean } = {}): void {
    if (this.disposedFlag) return;
    if (options.dropQueue) this.turns.dropQueue();
    this.disposedFlag = true;
    this.queue.drop();
    this.turns.running?.abort.abort('disposed');
    this.engine?.dispose();
    this.host.agentChanged(this, { type: 'disposed' });
  }

  append(event: SessionEvent): void {
    this.log.append(event);
  }

  /** What its engine says about itself changed (see TurnEngine.notice): the views show it again. */
  engineChanged(): void {
    if (!this.disposedFlag) this.host.agentChanged(this, STATUS_CHANGED);
  }

  /**
   * The agent has ended and its log is being closed: it has no node any more, so problems the
   * log meets later reach only the Arbor log, and the log (written in the background) no
   * longer keeps this agent and its conversation alive.
   */
  detachFromLog(): void {
    this.stopProblemReports?.();
    this.stopProblemReports = undefined;
  }

  /**
   * Runs again, in a new turn, the call (last in the conversation) a resumed session waited on for
   * the human. `since` is when it was first asked: the prompt it opens again is dated from then.
   */
  continueWaitingCall(call: ToolCall, since?: string): void {
    const at = since === undefined ? Number.NaN : Date.parse(since);
    if (Number.isFinite(at)) waitingSince.set(this, at);
    this.turns.continueWaitingCall(call);
  }

  /** When the prompt this agent opens now was first opened, once (see continueWaitingCall). */
  takeWaitingSince(): number | undefined {
    const since = waitingSince.get(this);
    waitingSince.delete(this);
    return since;
  }
}
