import * as z from 'zod';
import { once } from '../once';
import { cancelCauseSchema, turnEndReasonSchema } from './schema';
import { previewOf, type SessionSummary } from './sessionSummary';
import type { SessionEvent, SessionHeader } from './types';

/**
 * What a scan of a session learns, as a small foldable state the session index keeps (see
 * sessionScan.ts and sessionIndex.ts), and the summary History shows from it. The same fold
 * reads a file line by line and a live log in memory (summarizeSession), so a session is never
 * described two ways.
 *
 * Invariants: the state holds no event, only counts and the few facts History says (the last
 * turn end, the messages still queued, the question left open); a field added here changes the
 * index's shape, so sessionIndex.ts bumps its version and old indexes are rebuilt.
 */

export const scanStateSchema = once(() => z.object({
  /** Complete lines read, the header included, and the bytes they occupy. */
  lines: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  eventCount: z.number().int().nonnegative(),
  turnCount: z.number().int().nonnegative(),
  lastTurnEndReason: turnEndReasonSchema().optional(),
  /** The last turn end's cause and message (on one line, shortened): History says why it stopped, paused or failed. */
  lastTurnEndCause: cancelCauseSchema().optional(),
  lastTurnEndMessage: z.string().optional(),
  /**
   * The ids of the messages queued and neither claimed by a turn nor dropped: they wait, and
   * come back (parked) when the session is reopened. Absent when none waits. Replaced, never
   * changed in place, since a continued scan starts from a shallow copy of a cached state.
   */
  queued: z.array(z.number().int().nonnegative()).optional(),
  firstUserMessage: z.string().optional(),
  lastAt: z.string().optional(),
  /** The turn started and not ended when the file ends. */
  openTurn: z.number().int().nonnegative().optional(),
  /**
   * The question or approval of the last turn that nobody answered because the turn was cut
   * short (left open, interrupted, or aborted by a shutdown): the call a resume asks again
   * (pendingWait.ts decides the same from the events).
   */
  waiting: z.object({ toolCallId: z.string(), approval: z.boolean().optional() }).optional(),
  /** CRC-32 of the file's first `bytes` bytes: a scan that continues checks they are unchanged. */
  prefixCrc: z.number().int().nonnegative(),
  /** The first damaged line: its number, why, and its byte offset; nothing after it counts. */
  damage: z.object({ line: z.number().int().positive(), reason: z.string(), offset: z.number().int().nonnegative() }).optional(),
}));
export type ScanState = z.infer<ReturnType<typeof scanStateSchema>>;

export function emptyScanState(): ScanState {
  return { lines: 0, bytes: 0, eventCount: 0, turnCount: 0, prefixCrc: 0 };
}

/** Adds one event to a summary state (the same fold for files and for logs in memory). */
export function foldEvent(state: ScanState, event: SessionEvent): void {
  state.eventCount++;
  state.lastAt = event.at;
  if (event.type === 'user_message') {
    if (state.firstUserMessage === undefined) state.firstUserMessage = previewOf(event.text);
    if (event.queuedId !== undefined) withoutQueued(state, (id) => id === event.queuedId);
  } else if (event.type === 'turn_start') {
    state.turnCount++;
    state.openTurn = event.turn;
    state.waiting = undefined;
  } else if (event.type === 'queued') {
    state.queued = [...(state.queued ?? []), event.id];
  } else if (event.type === 'queue_dropped') {
    const dropped = new Set(event.ids);
    withoutQueued(state, (id) => dropped.has(id));
  } else if (event.type === 'turn_end') {
    state.lastTurnEndReason = event.reason;
    state.lastTurnEndCause = event.cause;
    state.lastTurnEndMessage = event.message === undefined ? undefined : previewOf(event.message);
    state.openTurn = undefined;
    // Only a turn cut short leaves its question open; one that ended by itself or by a Stop does not.
    if (event.reason !== 'interrupted' && !(event.reason === 'aborted' && event.cause === 'disposed')) state.waiting = undefined;
  } else if (event.type === 'question') {
    state.waiting = event.toolCallId === undefined ? undefined : event.intent === 'approval' ? { toolCallId: event.toolCallId, approval: true } : { toolCallId: event.toolCallId };
  } else if (event.type === 'answer') {
    // An answer the shutdown withdrew (ASK_ABORTED) is none.
    if (event.error !== 'ASK_ABORTED') state.waiting = undefined;
  } else if (event.type === 'tool_result') {
    if (state.waiting?.toolCallId === event.toolCallId) state.waiting = undefined;
  }
}

function withoutQueued(state: ScanState, drop: (id: number) => boolean): void {
  if (!state.queued) return;
  const left = state.queued.filter((id) => !drop(id));
  state.queued = left.length > 0 ? left : undefined;
}

/**
 * The summary the session list shows. `repairOpenTurn`: a turn left open counts as ended
 * `interrupted` (a past session; the loader closes it the same way), not for a live log.
 */
export function summaryOf(header: SessionHeader, state: ScanState, repairOpenTurn: boolean): SessionSummary {
  const interrupted = repairOpenTurn && state.openTurn !== undefined;
  const summary: SessionSummary = {
    lastActivity: state.lastAt ?? header.createdAt,
    eventCount: state.eventCount + (interrupted ? 1 : 0),
    turnCount: state.turnCount,
  };
  const reason = interrupted ? 'interrupted' : state.lastTurnEndReason;
  if (reason !== undefined) summary.lastTurnEndReason = reason;
  if (!interrupted && state.lastTurnEndCause !== undefined) summary.lastTurnEndCause = state.lastTurnEndCause;
  if (!interrupted && state.lastTurnEndMessage !== undefined) summary.lastTurnEndMessage = state.lastTurnEndMessage;
  if (state.queued) summary.queued = state.queued.length;
  if (state.firstUserMessage !== undefined) summary.firstUserMessage = state.firstUserMessage;
  if (state.waiting) summary.waitingForYou = state.waiting.approval ? 'approval' : 'answer';
  return summary;
}

/** The summary of a session whose events are in memory (a live log): a running turn is not "interrupted". */
export function summarizeSession(header: SessionHeader, events: readonly SessionEvent[]): SessionSummary {
  const state = emptyScanState();
  for (const event of events) foldEvent(state, event);
  return summaryOf(header, state, false);
}
