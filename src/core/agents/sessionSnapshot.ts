import type { ChatMessage } from '../models/types';
import { conversationFromEvents } from '../sessions/conversationFromEvents';
import { pendingQueueFromEvents, type PendingMessage } from '../sessions/pendingQueue';
import { pendingHumanWait, type PendingHumanWait } from '../sessions/pendingWait';
import type { PlanItem, SessionLog } from '../sessions/types';
import type { TurnEnd } from './agent';

/**
 * What an agent that continues an earlier session starts with instead of an empty history: a
 * resumed root, or a settled continuable child its parent wakes (from memory or from the
 * durable store). Its label and its recorded parent are the log header's.
 */
export interface SessionSnapshot {
  /** The session's log, open for writing. */
  log: SessionLog;
  conversation: ChatMessage[];
  /** Turns already recorded. */
  turns: number;
  /** Tokens used so far, shown again once the agent is live. */
  usage?: { inputTokens: number; outputTokens: number };
  lastTurnEnd?: TurnEnd;
  /** Messages queued but never claimed when the log ended; they come back parked. */
  pending?: PendingMessage[];
  lastQueueId?: number;
  /** The question or approval left open when the session stopped, for an agent that asks it again. */
  waiting?: PendingHumanWait;
  /** The last plan the session recorded. */
  plan?: PlanItem[];
}

/**
 * Reads back what a reopened session carries into its agent: conversation, turns, usage, last
 * turn end, unclaimed queue. With `resumeWaiting`, a question or approval the session was waiting
 * for when it stopped is returned as `waiting`, its tool call left open in the conversation: the
 * caller must run that call again (Agent.continueWaitingCall) before anything else.
 */
export function readSessionSnapshot(log: SessionLog, options: { resumeWaiting?: boolean } = {}): SessionSnapshot {
  let turns = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let lastText = '';
  let lastTurnEnd: TurnEnd | undefined;
  let plan: PlanItem[] | undefined;
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
      case 'plan':
        plan = event.items;
        break;
      case 'user_message':
      case 'queued':
      case 'queue_dropped':
      case 'tool_call':
      case 'tool_result':
      case 'interrupt':
      case 'question':
      case 'answer':
      case 'approval':
      case 'external_session':
        break;
    }
  }
  const queue = pendingQueueFromEvents(log.events);
  const waiting = options.resumeWaiting ? pendingHumanWait(log.events) : undefined;
  return {
    log,
    conversation: conversationFromEvents(log.events, { awaiting: waiting?.call.id }),
    ...(waiting ? { waiting } : {}),
    turns,
    usage: { inputTokens, outputTokens },
    lastTurnEnd,
    pending: queue.pending,
    lastQueueId: queue.lastId,
    ...(plan ? { plan } : {}),
  };
}
