import { isoNow } from '../clock';
import { abortCauseOf, asArborError, isArborError, messageOf, type ArborErrorCode, type CancelCause } from '../errors';
import { agentLimit } from '../definitions/agentLimit';
import type { AgentBounds } from '../definitions/bounds';
import type { RunBudget } from '../limits';
import { parseModelChunk } from '../models/modelChunk';
import type { ChatMessage, ModelProvider, ToolCall, ToolSpec } from '../models/types';
import type { SessionEvent, TurnEndReason } from '../sessions/types';
import { errorResult } from '../tools/catalog';
import type { ToolResult } from '../tools/types';
import type { Inbox, InboxItem } from './inbox';
import { newHold, type GateStep, type Hold } from './holds';
import type { TurnAbort } from './turnAbort';
import { anchorShape, STAND_IN } from '../shapeAnchor';

export interface TurnEnd {
  turn: number;
  reason: TurnEndReason;
  cause?: CancelCause;
  message?: string;
  /** The error's stable code when the turn ended with `error` (e.g. MODEL_TIMEOUT). */
  code?: ArborErrorCode;
  /** The model's last text of the turn (the result a parent receives). */
  finalText: string;
  /**
   * The hold the turn ended against (a spent budget, a runaway guard): the turn ended at once, like
   * a Stop. Set on every `paused` end, and on a `blocked` one whose hold carried the BLOCKED report.
   */
  hold?: Hold;
}

/** The agent whose turns the loop runs, as the loop sees it. */
export interface TurnOwner {
  readonly id: string;
  readonly label: string;
  readonly run: { readonly budget: RunBudget; readonly model?: ModelProvider };
  /** A definition's model, used instead of the run's. */
  readonly model?: ModelProvider;
  /** A definition's per-agent limits, tighter than the run's (definitions/bounds.ts). */
  readonly bounds?: AgentBounds;
  readonly conversation: ChatMessage[];
  addUsage(inputTokens: number, outputTokens: number): void;
  append(event: SessionEvent): void;
  /** The one gate the loop asks: the hold that stops this step, if any (Agent.gate). */
  gate(step: Exclude<GateStep, 'claim'>): Hold | undefined;
  /** Reads a restored agent's past still on disk (Agent.loadPast); undefined when there is none to read. */
  loadPast?(): Promise<void> | undefined;
}

/** What the loop needs from the runtime hosting the agent (the runtime's AgentHost is one). */
export interface TurnHost<O extends TurnOwner> {
  readonly model: ModelProvider;
  systemPrompt(agent: O): string;
  toolSpecs(agent: O): readonly ToolSpec[];
  runTool(agent: O, call: ToolCall, signal: AbortSignal): Promise<ToolResult>;
  agentChanged(agent: O, change: { type: 'turn_start'; turn: number } | { type: 'usage' } | { type: 'activity' }): void;
}

/** Changes without data are shared, not allocated per notification. */
const USAGE_CHANGED = Object.freeze({ type: 'usage' as const });
const ACTIVITY_CHANGED = Object.freeze({ type: 'activity' as const });

class BudgetExceeded extends Error {}
/** A hold stops the turn (its run's budget is spent, a runaway guard tripped): it ends at once, like a Stop. */
class Held extends Error {
  constructor(readonly hold: Hold) {
    super(hold.detail);
  }
}

const now = isoNow;

/**
 * One turn: claim the message that started it, then model call, tool calls, results, repeat
 * until the model answers without tool calls. It never throws: every way a turn can end (done,
 * aborted, a run limit, a failure) becomes a TurnEnd, and a tool call left without its result is
 * closed with one, so the conversation stays well-formed for the next turn. One is made per
 * turn, so an idle agent holds none.
 */
export class TurnLoop<O extends TurnOwner> {
  constructor(
    private readonly owner: O,
    private readonly host: TurnHost<O>,
    private readonly inbox: Pick<Inbox, 'claimAtNextStep'>,
    private readonly abort: TurnAbort,
    /** Model calls the agent made before this turn; requests are numbered on from it. */
    public modelCalls: number,
  ) {}

