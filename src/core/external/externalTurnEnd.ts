import type { Agent, EngineTurn as AnyEngineTurn, TurnEnd } from '../agents/agent';
import { abortCauseOf } from '../errors';
import type { StopReason } from './acpAnswers';
import type { TurnTranscript } from './turnTranscript';

type EngineTurn = AnyEngineTurn<Agent>;

/** How an external agent's turn ends, from what the agent answered or from the turn's abort. */

export function aborted(turn: EngineTurn, transcript: TurnTranscript): TurnEnd {
  transcript.close();
  return { turn: turn.turn, reason: 'aborted', cause: abortCauseOf(turn.signal) ?? 'user', finalText: transcript.finalText };
}

export function endOf(turn: EngineTurn, stopReason: StopReason, finalText: string): TurnEnd {
  switch (stopReason) {
    case 'end_turn':
      return { turn: turn.turn, reason: 'completed', finalText };
    case 'max_tokens':
    case 'max_turn_requests':
      return { turn: turn.turn, reason: 'budget', message: `the external agent stopped: ${stopReason.replace(/_/g, ' ')}`, finalText };
    case 'refusal':
      return { turn: turn.turn, reason: 'blocked', message: 'the external agent refused to carry on', finalText };
    case 'cancelled':
      return { turn: turn.turn, reason: 'aborted', cause: 'user', finalText };
  }
}

