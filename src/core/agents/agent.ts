import { getEventListeners } from 'node:events';
import { isoNow } from '../clock';
import { AbortedError, ArborError, abortCauseOf, isArborError, type ArborErrorCode, type CancelCause } from '../errors';
import type { RunBudget } from '../limits';
import { parseModelChunk } from '../models/modelChunk';
import type { ChatMessage, ModelProvider, ToolCall, ToolSpec } from '../models/types';
import type { RunInteractionPolicy } from '../interaction/policy';
import { ObservedLog, unwrapLog } from '../sessions/observedLog';
import type { AgentKind, SessionEvent, SessionLog, TurnEndReason } from '../sessions/types';
import { errorResult } from '../tools/catalog';
import type { ToolResult } from '../tools/types';

export type AgentStatus = 'idle' | 'running';
export type MessageSource = 'user' | 'parent' | 'child' | 'system';

/**
 * How a send treats a sleeping agent. `true` starts a turn when idle and un-parks a parked
 * queue; `false` only queues; `'unless-parked'` starts a turn when idle but leaves a queue the
 * user parked alone (reports from children must not undo a Stop).
 */
export type WakeMode = boolean | 'unless-parked';

export interface SendOptions {
  from: MessageSource;
  wake?: WakeMode;
  /**
   * Deliver into a running turn at its next model call instead of waiting for a turn of its
   * own (children's reports reach a busy parent this way).
   */
  atNextStep?: boolean;
}

interface InboxItem {
  /** Numbers the message in the session log, so a reopened session knows what was never claimed. */
  id: number;
  text: string;
  from: MessageSource;
  atNextStep: boolean;
}

export interface CancelOptions {
  /** Park the unclaimed queue instead of clearing it. */
  keepInbox?: boolean;
}

export interface TurnEnd {
  turn: number;
  reason: TurnEndReason;
  cause?: CancelCause;
  message?: string;
  /** The error's stable code when the turn ended with `error` (e.g. MODEL_TIMEOUT). */
  code?: ArborErrorCode;
  /** The model's last text of the turn (the result a parent receives). */
  finalText: string;
}

/** What an agent needs from the runtime that hosts it. */
export interface AgentHost {
  readonly model: ModelProvider;
  toolSpecs(agent: Agent): readonly ToolSpec[];
  runTool(agent: Agent, call: ToolCall, signal: AbortSignal): Promise<ToolResult>;
  systemPrompt(agent: Agent): string;
  agentChanged(agent: Agent, change: AgentChange): void;
}

export type AgentChange =
  | { type: 'status' }
  | { type: 'turn_start'; turn: number }
  | { type: 'turn_end'; end: TurnEnd }
  | { type: 'log'; event: SessionEvent }
  | { type: 'usage' }
  /** The session log could not save something, or saved it after all (see `Agent.sessionProblem`). */
  | { type: 'session_problem'; problem: ArborError | undefined }
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
  /** Messages a reopened session had queued but never claimed: they come back parked. */
  pending?: readonly InboxItem[];
  /** The last queue id a reopened session used. */
  lastQueueId?: number;
}

/**
 * The run an agent belongs to (a root and everything it delegates to): shared limits and token
 * budget, the interaction policy resolved once when the run started, and optionally its own model.
 */
export interface AgentRun extends RunBudget {
  readonly policy: RunInteractionPolicy;
  /** When set, every agent of the run talks to this model instead of the runtime's. */
  readonly model?: ModelProvider;
}

class BudgetExceeded extends Error {}

/** Changes without data are shared, not allocated per notification. */
const STATUS_CHANGED: AgentChange = Object.freeze({ type: 'status' });
const USAGE_CHANGED: AgentChange = Object.freeze({ type: 'usage' });

const now = isoNow;

/**
 * One conversation driven by a turn loop: model call, tool calls, results, repeat until the
 * model answers without tool calls. Each turn owns an AbortController whose signal reaches the
 * model request and every tool. Messages queue in a FIFO inbox; a turn claims one message.
 */
export { unwrapLog };

export class Agent {
  readonly id: string;
  readonly label: string;
  readonly kind: AgentKind;
  readonly delegationDepth: number;
  readonly log: SessionLog;
  readonly run: AgentRun;
  /** Creation order within the process (a counter, not a time). */
  readonly creationOrder: number;
  planMode: boolean;
  readonly conversation: ChatMessage[];
  readonly usage = { inputTokens: 0, outputTokens: 0 };
  lastTurnEnd: TurnEnd | undefined;
  /** The latest problem saving this agent's session (shown on its node), if any. */
  sessionProblem: ArborError | undefined;

