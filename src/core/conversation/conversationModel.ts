// The conversation view's model: session events in, the items and state the view renders out.
// Pure (no 'vscode' import, no DOM), so it is unit-tested in plain Node.
import { describeHold, lapsesWhenEmpty, type Hold } from '../agents/holds';
import type { AgentKind, PlanItem, SessionEvent, TurnEndReason } from '../sessions/types';
import type { CancelCause } from '../errors';
import { readReport, reportTitle } from '../subagents/report';
import { MAX_ITEM_TEXT, MAX_QUEUED_SHOWN, type ConversationItem, type ConversationState } from './conversationWire';

type MessageSource = Extract<SessionEvent, { type: 'queued' }>['from'];

/** Items that changed since the last take: the view replaces its items from `start` on. */
export interface ConversationChange {
  start: number;
  items: ConversationItem[];
}

/**
 * Builds the view's items incrementally, one session event at a time, and remembers the first
 * item that changed since the last `takeChanges()`. A new event usually appends one item; a
 * tool result updates its call's item in place. So a live update costs what changed, not the
 * length of the conversation.
 */
export class ConversationModel {
  private readonly list: ConversationItem[] = [];
  /** Calls still waiting for their result: tool call id -> item index. */
  private readonly openCalls = new Map<string, number>();
  /** Messages queued and not yet claimed or dropped, by queue id, in arrival order. */
  private readonly queue = new Map<number, { from: MessageSource; text: string }>();
  private changedFrom = Number.POSITIVE_INFINITY;
  /** The agent's latest plan: shown above the conversation as a checklist, replaced in place. */
  private currentPlan: readonly PlanItem[] | undefined;

  /** `notice`: shown before the conversation (what a damaged session left out). */
  constructor(events: readonly SessionEvent[] = [], notice?: string) {
    if (notice) this.push({ kind: 'notice', text: clip(notice, 2000) });
    for (const event of events) this.apply(event);
  }

  get items(): readonly ConversationItem[] {
    return this.list;
  }

  get plan(): readonly PlanItem[] | undefined {
    return this.currentPlan;
  }

  /** The first queued messages, oldest first, clipped for the view. */
  queued(limit = MAX_QUEUED_SHOWN): Array<{ from: MessageSource; text: string }> {
    const out: Array<{ from: MessageSource; text: string }> = [];
    for (const message of this.queue.values()) {
      if (out.length >= limit) break;
      out.push({ from: message.from, text: clip(message.text, 500) });
    }
    return out;
  }

  apply(event: SessionEvent): void {
    switch (event.type) {
      case 'turn_start':
        this.push({ kind: 'turn', turn: event.turn });
        break;
      case 'queued':
        this.queue.set(event.id, { from: event.from, text: event.text });
        break;
      case 'user_message':
        if (event.queuedId !== undefined) this.queue.delete(event.queuedId);
        this.push(messageItem(event.from, event.text));
        break;
      case 'queue_dropped':
        for (const id of event.ids) this.queue.delete(id);
        this.push({ kind: 'notice', text: `${event.ids.length} queued message${event.ids.length === 1 ? ' was' : 's were'} dropped.` });
        break;
      case 'assistant_text':
        this.push({ kind: 'assistant', text: clip(event.text) });
        break;
      case 'tool_call':
        this.openCalls.set(event.call.id, this.list.length);
        this.push({ kind: 'tool', callId: event.call.id, name: event.call.name, arguments: clip(pretty(event.call.arguments)) });
        break;
      case 'tool_result': {
        const result = { text: clip(pretty(event.content)), isError: event.isError === true };
        const index = this.openCalls.get(event.toolCallId);
        const item = index === undefined ? undefined : this.list[index];
        if (index !== undefined && item?.kind === 'tool') {
          this.openCalls.delete(event.toolCallId);
          this.list[index] = { ...item, result };
          this.changedFrom = Math.min(this.changedFrom, index);
        } else {
          this.push({ kind: 'tool', callId: event.toolCallId, name: event.name, result });
        }
        break;
      }
      case 'question':
        this.push({
          kind: 'question',
          questions: event.questions.map((q) => ({
            ...(q.header ? { header: clip(q.header, 200) } : {}),
            question: clip(q.question, 2000),
            options: q.options.map((o) => clip(o.label, 200)),
          })),
        });
        break;
      case 'answer':
        this.push(
          event.answers
            ? { kind: 'answer', answers: event.answers.map((a) => ({ id: a.id, text: clip([...a.selected, ...(a.custom ? [`"${a.custom}"`] : [])].join(', ') || '(none)', 2000) })) }
            : { kind: 'answer', error: clip(event.error ?? 'not answered', 2000) },
        );
        break;
      case 'approval':
        this.push({
          kind: 'notice',
          text: clip(`Approval for ${event.action}${event.detail ? ` "${event.detail}"` : ''}: ${event.decision} (${event.reason}).`, 2000),
        });
        break;
      case 'interrupt':
        this.push({ kind: 'notice', text: event.authority === 'user' ? 'You asked it to stop.' : `An ancestor agent${event.by ? ` (${event.by})` : ''} asked it to stop.` });
        break;
      case 'turn_end':
        // A turn that ends leaves no call open: results of calls it never answered are in the log already.
        this.openCalls.clear();
        this.push({ kind: 'turn_end', turn: event.turn, reason: event.reason, text: turnEndText(event.turn, event.reason, event.cause, event.message) });
        break;
      case 'plan':
        this.currentPlan = event.items;
        break;
      case 'usage':
      case 'external_session':
        break;
    }
  }

