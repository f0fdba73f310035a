import type { Agent, AgentRun } from '../agents/agent';
import type { Hold } from '../agents/holds';
import type { AgentRegistry } from '../agents/registry';
import type { BudgetSlice } from './slices';

/** What the slice guard tells the editor: a branch paused, ended BLOCKED, or went on after a raise. */
export type SliceEvent =
  | { type: 'slice_paused'; run: AgentRun; agent: Agent; slice: BudgetSlice; reason: string }
  | { type: 'slice_blocked'; run: AgentRun; agent: Agent; slice: BudgetSlice; reason: string; report: string }
  | { type: 'slice_resumed'; run: AgentRun; agent: Agent; slice: BudgetSlice };

export interface SliceGuardDeps {
  agents: Pick<AgentRegistry, 'all' | 'isLive' | 'parentOf' | 'get'>;
  now: () => number;
  fire: (event: SliceEvent) => void;
  /** The run's own pause, if any: an agent a slice raise frees stays under it. */
  runHoldOf: (run: AgentRun) => Hold | undefined;
  /** Ends a continuable agent (an unattended branch at its cap ends so). */
  end?: (agent: Agent) => Promise<void>;
}

/** What a branch's agents the raise of its slice woke are told. */
export const SLICE_RESUME_NOTE = "[Arbor] Your branch's budget was raised. Continue where you left off.";
