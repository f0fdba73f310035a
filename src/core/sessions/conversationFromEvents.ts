import type { ChatMessage, ToolCall } from '../models/types';
import type { SessionEvent } from './types';

/** What a rebuilt conversation says for a tool call whose result never reached the log. */
export const MISSING_TOOL_RESULT =
  'This tool call did not complete: the turn ended (stopped or interrupted) before it returned a result.';

/**
 * Rebuilds the model conversation from a session log, to reopen a past session as a new
 * unowned agent. User messages (from the user, a parent or a child) become user messages;
 * assistant text and the tool calls that follow it in the same response become one assistant
 * message; tool results follow as tool messages.
 *
 * The result is always a conversation a model API accepts: a tool call left without a result
 * (the turn was stopped or the process died mid-tool) gets an error result saying so, and a
 * result whose call is not in the log is dropped. Questions, answers, approvals, interrupts
 * and usage are not part of the conversation (the tool results already carry their outcome).
 *
 * `awaiting` names a call the resumed agent runs again (it waited for the human when the
 * session stopped): it is left open at the end, and its result comes from that run. A call
 * stays open across the end of its turn, so the result such a run records in the next turn
 * still answers it when the conversation is rebuilt later.
 */
export function conversationFromEvents(events: readonly SessionEvent[], options: { awaiting?: string } = {}): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let assistant: { content: string; toolCalls: ToolCall[] } | undefined;
  /** Calls of the last assistant message still waiting for their result, in call order. */
  const unanswered = new Map<string, string>();

  const closeAssistant = (): void => {
    if (!assistant) return;
    if (assistant.toolCalls.length > 0) messages.push({ role: 'assistant', content: assistant.content, toolCalls: assistant.toolCalls });
    else if (assistant.content !== '') messages.push({ role: 'assistant', content: assistant.content });
    assistant = undefined;
  };
  const closeToolRound = (): void => {
    closeAssistant();
    for (const [toolCallId, name] of unanswered) {
      messages.push({ role: 'tool', toolCallId, name, content: MISSING_TOOL_RESULT, isError: true });
    }
    unanswered.clear();
  };
  const closeLastRound = (): void => {
    closeAssistant();
    for (const [toolCallId, name] of unanswered) {
      if (toolCallId !== options.awaiting) messages.push({ role: 'tool', toolCallId, name, content: MISSING_TOOL_RESULT, isError: true });
    }
    unanswered.clear();
  };

  for (const event of events) {
    switch (event.type) {
      case 'user_message':
        closeToolRound();
        messages.push({ role: 'user', content: event.text });
        break;
      case 'assistant_text':
        if (!assistant) {
          closeToolRound();
          assistant = { content: '', toolCalls: [] };
        }
        assistant.content += event.text;
        break;
      case 'tool_call':
        if (!assistant) {
          closeToolRound();
          assistant = { content: '', toolCalls: [] };
        }
        assistant.toolCalls.push({ ...event.call });
        unanswered.set(event.call.id, event.call.name);
        break;
      case 'tool_result':
        if (!unanswered.has(event.toolCallId)) break;
        closeAssistant();
        unanswered.delete(event.toolCallId);
        messages.push(
          event.isError
            ? { role: 'tool', toolCallId: event.toolCallId, name: event.name, content: event.content, isError: true }
            : { role: 'tool', toolCallId: event.toolCallId, name: event.name, content: event.content },
        );
        break;
      case 'turn_start':
      case 'turn_end':
        // Calls without a result are closed by what comes next (a message, a reply, the end):
        // a call run again after a resume gets its result in the next turn.
        closeAssistant();
        break;
      case 'queued':
      case 'queue_dropped':
      case 'interrupt':
      case 'question':
      case 'answer':
      case 'approval':
      case 'usage':
      case 'external_session':
      case 'plan':
        break;
    }
  }
  closeLastRound();
  return messages;
}