  /** What changed since the last call (undefined when nothing did). */
  takeChanges(): ConversationChange | undefined {
    if (this.changedFrom >= this.list.length) {
      this.changedFrom = Number.POSITIVE_INFINITY;
      return undefined;
    }
    const start = this.changedFrom;
    this.changedFrom = Number.POSITIVE_INFINITY;
    return { start, items: this.list.slice(start) };
  }

  /** Forget pending changes (the next snapshot carries everything). */
  discardChanges(): void {
    this.changedFrom = Number.POSITIVE_INFINITY;
  }

  private push(item: ConversationItem): void {
    this.changedFrom = Math.min(this.changedFrom, this.list.length);
    this.list.push(item);
  }
}

/** All of a session's items at once (the snapshot of a session that is not live). */
export function buildConversation(events: readonly SessionEvent[]): ConversationItem[] {
  return [...new ConversationModel(events).items];
}

/** What the state line and the buttons depend on; the extension reads it off the live agent. */
export interface ConversationStateInput {
  kind: AgentKind;
  /** The agent is still in the runtime (it has not ended). */
  live: boolean;
  status: 'idle' | 'running';
  /** Set between a Stop and the end of the turn it aborts. */
  stopping: boolean;
  /** It has a question open for the human. */
  waiting: boolean;
  pendingCount: number;
  /** A Stop left queued messages that wait for the next Send. */
  parked: boolean;
  turnStartedAt?: number;
  lastTurnEnd?: { reason: TurnEndReason };
  /** A continuable child whose parent agent is no longer live. */
  parentOffline: boolean;
  /** What it is doing, in words (describeDoing): shown instead of "running", "waiting for you" or "idle". */
  doing?: string;
  /** Stopped with its branch (Stop All Below, Stop All): it waits for a message even with nothing queued. */
  held?: boolean;
  /** The hold that says most about it (primaryHold), said as the Agents view and History say it. */
  hold?: Hold;
  queued: Array<{ from: MessageSource; text: string }>;
  tokens: number;
  /** Its latest plan, shown as a checklist that updates in place. */
  plan?: readonly PlanItem[];
}

/**
 * The state line and which actions apply. Send queues a message whenever the agent can take
 * one (it waits behind a running turn, and resumes a parked queue in order). Stop applies only
 * while a turn runs and is not already stopping; for a continuable child it goes through the
 * user's interrupt authority, so it works while the parent agent is offline. One-shot
 * subagents have neither: the agent waiting for their result owns them.
 */
