import type { ToolCall } from '../models/types';
import type { Question, SessionEvent } from './types';

/** A question or approval that was open when the session's last turn was cut short. */
export interface PendingHumanWait {
  /** The tool call that waited for the human: a resumed agent runs it again, so it asks again. */
  call: ToolCall;
  questions: Question[];
  intent?: 'clarify' | 'plan-approval' | 'approval';
  /** When it was first asked (the earliest question of that call in the log): asked again, it is still that old. */
  since?: string;
}

/**
 * The question or approval the human never answered because the window closed (or the process
 * ended) while it was open, or undefined. Only the last turn counts, and only when it did not end
 * by itself or by a Stop: it is still open, or closed as `interrupted` on load, or aborted by the
 * shutdown (`disposed`). The question must name its tool call, that call must have no result,
 * and no answer may have come (an answer withdrawn by the shutdown, ASK_ABORTED, is none).
 */
export function pendingHumanWait(events: readonly SessionEvent[]): PendingHumanWait | undefined {
  let start = -1;
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i].type === 'turn_start') {
      start = i;
      break;
    }
  }
  if (start < 0) return undefined;
  const calls = new Map<string, ToolCall>();
  const results = new Set<string>();
  let open: Extract<SessionEvent, { type: 'question' }> | undefined;
  for (let i = start + 1; i < events.length; i++) {
    const event = events[i];
    switch (event.type) {
      case 'tool_call':
        calls.set(event.call.id, event.call);
        break;
      case 'tool_result':
        results.add(event.toolCallId);
        break;
      case 'question':
        open = event.toolCallId !== undefined ? event : undefined;
        break;
      case 'answer':
        if (event.error !== 'ASK_ABORTED') open = undefined;
        break;
      case 'turn_end':
        if (event.reason !== 'interrupted' && !(event.reason === 'aborted' && event.cause === 'disposed')) return undefined;
        break;
      case 'user_message':
      case 'queued':
      case 'queue_dropped':
      case 'assistant_text':
      case 'turn_start':
      case 'interrupt':
      case 'approval':
      case 'usage':
      case 'external_session':
      case 'plan':
        break;
    }
  }
  if (!open?.toolCallId || results.has(open.toolCallId)) return undefined;
  // A call asked again after a reload was made in an earlier turn: the resumed turn runs it again without logging it anew.
  const call = calls.get(open.toolCallId) ?? unansweredCallBefore(events, start, open.toolCallId);
  if (!call) return undefined;
  const since = firstAskedAt(events, open.toolCallId) ?? open.at;
  return open.intent ? { call, questions: open.questions, intent: open.intent, since } : { call, questions: open.questions, since };
}

/** The tool call `id` made before event `end` and given no result there, if any. */
function unansweredCallBefore(events: readonly SessionEvent[], end: number, id: string): ToolCall | undefined {
  let call: ToolCall | undefined;
  for (let i = 0; i < end; i++) {
    const event = events[i];
    if (event.type === 'tool_call' && event.call.id === id) call = event.call;
    else if (event.type === 'tool_result' && event.toolCallId === id) return undefined;
  }
  return call;
}

/** The time of the first question asked for tool call `id` (a resumed call asks again under the same id). */
function firstAskedAt(events: readonly SessionEvent[], id: string): string | undefined {
  for (const event of events) if (event.type === 'question' && event.toolCallId === id) return event.at;
  return undefined;
}
