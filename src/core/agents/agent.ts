// Why this file stays whole: an agent is one state machine (its turn, its inbox, its holds, its
// abort, its log) whose transitions read one another: a Stop holds the queue, a turn end claims
// from it, disposal aborts the turn. Split apart, every transition would reach across files for
// the rest. What a hold is and how it is said lives in holds.ts.
import { isoNow } from '../clock';
import { ArborError, type CancelCause } from '../errors';
import type { AgentBounds } from '../definitions/bounds';
import type { AgentDefinition } from '../definitions/types';
import type { ChatMessage, ModelProvider, ToolCall, ToolSpec } from '../models/types';
import { unwrapLog } from '../sessions/observedLog';
import type { AgentKind, PlanItem, SessionEvent, SessionLog } from '../sessions/types';
import type { ToolResult } from '../tools/types';
import { AgentHolds, holdAt, lapsesWhenEmpty, newHold, NO_HOLDS, type GateStep, type Hold, type HoldRelease, type HoldTarget } from './holds';
import { Inbox, type CancelOptions, type InboxItem, type SendOptions } from './inbox';
import type { AgentRun } from './agentRun';
import { AgentLog, turnEndEvent } from './agentLog';
import { TurnAbort, whenAborted } from './turnAbort';
import { runEngineTurn, type TurnEngine } from './turnEngine';
import { TurnLoop, type TurnEnd } from './turnLoop';

export { unwrapLog };
export type { TurnEnd };
export type { CancelOptions, MessageSource, SendOptions, WakeMode } from './inbox';
export type { EngineNotice, EngineTurn, TurnEngine } from './turnEngine';
export type { AgentRun, RunWorkspace } from './agentRun';

export type AgentStatus = 'idle' | 'running';

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

export type AgentChange =
  | { type: 'status' }
  | { type: 'turn_start'; turn: number }
  | { type: 'turn_end'; end: TurnEnd }
  | { type: 'log'; event: SessionEvent }
  | { type: 'usage' }
  /** The running turn's tools started, or their results are in (see activityOf). */
  | { type: 'activity' }
  /** The session log could not save something, or saved it after all (see `Agent.sessionProblem`). */
  | { type: 'session_problem'; problem: ArborError | undefined }
  /** A Stop was sent but the agent has not ended its turn within its grace period (external agents). */
  | { type: 'stop_overdue'; graceMs: number }
  | { type: 'disposed' };

export interface AgentInit {
  id: string;
  label: string;
  kind: AgentKind;
  delegationDepth: number;
  log: SessionLog;
  host: AgentHost;
  run: AgentRun;
  /** Creation order within the process (a counter, not a time): siblings are listed by it, then by id. */
  creationOrder: number;
  planMode?: boolean;
  /** The conversation so far, when reopening a past session. */
  conversation?: ChatMessage[];
  /** Turns already recorded in a reopened session. */
  turnsSoFar?: number;
  /** Messages a reopened session had queued but never claimed: they come back held (`reload`). */
  pending?: readonly InboxItem[];
  /** The last queue id a reopened session used. */
  lastQueueId?: number;
  /** Runs the turns instead of the model turn loop (an external agent). */
  engine?: TurnEngine<Agent>;
  /** The definition it was started with (name and file) and what definitions allow it (definitions/bounds.ts). */
  definition?: AgentDefinition;
  bounds?: AgentBounds;
  /** Its definition's model, used instead of the run's. */
  model?: ModelProvider;
  plan?: readonly PlanItem[];
}

/** Changes without data are shared, not allocated per notification. */
const STATUS_CHANGED: AgentChange = Object.freeze({ type: 'status' });
const NO_USAGE = Object.freeze({ inputTokens: 0, outputTokens: 0 });
/** Conversations up to this long are kept at their size at rest: for them the room push keeps is most of the array. */
const SHORT_CONVERSATION = 16;

const now = isoNow;

