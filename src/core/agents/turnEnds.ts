import type { CancelCause } from '../errors';
import type { TurnEndReason } from '../sessions/types';

/**
 * How a turn ended, read once: every view that says it (the Agents view's rows and icons, History,
 * a subagent's report, a one-shot's result, the result of a run nobody watches) starts from
 * `describeTurnEnd`, so one end is never read two ways.
 *
 * Invariants:
 * - Each outcome has one meaning, and a reason with its cause has exactly one outcome.
 * - An abort is read by its cause: the user's Stop is `stopped`, a holder's or an ancestor's is
 *   `cancelled`, the agent's end is `ended`, and a run's pause is `paused`, as a `paused` end is.
 *   An abort without a cause (a History row knows only the reason) is `stopped`.
 * - `text` is the few words a row or a line uses; `tone` is how much the end asks of a person.
 *   A view that must keep words of its own (a report the parent's model parses back, a menu's
 *   state string) maps `outcome`, never the reason.
 */

export type TurnOutcome =
  /** The model answered without tool calls. */
  | 'completed'
  /** The user's Stop. */
  | 'stopped'
  /** Its holder's turn ended or an ancestor stopped it. */
  | 'cancelled'
  /** The agent was ended while the turn ran. */
  | 'ended'
  /** A limit of the agent or the turn ended it (reason `budget`); the agent may go on. */
  | 'limit'
  /** A hold of the run or the agent ended it (a spent run budget, a runaway guard); it waits for the release. */
  | 'paused'
  /** It ended BLOCKED: an unattended run at its cap, or an agent that refused to carry on. */
  | 'blocked'
  | 'failed'
  /** Arbor stopped while the turn ran (written when the session is repaired on load). */
  | 'interrupted';

/** `ok`: nothing to do; `warning`: it hit a limit or waits for a person; `interrupted`: the window went away. */
export type TurnEndTone = 'ok' | 'stopped' | 'warning' | 'error' | 'interrupted';

export interface TurnEndDescription {
  readonly outcome: TurnOutcome;
  /** A few words: "completed", "stopped", "hit a run limit", "paused". */
  readonly text: string;
  readonly tone: TurnEndTone;
  /** What was hit or what failed, in the end's own words, when it says. */
  readonly detail?: string;
}

/** What a turn end says about itself: a live TurnEnd, a `turn_end` of a session, or a reason alone. */
export interface TurnEndFacts {
  readonly reason: TurnEndReason;
  readonly cause?: CancelCause;
  readonly message?: string;
}

const WORDS: Readonly<Record<TurnOutcome, { text: string; tone: TurnEndTone }>> = Object.freeze({
  completed: { text: 'completed', tone: 'ok' },
  stopped: { text: 'stopped', tone: 'stopped' },
  cancelled: { text: 'cancelled', tone: 'stopped' },
  ended: { text: 'ended', tone: 'stopped' },
  limit: { text: 'hit a run limit', tone: 'warning' },
  paused: { text: 'paused', tone: 'warning' },
  blocked: { text: 'blocked', tone: 'warning' },
  failed: { text: 'failed', tone: 'error' },
  interrupted: { text: 'interrupted', tone: 'interrupted' },
});

export function describeTurnEnd(end: TurnEndFacts): TurnEndDescription {
  const outcome = outcomeOf(end);
  const { text, tone } = WORDS[outcome];
  return end.message === undefined ? { outcome, text, tone } : { outcome, text, tone, detail: end.message };
}

function outcomeOf({ reason, cause }: TurnEndFacts): TurnOutcome {
  switch (reason) {
    case 'completed':
      return 'completed';
    case 'aborted':
      return cause === 'parent' ? 'cancelled' : cause === 'disposed' ? 'ended' : cause === 'budget' ? 'paused' : 'stopped';
    case 'budget':
      return 'limit';
    case 'paused':
      return 'paused';
    case 'blocked':
      return 'blocked';
    case 'error':
      return 'failed';
    case 'interrupted':
      return 'interrupted';
  }
}
