import type { CancelCause } from '../errors';
import type { TurnEndReason } from './types';

/** What the session list shows for one session without opening it. */
export interface SessionSummary {
  /** `at` of the last event, or the header's `createdAt` for a session with no events. */
  lastActivity: string;
  eventCount: number;
  turnCount: number;
  lastTurnEndReason?: TurnEndReason;
  /** The last turn end's cause (a Stop's, a holder's, a shutdown's, a budget's), when it had one. */
  lastTurnEndCause?: CancelCause;
  /** What the last turn end said (what was spent, what failed), on one line, shortened. */
  lastTurnEndMessage?: string;
  /**
   * Messages queued and never claimed by a turn nor dropped when the session's log ends: they
   * wait, and come back parked when it is reopened. Absent when none waits.
   */
  queued?: number;
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
