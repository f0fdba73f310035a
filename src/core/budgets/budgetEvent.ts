import type { Agent, AgentRun } from '../agents/agent';
import type { RunLimits } from '../limits';
import type { BudgetStatus } from './budgetStatus';
import type { RunawayEvent } from './runawayGuard';
import type { SliceEvent } from './sliceEvents';

/** What the budget guard tells the editor: a run's warning, pause, BLOCKED end and raise, a runaway guard's, and a branch's. */
export type BudgetEvent =
  | { type: 'warning'; run: AgentRun; root: Agent | undefined; status: BudgetStatus }
  | { type: 'paused'; run: AgentRun; root: Agent | undefined; reason: string }
  | { type: 'blocked'; run: AgentRun; root: Agent | undefined; reason: string; report: string }
  | { type: 'resumed'; run: AgentRun; root: Agent | undefined; limits: RunLimits }
  | RunawayEvent
  | SliceEvent;

/** What the agents a run's raise woke are told. */
export const RESUME_NOTE = "[Arbor] The run's limit was raised. Continue where you left off.";