/**
 * One conversation driven by a turn loop (turnLoop.ts): model call, tool calls, results, repeat
 * until the model answers without tool calls. Messages queue in a FIFO inbox (inbox.ts); a turn
 * claims one message. Each turn has a signal (turnAbort.ts) that reaches the model request and
 * every tool. Every change is reported to the host, in order, and nowhere else.
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
  /** The conversation the model sees; kept at its size while the agent rests (see startNextTurn). */
  private messages: ChatMessage[];
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
  private readonly inbox: Inbox;
  /** Null while nothing holds the agent (most of its life): an idle agent carries no list. */
  private holdSet: AgentHolds | null = null;
  private modelCalls = 0;
  private turns: number;
  /** The running turn, with its abort (made per turn: an idle agent holds none). */
  private current: { turn: number; startedAt: number; abort: TurnAbort; stopping?: CancelCause } | undefined;
  private disposedFlag = false;
  private idleWaiter: { promise: Promise<void>; resolve: () => void } | undefined;
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
    this.messages = init.conversation ?? [];
    this.turns = init.turnsSoFar ?? 0;
    this.inbox = new Inbox(init.lastQueueId ?? 0, init.pending);
    if (init.pending?.length) this.putHold(newHold('reload'));
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
    return this.current ? 'running' : 'idle';
  }
  get conversation(): ChatMessage[] {
    return this.messages;
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
    return this.inbox.size;
  }
  /** Everything that keeps the agent from running, oldest first (holds.ts). */
  get holds(): readonly Hold[] {
    return this.holdSet?.all ?? NO_HOLDS;
  }
  /** True when a hold keeps queued work waiting for the next waking send (a Stop, a branch Stop, a reload). */
  get isParked(): boolean {
    return this.inbox.size > 0 && holdAt(this.holds, 'claim') !== undefined;
  }
  /** After a branch Stop, until a waking send: only that send starts a turn (a child's report just queues). */
  get isHeld(): boolean {
    return this.holdSet?.has('branch') ?? false;
  }
  /** Set between a cancel and the end of the turn it aborted. */
  get stopping(): CancelCause | undefined {
    return this.current?.stopping;
  }
  get turnCount(): number {
    return this.turns;
  }
  get currentTurn(): number | undefined {
    return this.current?.turn;
  }
  get turnStartedAt(): number | undefined {
    return this.current?.startedAt;
  }

  /** Queue a message. A waking send starts a turn when the agent is idle. */
  send(text: string, options: SendOptions): void {
    if (this.disposedFlag) {
      throw new ArborError('AGENT_DISPOSED', `Agent "${this.label}" has ended; start a new agent or resume its session.`);
    }
    const item = this.inbox.send(text, options.from, options.atNextStep ?? false, now());
    this.append(item);
    if (item.from === 'user') this.releaseHolds('person-message');
    const wake = options.wake ?? true;
    if (wake === false) {
      this.host.agentChanged(this, STATUS_CHANGED);
      return;
    }
    if (wake === true) this.releaseHolds('waking-send');
    if (!this.current) this.startNextTurn();
    else this.host.agentChanged(this, STATUS_CHANGED);
  }

  /**
   * Abort the current turn. Without keepInbox the unclaimed queue is cleared; with it the
   * queue is held (`stop`) until the next waking send. Cancelling an idle agent does nothing.
   * Returns whether a signal was issued.
   */
  cancel(cause: CancelCause, options: CancelOptions = {}): boolean {
    const turn = this.current;
    if (!turn) return false;
    if (options.keepInbox) this.putHold(newHold('stop'));
    else this.dropQueue();
    if (!turn.abort.aborted) {
      turn.stopping = cause;
      turn.abort.abort(cause);
      this.host.agentChanged(this, STATUS_CHANGED);
    }
    return true;
  }

  /**
   * Park the unclaimed queue as a cancel with keepInbox does, but let the running turn go on: a
   * budget pause keeps whole the reply that spent the budget, and that agent's queue must wait
   * for the raise like every other agent's. Returns whether a turn was running; an idle agent's
   * queue is left as it is, as a cancel leaves it.
   */
  parkQueue(): boolean {
    if (!this.current) return false;
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

  /** Puts a hold on the agent (one per reason; see AgentHolds.put). It announces nothing: the caller's stop does. */
  putHold(hold: Hold): void {
    (this.holdSet ??= new AgentHolds()).put(hold);
  }

  /** Takes off the holds `rule` releases; returns them. */
  releaseHolds(rule: HoldRelease): readonly Hold[] {
    return this.dropHolds((h) => h.release === rule);
  }

  /**
   * The one gate: the hold that stops `step` now, if any. Before a claim, the queue holds; in the
   * turn loop, the run holds, then (before a turn or a model call) the run's own gate.
   */
  gate(step: GateStep): Hold | undefined {
    const held = this.holdSet && holdAt(this.holdSet.all, step);
    if (held) return held;
    return step === 'turn' || step === 'modelCall' ? this.run.gate?.gate(this.run.budget, step, this.id) : undefined;
  }

  /**
   * Calls `callback` once when `signal` (normally this agent's turn signal, handed to a tool)
   * aborts; returns the unsubscribe. The one-shot children a turn holds are cancelled this way.
   */
  whenTurnAborted(signal: AbortSignal, callback: () => void): () => void {
    const turn = this.current;
    return turn ? turn.abort.whenAborted(signal, callback) : whenAborted(signal, callback);
  }

  /** Resolves when no turn is running and none is about to start. */
  whenIdle(): Promise<void> {
    if (!this.current) return Promise.resolve();
    if (!this.idleWaiter) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.idleWaiter = { promise, resolve };
    }
    return this.idleWaiter.promise;
  }

  /**
   * End the agent: abort its turn. The registry entry is removed by the owner. With
   * `dropQueue` its queued messages are recorded as dropped; without it (shutdown) they stay
   * in the session log and come back when the session is reopened.
   */
  dispose(options: { dropQueue?: boolean } = {}): void {
    if (this.disposedFlag) return;
    if (options.dropQueue) this.dropQueue();
    this.disposedFlag = true;
    this.inbox.drop();
    this.current?.abort.abort('disposed');
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

  /** Runs again, in a new turn, the call (last in the conversation) a resumed session waited on for the human. */
  continueWaitingCall(call: ToolCall): void {
    void (this.disposedFlag || this.current ? undefined : this.runAndFinishTurn({ resumedCall: call }));
  }

  /** Starts a turn on the next unclaimed message, or reports the agent idle when there is none. */
  private startNextTurn(): void {
    if (this.current) return;
    const next = this.disposedFlag || this.gate('claim') ? undefined : this.inbox.claimNext();
    if (!next) {
      if (this.inbox.size === 0) this.dropHolds(lapsesWhenEmpty);
      // At rest: an array grown by push keeps room for 17 items, so a short conversation is
      // copied to its size (the next turn's first push makes room again).
      if (this.messages.length <= SHORT_CONVERSATION) this.messages = this.messages.slice();
      const waiter = this.idleWaiter;
      this.idleWaiter = undefined;
      this.host.agentChanged(this, STATUS_CHANGED);
      waiter?.resolve();
      return;
    }
    void this.runAndFinishTurn(next);
  }

  /** Starts the turn; its end is recorded when the loop settles (no frame of its own waits for it). */
  private runAndFinishTurn(first: InboxItem | { resumedCall: ToolCall }): Promise<void> {
    const [abort, turn] = [new TurnAbort(), ++this.turns];
    this.current = { turn, startedAt: Date.now(), abort };
    this.host.agentChanged(this, STATUS_CHANGED);
    if (this.engine && !('resumedCall' in first)) {
      return runEngineTurn(this.engine, this, first, turn, abort.signal, (change) => this.host.agentChanged(this, change)).then((end) => this.finishTurn(end));
    }
    const loop = new TurnLoop<Agent>(this, this.host, this.inbox, abort, this.modelCalls);
    return loop.run(first, turn).then((end) => {
      this.modelCalls = loop.modelCalls;
      this.finishTurn(end);
    });
  }

  private finishTurn(end: TurnEnd): void {
    this.append(turnEndEvent(end));
    this.lastTurnEnd = end;
    this.current?.abort.end(!this.disposedFlag);
    this.current = undefined;
    const [id, host] = [this.id, this.host]; // not the agent: the write may finish long after it is gone
    this.log.flush().catch((err) => host.onProblem(`Arbor: could not save session ${id}`, err));
    this.host.agentChanged(this, { type: 'turn_end', end });
    this.startNextTurn();
  }

  private dropHolds(match: (hold: Hold) => boolean): readonly Hold[] {
    const set = this.holdSet;
    if (!set) return NO_HOLDS;
    const dropped = set.release(match);
    if (set.empty) this.holdSet = null;
    return dropped;
  }

  private dropQueue(): void {
    if (this.inbox.size === 0) return;
    this.append({ type: 'queue_dropped', at: now(), ids: this.inbox.drop() });
  }
}
