import { isoNow } from '../clock';
import { ObservedLog } from '../sessions/observedLog';
import type { SessionEvent, SessionLog } from '../sessions/types';
import type { TurnEnd } from './turnLoop';

/**
 * What an agent writes to its session beside its turn loop: its log, whose every append is the
 * agent's `log` change (through the class, not a closure per agent), and the event a turn's end
 * is recorded with.
 */
export class AgentLog<A> extends ObservedLog {
  constructor(
    inner: SessionLog,
    private readonly agent: A,
    private readonly host: { agentChanged(agent: A, change: { type: 'log'; event: SessionEvent }): void },
  ) {
    super(inner);
  }
  protected appended(event: SessionEvent): void {
    this.host.agentChanged(this.agent, { type: 'log', event });
  }
}

/**
 * The event that records a turn's end, with only the fields it has: an event is kept for the
 * session's life, and a field left undefined still takes its slot (the JSON is the same).
 */
export function turnEndEvent({ turn, reason, cause, message }: TurnEnd): SessionEvent {
  const at = isoNow();
  if (cause === undefined) return message === undefined ? { type: 'turn_end', at, turn, reason } : { type: 'turn_end', at, turn, reason, message };
  return message === undefined ? { type: 'turn_end', at, turn, reason, cause } : { type: 'turn_end', at, turn, reason, cause, message };
}
