// The state History says for a past session, read from its summary alone (the session index
// keeps it, so listing never opens a transcript). Pure (no 'vscode' import).
//
// Invariants:
// - One state per session, in this order of what it asks of a person: a question or approval
//   left open ("waiting for you"), a turn cut short ("interrupted"), a budget or a guard that
//   holds it ("blocked"), an error ("failed"), messages that wait ("stopped, N queued"), then
//   how its last turn ended as every view says it (describeTurnEnd).
// - A turn is cut short when it never recorded its end (the process ended: the loader closes it
//   as `interrupted`) or when the agent's end aborted it (`aborted`, cause `disposed`: a window
//   that closed or reloaded, or an End while it ran; the log cannot tell them apart), as the
//   question a cut turn left open is read (pendingWait.ts).
// - Messages still queued when the log ends never ran: whatever ended the last turn, something
//   held them (a Stop, Stop All, a budget), so the session is stopped with them, and every
//   state that has them says how many.
import { describeTurnEnd } from '../../core/agents';
import type { SessionSummary } from '../../core/sessions';
import { turnEndIcon } from '../agents/agentPresentation';

export type HistoryState = 'waiting' | 'interrupted' | 'blocked' | 'failed' | 'stopped' | 'completed' | 'cancelled' | 'limit' | 'no-turns';

export interface HistoryStateDescription {
  readonly state: HistoryState;
  /** A few words for the row: "stopped, 1 queued", "interrupted", "blocked". */
  readonly text: string;
  /** A sentence for the tooltip: what happened, and what Resume does about it. */
  readonly detail: string;
  readonly icon: string;
}

export function historyStateOf(summary: SessionSummary): HistoryStateDescription {
  const queued = summary.queued ?? 0;
  const waits = queued > 0 ? `, ${queued} queued` : '';
  const kept = queued > 0 ? ` ${queuedSentence(queued)}` : '';
  const reason = summary.lastTurnEndReason;
  const cause = summary.lastTurnEndCause;
  const said = summary.lastTurnEndMessage;
  if (summary.waitingForYou) {
    const what = summary.waitingForYou === 'approval' ? 'an approval' : 'a question';
    return {
      state: 'waiting',
      text: summary.waitingForYou === 'approval' ? 'waiting for your approval' : 'waiting for you',
      detail: `It stopped while ${what} waited for you: Resume asks it again, and the agent goes on with your answer.${kept}`,
      icon: 'question',
    };
  }
  if (reason === 'interrupted' || (reason === 'aborted' && cause === 'disposed')) {
    return {
      state: 'interrupted',
      text: `interrupted${waits}`,
      detail: `A turn was cut short while it ran (the window closed, reloaded or crashed, or the agent was ended): what it had done is kept, and Resume lets it go on.${kept}`,
      icon: turnEndIcon('interrupted'),
    };
  }
  if (reason === 'blocked' || reason === 'paused' || (reason === 'aborted' && cause === 'budget')) {
    return { state: 'blocked', text: `blocked${waits}`, detail: `Blocked: ${said ?? 'a run budget or a runaway guard stopped it'}.${kept}`, icon: turnEndIcon('warning') };
  }
  if (reason === 'error') {
    return { state: 'failed', text: `failed${waits}`, detail: `Its last turn failed${said ? `: ${said}` : ''}.${kept}`, icon: turnEndIcon('error') };
  }
  if (queued > 0) {
    return { state: 'stopped', text: `stopped${waits}`, detail: `Stopped with messages that never ran.${kept}`, icon: 'debug-pause' };
  }
  if (reason === undefined) return { state: 'no-turns', text: 'no turns', detail: 'It never ran a turn.', icon: 'circle-outline' };
  const how = describeTurnEnd({ reason, cause, message: said });
  const state: HistoryState = how.outcome === 'limit' ? 'limit' : how.outcome === 'cancelled' ? 'cancelled' : how.outcome === 'completed' ? 'completed' : 'stopped';
  return { state, text: how.text, detail: `Its last turn ${how.text}${said ? `: ${said}` : ''}.`, icon: turnEndIcon(how.tone) };
}

function queuedSentence(queued: number): string {
  return queued === 1
    ? 'A queued message never ran: Resume brings it back, held until you send a message.'
    : `${queued} queued messages never ran: Resume brings them back in order, held until you send a message.`;
}
