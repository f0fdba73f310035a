import type { Agent } from '../../core/agents';
import { salvagedSessionWarning, type AgentKind, type SessionDamage, type SessionEvent, type SessionHeader } from '../../core/sessions';

/** The session of an agent that is no longer live, shown read-only (after a window reload). */
export class SavedConversation {
  readonly status = 'idle';
  readonly stopping = undefined;
  readonly pendingCount = 0;
  readonly isParked = false;
  readonly turnStartedAt = undefined;
  readonly id: string;
  readonly label: string;
  readonly kind: AgentKind;
  readonly log: { readonly events: readonly SessionEvent[] };
  readonly usage = { inputTokens: 0, outputTokens: 0 };
  readonly lastTurnEnd: { reason: Extract<SessionEvent, { type: 'turn_end' }>['reason'] } | undefined;
  /** What the view warns of before the conversation: the part of a damaged file left out. */
  readonly warning: string | undefined;

  constructor(header: SessionHeader, events: readonly SessionEvent[], damage?: SessionDamage) {
    this.id = header.id;
    this.warning = damage && salvagedSessionWarning(damage);
    this.label = header.label;
    this.kind = header.kind;
    this.log = { events };
    let lastEnd: SessionEvent | undefined;
    for (const event of events) {
      if (event.type === 'usage') {
        this.usage.inputTokens += event.inputTokens;
        this.usage.outputTokens += event.outputTokens;
      } else if (event.type === 'turn_end') lastEnd = event;
    }
    this.lastTurnEnd = lastEnd?.type === 'turn_end' ? { reason: lastEnd.reason } : undefined;
  }
}

/** What a conversation view shows: a live agent, or the saved session of one that is not. */
export type Shown = Agent | SavedConversation;