  private readonly host: AgentHost;
  private readonly inbox: InboxItem[] = [];
  private parked = false;
  private turns: number;
  private modelCalls = 0;
  private queueIds: number;
  private current: { controller: AbortController; turn: number; startedAt: number; stopping?: CancelCause } | undefined;
  private disposedFlag = false;
  private idleWaiter: { promise: Promise<void>; resolve: () => void } | undefined;
  /**
   * The running turn's wait (a read from the model's stream, or its tools): an abort rejects it
   * at once, even when the provider or a tool is slow to honour the signal. Only this agent
   * aborts its turn's controller, so cancel() and dispose() reject it directly: no abort
   * listener per read, and nothing the wait resolved with stays reachable after it.
   */
  private rejectWait: ((reason: unknown) => void) | undefined;
  /**
   * A turn's controller that ended unaborted with no listener left on its signal is as good as
   * a new one, so the next turn takes it: creating and collecting an AbortSignal costs several
   * µs on Node 20, a large share of a turn's own cost.
   */
  private spareController: AbortController | undefined;

  constructor(init: AgentInit) {
    this.id = init.id;
    this.label = init.label;
    this.kind = init.kind;
    this.delegationDepth = init.delegationDepth;
    // Every append, including those tools make through ctx.agent.log, reaches the views.
    this.log = new ObservedLog(unwrapLog(init.log), (event) => this.host.agentChanged(this, { type: 'log', event }));
    unwrapLog(init.log).onProblem?.((problem) => {
      this.sessionProblem = problem;
      this.host.agentChanged(this, { type: 'session_problem', problem });
    });
    this.host = init.host;
    this.run = init.run;
    this.creationOrder = init.creationOrder;
    this.planMode = init.planMode ?? false;
    this.conversation = init.conversation ?? [];
    this.turns = init.turnsSoFar ?? 0;
    this.queueIds = init.lastQueueId ?? 0;
    if (init.pending?.length) {
      this.inbox.push(...init.pending);
      this.parked = true;
    }
  }

  /** The creation order under its former name; it was never a time. */
  get createdAt(): number {
    return this.creationOrder;
  }
  get status(): AgentStatus {
    return this.current ? 'running' : 'idle';
  }
  get disposed(): boolean {
    return this.disposedFlag;
  }
  /** Messages waiting in the inbox (parked or not). */
  get pendingCount(): number {
    return this.inbox.length;
  }
  /** True when a Stop left queued work that waits for the next waking send. */
  get isParked(): boolean {
    return this.parked && this.inbox.length > 0;
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
    const item: InboxItem = { id: ++this.queueIds, text, from: options.from, atNextStep: options.atNextStep ?? false };
    this.inbox.push(item);
    this.append({ type: 'queued', at: now(), id: item.id, text, from: item.from, atNextStep: item.atNextStep || undefined });
    const wake = options.wake ?? true;
    if (wake === false) {
      this.host.agentChanged(this, STATUS_CHANGED);
      return;
    }
    if (wake === true) this.parked = false;
    if (!this.current) this.pump();
    else this.host.agentChanged(this, STATUS_CHANGED);
  }

  /**
   * Abort the current turn. Without keepInbox the unclaimed queue is cleared; with it the
   * queue is parked until the next waking send. Cancelling an idle agent does nothing.
   * Returns whether a signal was issued.
   */
  cancel(cause: CancelCause, options: CancelOptions = {}): boolean {
    const turn = this.current;
    if (!turn) return false;
    if (options.keepInbox) this.parked = true;
    else this.dropQueue();
    if (!turn.controller.signal.aborted) {
      turn.stopping = cause;
      turn.controller.abort(new AbortedError(cause));
      this.abortWait(turn.controller.signal.reason);
      this.host.agentChanged(this, STATUS_CHANGED);
    }
    return true;
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
    this.inbox.length = 0;
    const turn = this.current;
    if (turn && !turn.controller.signal.aborted) {
      turn.controller.abort(new AbortedError('disposed'));
      this.abortWait(turn.controller.signal.reason);
    }
    this.host.agentChanged(this, { type: 'disposed' });
  }

  append(event: SessionEvent): void {
    this.log.append(event);
  }

  private pump(): void {
    if (this.current) return;
    const next = this.parked || this.disposedFlag ? undefined : this.inbox.shift();
    if (!next) {
      if (this.inbox.length === 0) this.parked = false;
      const waiter = this.idleWaiter;
      this.idleWaiter = undefined;
      this.host.agentChanged(this, STATUS_CHANGED);
      waiter?.resolve();
      return;
    }
    const controller = this.spareController ?? new AbortController();
    this.spareController = undefined;
    const turn = ++this.turns;
    this.current = { controller, turn, startedAt: Date.now() };
    this.host.agentChanged(this, STATUS_CHANGED);
    void this.runAndFinishTurn(next, turn, controller.signal);
  }

