import { pendingHumanWait } from './pendingWait';
import type { SessionEvent, SessionHeader, TurnEndReason } from './types';

/** What the session list shows for one session without opening it. */
export interface SessionSummary {
  /** `at` of the last event, or the header's `createdAt` for a session with no events. */
  lastActivity: string;
  eventCount: number;
  turnCount: number;
  lastTurnEndReason?: TurnEndReason;
  /** The start of the first message the session received, on one line. */
  firstUserMessage?: string;
  /**
   * A question (`answer`) or approval (`approval`) was open when the session stopped: resuming
   * it asks again. Absent when nothing waits for the human.
   */
  waitingForYou?: 'answer' | 'approval';
}

export const PREVIEW_LENGTH = 120;

export function previewOf(text: string, length = PREVIEW_LENGTH): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= length ? line : line.slice(0, length - 1).trimEnd() + '…';
}

export function summarizeSession(header: SessionHeader, events: readonly SessionEvent[]): SessionSummary {
  let firstUserMessage: string | undefined;
  let lastTurnEndReason: TurnEndReason | undefined;
  let turnCount = 0;
  for (const event of events) {
    if (event.type === 'user_message' && firstUserMessage === undefined) firstUserMessage = previewOf(event.text);
    else if (event.type === 'turn_start') turnCount++;
    else if (event.type === 'turn_end') lastTurnEndReason = event.reason;
  }
  const summary: SessionSummary = {
    lastActivity: events.length > 0 ? events[events.length - 1].at : header.createdAt,
    eventCount: events.length,
    turnCount,
  };
  if (lastTurnEndReason !== undefined) summary.lastTurnEndReason = lastTurnEndReason;
  if (firstUserMessage !== undefined) summary.firstUserMessage = firstUserMessage;
  const waiting = pendingHumanWait(events);
  if (waiting) summary.waitingForYou = waiting.intent === 'approval' ? 'approval' : 'answer';
  return summary;
}
