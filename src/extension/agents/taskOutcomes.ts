// Which turn ends deserve a notification. Pure (no 'vscode' import), so it is unit-tested in
// plain Node; turnNotifications.ts shows what it picks.
import type { Agent, RuntimeEvent, TurnEnd } from '../../core/agents';

export interface TaskOutcome {
  agent: Agent;
  end: TurnEnd;
}

/**
 * One notification per task a person gave a root agent, not one per turn. A task starts when a
 * root's turn takes a message from the user; its outcome is the end of that turn. The turns
 * that children's reports wake afterwards belong to the same task and announce nothing, so a
 * lead that hears from ten subagents does not pile up ten notifications. A turn the user
 * stopped announces nothing either (the user knows), nor one that ended without an answer.
 */
export class TaskOutcomes {
  private readonly open = new WeakSet<Agent>();

  /** Feed every runtime event; returns the outcome to announce when this event is one. */
  observe(e: RuntimeEvent): TaskOutcome | undefined {
    if (e.type !== 'agent_changed' || e.agent.kind !== 'root') return undefined;
    const change = e.change;
    if (change.type === 'log') {
      if (change.event.type === 'user_message' && change.event.from === 'user') this.open.add(e.agent);
      return undefined;
    }
    if (change.type !== 'turn_end' || !this.open.has(e.agent)) return undefined;
    this.open.delete(e.agent);
    const end = change.end;
    if (end.reason === 'aborted' || (end.reason === 'completed' && !end.finalText)) return undefined;
    return { agent: e.agent, end };
  }
}
