import * as z from 'zod';
import { EXIT_PLAN_MODE_TOOL, MAX_DETAIL_LENGTH } from '../interaction';
import { once } from '../once';
import { planApprovalPart } from '../parts';
import { defineTool } from './defineTool';
import type { ExitPlanModeContext } from './planApprovalOptions';

export { PLAN_APPROVAL_OPTIONS, type ExitPlanModeContext } from './planApprovalOptions';

export const exitPlanModeArgsSchema = once(() => z.object({
  plan: z
    .string()
    .min(1)
    .max(MAX_DETAIL_LENGTH)
    .regex(/\S/, 'must not be blank')
    .describe('The complete plan, in Markdown: what you will change, in which order, and how you will check it.'),
}));

/**
 * Leaves plan mode only with the human's approval, asked through the same
 * UserInteractionService.ask() as every question, so a delegated agent gets the same refusal
 * as ask_user_question. Anything but an explicit "Approve plan" (rejection, free text,
 * dismissal, refusal, an unattended run) keeps plan mode on, and the result says so. Asking
 * is planApproval.ts, a part loaded by the first plan presented.
 */
export const exitPlanModeTool = defineTool<ReturnType<typeof exitPlanModeArgsSchema>, ExitPlanModeContext>({
  name: EXIT_PLAN_MODE_TOOL,
  description:
    'Present your finished plan to the human for approval. On approval plan mode ends and you may make changes; ' +
    'otherwise you stay in plan mode and get the human\'s feedback, if any.',
  schema: exitPlanModeArgsSchema,
  readOnly: true,
  run: (args, ctx) => planApprovalPart().exitPlanMode(args, ctx),
});