export function conversationState(input: ConversationStateInput): ConversationState {
  const base = { pending: input.pendingCount, queued: input.queued, tokens: input.tokens, ...(input.plan?.length ? { plan: input.plan.map((i) => ({ step: clip(i.step, 300), status: i.status })) } : {}) };
  if (!input.live) {
    return {
      ...base,
      phase: 'ended',
      text: 'ended',
      canSend: false,
      canStop: false,
      hint:
        input.kind === 'one-shot'
          ? 'This one-shot subagent has finished; its result went to the agent that started it.'
          : input.kind === 'continuable'
            ? 'This subagent is no longer live (it settled or was ended). If its parent wakes it with a message, this view follows it; its session stays in Arbor History.'
            : 'This agent has ended. Its conversation stays here; resume its session from Arbor History to continue it.',
    };
  }
  const phase: ConversationState['phase'] = input.stopping
    ? 'stopping'
    : input.status === 'running'
      ? input.waiting
        ? 'waiting'
        : 'running'
      : input.parked
        ? 'parked'
        : 'idle';
  const hold = input.hold && describeHold(input.hold);
  const text =
    phase === 'stopping'
      ? 'stopping…'
      : phase === 'waiting'
        ? (input.doing ?? 'waiting for you')
        : phase === 'running'
          ? (input.doing ?? 'running')
          : phase === 'parked'
            ? `stopped with ${input.pendingCount} queued`
            : hold
              ? hold.text
              : input.lastTurnEnd?.reason === 'aborted' || input.held
                ? 'stopped'
                : (input.doing ?? 'idle');
  const turnStartedAt = input.status === 'running' ? input.turnStartedAt : undefined;
  if (input.kind === 'one-shot') {
    return {
      ...base,
      phase,
      text,
      ...(turnStartedAt !== undefined ? { turnStartedAt } : {}),
      canSend: false,
      canStop: false,
      hint: 'One-shot subagent: the agent waiting for its result owns it. To stop it, stop that agent.',
    };
  }
  const queuedNote = input.pendingCount > 0 ? ` after the ${input.pendingCount} already queued` : '';
  let hint =
    phase === 'parked'
      ? `Stopped. Send resumes its ${input.pendingCount} queued message${input.pendingCount === 1 ? '' : 's'} in order, then yours.`
      : phase === 'stopping'
        ? `Stopping the current turn. A message you send waits in its queue${queuedNote}.`
        : phase === 'idle'
          ? 'Send starts a new turn.'
          : `A message you send waits in its queue${queuedNote} until the current turn ends.`;
  // A Stop's or a reload's hold is the parked queue the hint already explains.
  if (hold && input.hold && !lapsesWhenEmpty(input.hold)) hint += ` ${hold.detail}`;
  if (input.parentOffline) hint += ' Its parent agent has ended; Stop and Send still reach it.';
  return {
    ...base,
    phase,
    text,
    ...(turnStartedAt !== undefined ? { turnStartedAt } : {}),
    canSend: true,
    canStop: phase === 'running' || phase === 'waiting',
    hint,
  };
}

const CAUSE_TEXT: Record<CancelCause, string> = {
  user: 'stopped by you',
  parent: 'stopped by an ancestor agent',
  disposed: 'the agent was ended',
  budget: 'a limit was reached',
};

export function turnEndText(turn: number, reason: TurnEndReason, cause?: CancelCause, message?: string): string {
  const why = cause ? ` (${CAUSE_TEXT[cause]})` : '';
  return clip(`Turn ${turn} ended: ${reason}${why}${message ? `: ${message}` : ''}`, 2000);
}

/** Clips a text for the view, saying how much was left out. */
export function clip(text: string, max = MAX_ITEM_TEXT): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… (${text.length - max} more characters; Open Transcript shows all of it)`;
}

function pretty(text: string): string {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON: shown as it was sent.
    return text;
  }
}

/** A message as the view shows it: a subagent's report becomes one line with its text folded. */
function messageItem(from: MessageSource, text: string): ConversationItem {
  const report = from === 'child' ? readReport(text) : undefined;
  return report ? { kind: 'report', title: reportTitle(report), text: clip(text) } : { kind: 'message', from, text: clip(text) };
}