  private async runAndFinishTurn(first: InboxItem, turn: number, signal: AbortSignal): Promise<void> {
    this.finishTurn(await this.runTurn(first, turn, signal));
  }

  private finishTurn(end: TurnEnd): void {
    this.append({ type: 'turn_end', at: now(), turn: end.turn, reason: end.reason, cause: end.cause, message: end.message });
    this.lastTurnEnd = end;
    const signal = this.current?.controller.signal;
    if (signal && !signal.aborted && !this.disposedFlag && getEventListeners(signal, 'abort').length === 0) this.spareController = this.current!.controller;
    this.current = undefined;
    this.log.flush().catch((err) => console.error(`Arbor: could not save session ${this.id}`, err));
    this.host.agentChanged(this, { type: 'turn_end', end });
    this.pump();
  }

  private claim(item: InboxItem): void {
    this.conversation.push({ role: 'user', content: item.text });
    this.append({ type: 'user_message', at: now(), text: item.text, from: item.from, queuedId: item.id });
  }

  private dropQueue(): void {
    if (this.inbox.length === 0) return;
    const ids = this.inbox.map((i) => i.id);
    this.inbox.length = 0;
    this.append({ type: 'queue_dropped', at: now(), ids });
  }

  private async runTurn(first: InboxItem, turn: number, signal: AbortSignal): Promise<TurnEnd> {
    this.append({ type: 'turn_start', at: now(), turn });
    this.host.agentChanged(this, { type: 'turn_start', turn });
    let finalText = '';
    let unanswered: ToolCall[] = [];
    try {
      this.claim(first);
      if (turn > this.run.limits.maxTurns) {
        throw new BudgetExceeded(`the run allows at most ${this.run.limits.maxTurns} turns per agent`);
      }
      for (let step = 1; ; step++) {
        if (signal.aborted) throw signal.reason;
        this.claimStepMessages();
        if (step > this.run.limits.maxStepsPerTurn) {
          throw new BudgetExceeded(`a turn may make at most ${this.run.limits.maxStepsPerTurn} model calls`);
        }
        if (this.run.tokensExhausted()) {
          throw new BudgetExceeded(`the run's token budget of ${this.run.limits.maxTokens} is spent`);
        }
        const reply = await this.callModel(turn, step, signal);
        if (reply.text) finalText = reply.text;
        this.conversation.push({ role: 'assistant', content: reply.text, toolCalls: reply.toolCalls.length ? reply.toolCalls : undefined });
        if (reply.text) this.append({ type: 'assistant_text', at: now(), text: reply.text });
        if (reply.toolCalls.length === 0) break;
        unanswered = reply.toolCalls.slice();
        for (const call of reply.toolCalls) this.append({ type: 'tool_call', at: now(), call });
        await this.runTools(reply.toolCalls, signal, unanswered);
      }
      return { turn, reason: 'completed', finalText };
    } catch (err) {
      if (signal.aborted) {
        const cause = abortCauseOf(signal) ?? 'user';
        this.closeUnanswered(unanswered, `Stopped before this tool finished (${cause === 'user' ? 'stopped by the user' : `cancelled: ${cause}`}).`);
        return { turn, reason: 'aborted', cause, finalText };
      }
      if (err instanceof BudgetExceeded || isArborError(err, 'LIMIT_EXCEEDED')) {
        const why = err instanceof BudgetExceeded ? err.message : err.message;
        this.closeUnanswered(unanswered, `Not run: ${why}.`);
        const note = `[Arbor] This turn was ended because ${why}. Summarise what you have so far and say what remains.`;
        this.conversation.push({ role: 'user', content: note });
        this.append({ type: 'user_message', at: now(), text: note, from: 'system' });
        return { turn, reason: 'budget', message: why, finalText };
      }
      const message = err instanceof Error ? err.message : String(err);
      this.closeUnanswered(unanswered, `Not run: the turn failed (${message}).`);
      return isArborError(err) ? { turn, reason: 'error', message, code: err.code, finalText } : { turn, reason: 'error', message, finalText };
    }
  }

  /** Children's reports that arrived while this turn runs join it before the next model call. */
  private claimStepMessages(): void {
    if (this.inbox.length === 0) return;
    for (let i = 0; i < this.inbox.length; ) {
      const item = this.inbox[i];
      if (item.atNextStep) {
        this.inbox.splice(i, 1);
        this.claim(item);
      } else i++;
    }
  }