  /**
   * `first` is the message the turn claims, or a tool call the turn runs again first: one that
   * waited for the human when the session stopped, whose call is already in the conversation.
   */
  async run(first: InboxItem | { resumedCall: ToolCall }, turn: number): Promise<TurnEnd> {
    const signal = this.abort.signal;
    this.owner.append({ type: 'turn_start', at: now(), turn });
    this.host.agentChanged(this.owner, { type: 'turn_start', turn });
    const budget = this.owner.run.budget;
    let finalText = '';
    let unanswered: ToolCall[] = [];
    try {
      // A restored agent's log is read before the turn claims anything: a read that fails ends the turn, saying why.
      const reading = this.owner.loadPast?.();
      if (reading) await reading;
      if (!('resumedCall' in first)) this.claim(first);
      this.checkGate('turn');
      budget.turnsUsed++;
      if ('resumedCall' in first) {
        unanswered = [first.resumedCall];
        await this.runTools([first.resumedCall], signal, unanswered);
      }
      const maxTurns = agentLimit(this.owner.bounds, 'maxTurns', budget.limits.maxTurns);
      if (turn > maxTurns.value) {
        throw new BudgetExceeded(maxTurns.by ? `the agent definition "${maxTurns.by}" allows at most ${maxTurns.value} turns` : `the run allows at most ${maxTurns.value} turns per agent`);
      }
      for (let step = 1; ; step++) {
        if (this.abort.aborted) throw signal.reason;
        for (const item of this.inbox.claimAtNextStep()) this.claim(item);
        const maxSteps = agentLimit(this.owner.bounds, 'maxStepsPerTurn', budget.limits.maxStepsPerTurn);
        if (step > maxSteps.value) {
          throw new BudgetExceeded(maxSteps.by ? `the agent definition "${maxSteps.by}" allows a turn at most ${maxSteps.value} model calls` : `a turn may make at most ${maxSteps.value} model calls`);
        }
        this.checkGate('modelCall');
        const reply = await this.callModel(turn, step, signal);
        if (reply.text) finalText = reply.text;
        // The conversation keeps the calls at their size (the list they streamed into has room for 17).
        this.owner.conversation.push({ role: 'assistant', content: reply.text, toolCalls: reply.toolCalls.length ? reply.toolCalls.slice() : undefined });
        if (reply.text) this.owner.append({ type: 'assistant_text', at: now(), text: reply.text });
        if (reply.toolCalls.length === 0) break;
        unanswered = reply.toolCalls;
        for (const call of reply.toolCalls) this.owner.append({ type: 'tool_call', at: now(), call });
        this.host.agentChanged(this.owner, ACTIVITY_CHANGED);
        // A hold came while this reply streamed: its calls are not run.
        const held = this.owner.gate('tools');
        if (held) throw new Held(held);
        await this.runTools(reply.toolCalls, signal, unanswered);
      }
      return { turn, reason: 'completed', finalText };
    } catch (err) {
      if (err instanceof Held || (signal.aborted && abortCauseOf(signal) === 'budget')) {
        return this.heldEnd(turn, unanswered, finalText, err instanceof Held ? err.hold : undefined);
      }
      if (signal.aborted) {
        const cause = abortCauseOf(signal) ?? 'user';
        this.closeUnanswered(unanswered, `Stopped before this tool finished (${cause === 'user' ? 'stopped by the user' : `cancelled: ${cause}`}).`);
        return { turn, reason: 'aborted', cause, finalText };
      }
      if (err instanceof BudgetExceeded || isArborError(err, 'LIMIT_EXCEEDED')) {
        const why = err.message;
        this.closeUnanswered(unanswered, `Not run: ${why}.`);
        const note = `[Arbor] This turn was ended because ${why}. Summarise what you have so far and say what remains.`;
        this.owner.conversation.push({ role: 'user', content: note });
        this.owner.append({ type: 'user_message', at: now(), text: note, from: 'system' });
        return { turn, reason: 'budget', message: why, finalText };
      }
      const message = messageOf(err);
      this.closeUnanswered(unanswered, `Not run: the turn failed (${message}).`);
      return isArborError(err) ? { turn, reason: 'error', message, code: err.code, finalText } : { turn, reason: 'error', message, finalText };
    }
  }

  /**
   * A held agent starts nothing: not a turn, not a model call. A run budget counted in turns or
   * model calls is spent when the next one would go past it (the run's gate says so).
   */
  private checkGate(next: 'turn' | 'modelCall'): void {
    const held = this.owner.gate(next);
    if (held) throw new Held(held);
  }

  /**
   * The turn a hold ended, like a Stop: no note for the model, the conversation as it was, the
   * calls it had made closed with a result that says why; it ends `paused`. An unattended run at
   * its cap ends BLOCKED: its root's hold carries the report of what was done and what is left,
   * its final result.
   */
  private heldEnd(turn: number, unanswered: ToolCall[], finalText: string, found: Hold | undefined): TurnEnd {
    // A turn cancelled for a budget without a hold of its own still ends as one.
    const hold = found ?? this.owner.gate('tools') ?? newHold('budget', { detail: 'a run budget is spent' });
    const why = hold.detail ?? 'a run budget is spent';
    this.closeUnanswered(unanswered, `Not run: paused because ${why}.`);
    if (hold.report !== undefined) {
      this.owner.append({ type: 'assistant_text', at: now(), text: hold.report });
      return { turn, reason: 'blocked', message: why, finalText: hold.report, hold };
    }
    return { turn, reason: 'paused', message: why, finalText, hold };
  }

