import type * as acp from '@agentclientprotocol/sdk';
import type { Agent, EngineTurn as AnyEngineTurn } from '../agents/agent';
import { isoNow } from '../clock';
import { MAX_PLAN_ITEMS, MAX_PLAN_STEP_CHARS, recordPlan } from '../plans/plan';
import type { PlanItem } from '../sessions/types';

type EngineTurn = AnyEngineTurn<Agent>;

/** A tool call the agent announced, as its updates have filled it in so far. */
interface OpenCall {
  title?: string | null;
  kind?: string | null;
  rawInput?: unknown;
  /** Its `tool_call` event is in the session (it is written once, when it starts). */
  written: boolean;
}

/**
 * One turn's stream, written to the session as it comes: text and thoughts are gathered and
 * written when the stream moves on to something else (a tool call, a plan, the other kind of
 * text) or the turn ends; tool calls and their results as they start and finish.
 *
 * Invariants:
 * - a tool call is opened by whichever message names it first: its `tool_call`, an update for
 *   an id not seen before, or a permission request carrying it (real agents announce calls in
 *   any of these ways);
 * - a call's title, kind and input are merged from every update until it starts (any status
 *   but `pending`) and is written then, so an agent that sends `rawInput: {}` first and the
 *   arguments later is logged with the arguments; a call still pending when it finishes or the
 *   turn ends is written then.
 */
export class TurnTranscript {
  private text = '';
  private textKind: 'message' | 'thought' = 'message';
  /** Text is written at most this long after it arrived, so views follow the stream live. */
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly messages: string[] = [];
  private readonly open = new Map<string, OpenCall>();
  /** A replay (`session/load`): the past conversation, written as such, never this turn's answer. */
  private readonly isReplay: boolean;
  private user = '';

  constructor(
    private readonly agent: EngineTurn['agent'],
    options: { replay?: boolean } = {},
  ) {
    this.isReplay = options.replay === true;
  }

  /** The agent's message text of this turn: the result a parent receives. */
  get finalText(): string {
    return this.messages.join('');
  }

  update(update: acp.SessionUpdate): void {
    switch (update.sessionUpdate) {
      case 'user_message_chunk':
        // Only a replay carries the person's own messages back: they are in the session already otherwise.
        if (!this.isReplay || update.content.type !== 'text') return;
        this.flush();
        this.user += update.content.text;
        return;
      case 'agent_message_chunk':
      case 'agent_thought_chunk': {
        if (update.content.type !== 'text') return;
        const kind = update.sessionUpdate === 'agent_message_chunk' ? 'message' : 'thought';
        if (kind !== this.textKind || this.user) this.flush();
        this.textKind = kind;
        this.text += update.content.text;
        if (kind === 'message' && !this.isReplay) this.messages.push(update.content.text);
        this.flushTimer ??= setTimeout(() => this.flush(), LIVE_TEXT_MS);
        return;
      }
      case 'tool_call':
      case 'tool_call_update':
        this.toolUpdate(update);
        return;
      case 'plan':
        // The agent's plan is shown as Arbor agents' plans are (plans/plan.ts), capped alike.
        this.flush();
        recordPlan(this.agent, externalPlan(update.entries));
        return;
      // What the agent says about itself rather than the turn: not part of the transcript.
      case 'available_commands_update':
      case 'current_mode_update':
      case 'config_option_update':
      case 'session_info_update':
      case 'usage_update':
      case 'compaction_update':
      case 'compaction_summary_chunk':
      case 'notice':
        return;
      // A kind a newer protocol added.
      default:
        return;
    }
  }

  /** A permission request names a tool call: it opens the call when no update has. */
  permission(call: acp.ToolCallUpdate): void {
    this.toolUpdate({ ...call, sessionUpdate: 'tool_call_update' });
  }

  /** The turn ended: what is gathered is written, tool calls still open are closed. */
  close(): void {
    this.flush();
    for (const [id, call] of this.open) {
      const name = this.writeCall(id, call);
      this.append({ type: 'tool_result', at: isoNow(), toolCallId: id, name, content: 'Ended with the turn before the agent reported its result.', isError: true });
    }
    this.open.clear();
  }

  private toolUpdate(update: Extract<acp.SessionUpdate, { sessionUpdate: 'tool_call' | 'tool_call_update' }>): void {
    const id = update.toolCallId;
    const call = this.open.get(id) ?? { written: false };
    if (!this.open.has(id)) this.open.set(id, call);
    if (update.title) call.title = update.title;
    if (update.kind) call.kind = update.kind;
    if (update.rawInput !== undefined && !(isEmptyObject(update.rawInput) && call.rawInput !== undefined)) call.rawInput = update.rawInput;
    const status = update.status ?? 'pending';
    if (status === 'pending') return;
    this.flush();
    this.writeCall(id, call);
    if (status === 'completed' || status === 'failed') this.finishTool(id, status, update.content ?? undefined, update.rawOutput);
  }

  /** Writes the call's `tool_call` event once; its name either way. */
  private writeCall(id: string, call: OpenCall): string {
    const name = call.title || call.kind || 'tool';
    if (call.written) return name;
    call.written = true;
    this.append({ type: 'tool_call', at: isoNow(), call: { id, name, arguments: JSON.stringify(call.rawInput ?? {}) } });
    return name;
  }

  private finishTool(id: string, status: 'completed' | 'failed', content: readonly acp.ToolCallContent[] | undefined, rawOutput: unknown): void {
    const open = this.open.get(id);
    if (!open) return;
    this.open.delete(id);
    const name = this.writeCall(id, open);
    const text = (content ?? [])
      .map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : c.type === 'diff' ? `(edited ${c.path})` : c.type === 'terminal' ? `(terminal ${c.terminalId})` : ''))
      .filter(Boolean)
      .join('\n');
    const output = text || (rawOutput !== undefined ? JSON.stringify(rawOutput) : status);
    this.append({ type: 'tool_result', at: isoNow(), toolCallId: id, name, content: output, isError: status === 'failed' || undefined });
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.user !== '') {
      this.append({ type: 'user_message', at: isoNow(), text: this.user, from: 'user' });
      this.user = '';
    }
    if (this.text === '') return;
    const text = this.textKind === 'thought' ? `Thinking: ${this.text}` : this.text;
    this.text = '';
    if (this.textKind === 'message' && !this.isReplay) this.agent.conversation.push({ role: 'assistant', content: text });
    this.append({ type: 'assistant_text', at: isoNow(), text });
  }

  private append(event: Parameters<EngineTurn['agent']['append']>[0]): void {
    this.agent.append(event);
  }
}

const LIVE_TEXT_MS = 250;
const PLAN_STATUS: Record<acp.PlanEntryStatus, PlanItem['status']> = { pending: 'pending', in_progress: 'in_progress', completed: 'done' };

/** An ACP plan as an Arbor plan: its first MAX_PLAN_ITEMS entries, each step clipped, an unknown status read as pending. */
export function externalPlan(entries: readonly acp.PlanEntry[]): PlanItem[] {
  return entries.slice(0, MAX_PLAN_ITEMS).map((e) => {
    const step = String(e.content).replace(/\s+/g, ' ').trim();
    return { step: (step.length > MAX_PLAN_STEP_CHARS ? `${step.slice(0, MAX_PLAN_STEP_CHARS - 1)}…` : step) || '(no description)', status: PLAN_STATUS[e.status] ?? 'pending' };
  });
}
const isEmptyObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