  private async callModel(turn: number, step: number, signal: AbortSignal): Promise<{ text: string; toolCalls: ToolCall[] }> {
    const model = this.run.model ?? this.host.model;
    const stream = model.stream({
      agentId: this.id,
      agentLabel: this.label,
      call: ++this.modelCalls,
      turn,
      step,
      system: this.host.systemPrompt(this),
      messages: this.conversation,
      tools: this.host.toolSpecs(this),
      signal,
    });
    const iterator = stream[Symbol.asyncIterator]();
    // One executor per model call; each read is one promise that an abort can reject.
    const startRead = (resolve: (r: IteratorResult<unknown>) => void, reject: (reason: unknown) => void): void => {
      this.rejectWait = reject;
      iterator.next().then(resolve, reject);
    };
    let text = '';
    // Appending piece by piece would keep a string node per chunk until the turn ends; pieces
    // are joined in batches instead, so the reply costs about its own length.
    let pieces: string[] | undefined;
    const toolCalls: ToolCall[] = [];
    let finished = false;
    try {
      for (;;) {
        if (signal.aborted) throw signal.reason;
        const next = await new Promise(startRead);
        this.rejectWait = undefined;
        if (next.done) {
          finished = true;
          break;
        }
        // Every provider's output passes here: nothing unparsed reaches the log or the counters.
        const chunk = parseModelChunk(next.value, model.label);
        if (chunk.type === 'text') {
          if (chunk.text === '') continue;
          if (text === '' && pieces === undefined) text = chunk.text;
          else if (pieces === undefined) pieces = [chunk.text];
          else if (pieces.push(chunk.text) === TEXT_BATCH) {
            text += pieces.join('');
            pieces.length = 0;
          }
        } else if (chunk.type === 'tool_call') toolCalls.push(chunk.call);
        else {
          this.usage.inputTokens += chunk.inputTokens;
          this.usage.outputTokens += chunk.outputTokens;
          this.run.tokensUsed += chunk.inputTokens + chunk.outputTokens;
          this.append({ type: 'usage', at: now(), inputTokens: chunk.inputTokens, outputTokens: chunk.outputTokens });
          this.host.agentChanged(this, USAGE_CHANGED);
        }
      }
    } finally {
      this.rejectWait = undefined;
      // Aborted, or a malformed chunk: close the provider's stream (and its connection).
      if (!finished) void Promise.resolve(iterator.return?.(undefined)).catch(ignore);
    }
    if (pieces !== undefined && pieces.length > 0) text += pieces.join('');
    return { text, toolCalls };
  }

  private async runTools(calls: ToolCall[], signal: AbortSignal, unanswered: ToolCall[]): Promise<void> {
    const results = await this.untilAborted(
      Promise.all(calls.map((call) => this.host.runTool(this, call, signal).catch((err): ToolResult => toolFailure(err)))),
      signal,
    );
    this.rejectWait = undefined;
    // Results go into the conversation in the order the model asked for them.
    for (let i = 0; i < calls.length; i++) this.recordToolResult(calls[i], results[i]);
    unanswered.length = 0;
    if (signal.aborted) throw signal.reason;
    const limit = results.find((r) => r.endsTurn);
    if (limit) throw new BudgetExceeded(limit.endsTurn!);
  }

  /** `work`, or a rejection with `signal.reason` as soon as the turn is aborted. */
  private untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      this.rejectWait = reject;
      work.then(resolve, reject);
    });
  }

  private abortWait(reason: unknown): void {
    const reject = this.rejectWait;
    this.rejectWait = undefined;
    reject?.(reason);
  }

  private recordToolResult(call: ToolCall, result: ToolResult): void {
    this.conversation.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result.content, isError: result.isError });
    this.append({ type: 'tool_result', at: now(), toolCallId: call.id, name: call.name, content: result.content, isError: result.isError });
  }

  private closeUnanswered(calls: ToolCall[], content: string): void {
    for (const call of calls) this.recordToolResult(call, { content, isError: true });
    calls.length = 0;
  }
}

/** A tool that threw: the model reads the failure as an error result and the turn goes on. */
function toolFailure(err: unknown): ToolResult {
  return errorResult(isArborError(err) ? err : new ArborError('TOOL_FAILED', err instanceof Error ? err.message : String(err)));
}

const ignore = (): void => undefined;
/** Text pieces of a reply joined at a time. */
const TEXT_BATCH = 256;