  /** A message joins the conversation and the log says which queued message it was. */
  private claim(item: InboxItem): void {
    this.owner.conversation.push({ role: 'user', content: item.text });
    this.owner.append({ type: 'user_message', at: now(), text: item.text, from: item.from, queuedId: item.id });
  }

  private async callModel(turn: number, step: number, signal: AbortSignal): Promise<{ text: string; toolCalls: ToolCall[] }> {
    const owner = this.owner;
    const model = owner.model ?? owner.run.model ?? this.host.model;
    owner.run.budget.countModelCall(owner.id);
    const stream = model.stream({
      agentId: owner.id,
      agentLabel: owner.label,
      call: ++this.modelCalls,
      turn,
      step,
      system: this.host.systemPrompt(owner),
      messages: owner.conversation,
      tools: this.host.toolSpecs(owner),
      signal,
    });
    const iterator = stream[Symbol.asyncIterator]();
    let text = '';
    // Appending piece by piece would keep a string node per chunk until the turn ends; pieces
    // are joined in batches instead, so the reply costs about its own length.
    let pieces: string[] | undefined;
    const toolCalls: ToolCall[] = [];
    let finished = false;
    try {
      // Each chunk is taken as it comes, in one wait for the whole stream (turnAbort.ts).
      await this.abort.consume(iterator, (value) => {
        // Every provider's output passes here: nothing unparsed reaches the log or the counters.
        const chunk = parseModelChunk(value, model.label);
        if (chunk.type === 'text') {
          if (chunk.text === '') return;
          if (text === '' && pieces === undefined) text = chunk.text;
          else if (pieces === undefined) pieces = [chunk.text];
          else if (pieces.push(chunk.text) === TEXT_BATCH) {
            text += pieces.join('');
            pieces.length = 0;
          }
        } else if (chunk.type === 'tool_call') toolCalls.push(chunk.call);
        else {
          owner.addUsage(chunk.inputTokens, chunk.outputTokens);
          owner.run.budget.recordUsage(owner.id, model.label, chunk.inputTokens, chunk.outputTokens);
          owner.append({ type: 'usage', at: now(), inputTokens: chunk.inputTokens, outputTokens: chunk.outputTokens });
          this.host.agentChanged(owner, USAGE_CHANGED);
        }
      });
      finished = true;
    } finally {
      this.abort.waited();
      // Aborted, or a malformed chunk: close the provider's stream (and its connection).
      if (!finished) void Promise.resolve(iterator.return?.(undefined)).catch(ignore);
    }
    if (pieces !== undefined && pieces.length > 0) text += pieces.join('');
    return { text, toolCalls };
  }

  private async runTools(calls: ToolCall[], signal: AbortSignal, unanswered: ToolCall[]): Promise<void> {
    // One call (the usual step) is waited for alone: no array of promises and no aggregate.
    const results =
      calls.length === 1
        ? [await this.abort.wait(this.runTool(calls[0], signal))]
        : await this.abort.wait(Promise.all(calls.map((call) => this.runTool(call, signal))));
    this.abort.waited();
    // Results go into the conversation in the order the model asked for them.
    for (let i = 0; i < calls.length; i++) this.recordToolResult(calls[i], results[i]);
    unanswered.length = 0;
    this.host.agentChanged(this.owner, ACTIVITY_CHANGED);
    if (this.abort.aborted) throw signal.reason;
    const limit = results.find((r) => r.endsTurn);
    if (limit) throw new BudgetExceeded(limit.endsTurn);
  }

  private runTool(call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
    return this.host.runTool(this.owner, call, signal).catch(toolFailure);
  }

  private recordToolResult(call: ToolCall, result: ToolResult): void {
    this.owner.conversation.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result.content, isError: result.isError });
    this.owner.append({ type: 'tool_result', at: now(), toolCallId: call.id, name: call.name, content: result.content, isError: result.isError });
  }

  private closeUnanswered(calls: ToolCall[], content: string): void {
    for (const call of calls) this.recordToolResult(call, { content, isError: true });
    calls.length = 0;
  }
}

/** A tool that threw: the model reads the failure as an error result and the turn goes on. */
function toolFailure(err: unknown): ToolResult {
  return errorResult(asArborError(err, 'TOOL_FAILED'));
}

const ignore = (): void => undefined;
/** Text pieces of a reply joined at a time. */
const TEXT_BATCH = 256;

/** A turn loop's shape outlives the last turn (shapeAnchor.ts): made over stand-ins that hold nothing. */
anchorShape(new TurnLoop(STAND_IN, STAND_IN, STAND_IN, STAND_IN, 0));
