import type { Agent, AgentChange } from './agent';

/**
 * The one event channel of the core: every live agent's arrival and departure (fired by the
 * registry) and every change of an agent (fired by the runtime for the agent). Subscribers
 * filter what they need: the continuation manager reacts to turn ends and removals, the runtime
 * forgets an ended agent's approvals and closes its log, the editor repaints.
 */
export type RuntimeEvent =
  | { type: 'agent_added'; agent: Agent }
  /** `parent` is the agent that created it (live or not). */
  | { type: 'agent_removed'; agent: Agent; parent?: Agent }
  | { type: 'agent_changed'; agent: Agent; change: AgentChange };
