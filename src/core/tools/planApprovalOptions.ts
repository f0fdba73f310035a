/** What a plan approval offers and needs, shared by exit_plan_mode (exitPlanMode.ts) and its work (planApproval.ts). */
import type { RunInteractionPolicy, UserInteractionService } from '../interaction';
import type { BaseToolContext } from './context';

/** The two answers a plan approval offers; anything but "Approve plan" keeps plan mode on. */
export const PLAN_APPROVAL_OPTIONS = Object.freeze({ approve: 'Approve plan', keepPlanning: 'Keep planning' });

/** What exit_plan_mode needs besides the caller and the turn's signal. */
export interface ExitPlanModeContext extends BaseToolContext {
  interaction: Pick<UserInteractionService, 'ask'>;
  /** The run's policy: an unattended run has nobody to approve, so plan mode stays on. */
  policy: Pick<RunInteractionPolicy, 'unattended' | 'mode'>;
}
