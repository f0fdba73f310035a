import * as z from 'zod';
import { EXIT_PLAN_MODE_TOOL, MAX_DETAIL_LENGTH, askTheHuman, type RunInteractionPolicy, type UserInteractionService } from '../interaction';
import { once } from '../once';
import type { Question } from '../sessions/types';
import type { BaseToolContext } from './context';
import { defineTool } from './defineTool';
import type { ToolResult } from './types';

/** What exit_plan_mode needs besides the caller and the turn's signal. */
export interface ExitPlanModeContext extends BaseToolContext {
  interaction: Pick<UserInteractionService, 'ask'>;
  /** The run's policy: an unattended run has nobody to approve, so plan mode stays on. */
  policy: Pick<RunInteractionPolicy, 'unattended' | 'mode'>;
}

export const exitPlanModeArgsSchema = once(() => z.object({
  plan: z
    .string()
    .min(1)
    .max(MAX_DETAIL_LENGTH)
    .regex(/\S/, 'must not be blank')
    .describe('The complete plan, in Markdown: what you will change, in which order, and how you will check it.'),
}));

export const PLAN_APPROVAL_OPTIONS = Object.freeze({ approve: 'Approve plan', keepPlanning: 'Keep planning' });

/**
 * Leaves plan mode only with the human's approval, asked through the same
 * UserInteractionService.ask() as every question, so a delegated agent gets the same refusal
 * as ask_user_question. Anything but an explicit "Approve plan" (rejection, free text,
 * dismissal, refusal, an unattended run) keeps plan mode on, and the result says so.
 */
export const exitPlanModeTool = defineTool<ReturnType<typeof exitPlanModeArgsSchema>, ExitPlanModeContext>({
  name: EXIT_PLAN_MODE_TOOL,
  description:
    'Present your finished plan to the human for approval. On approval plan mode ends and you may make changes; ' +
    'otherwise you stay in plan mode and get the human\'s feedback, if any.',
  schema: exitPlanModeArgsSchema,
  readOnly: true,
  async run(args, ctx): Promise<ToolResult> {
    const agent = ctx.agent;
    if (!agent.planMode) {
      return result({ status: 'not-in-plan-mode', planMode: false, message: 'Plan mode is already off; no approval is needed.' });
    }
    const outcome = await askTheHuman(ctx, { questions: planQuestion(agent.label), intent: 'plan-approval', detail: args.plan });
    if (outcome.status === 'unattended') {
      return result({
        status: 'blocked',
        planMode: true,
        message:
          `Plan approval needs a human, and this ${ctx.policy.mode} run has none, so plan mode stays on. Do not try to make changes. ` +
          'Finish now: make the plan your final result and start it with "BLOCKED: plan approval".',
      });
    }
    if (outcome.status === 'failed') {
      const message = outcome.dismissed ? 'The human dismissed the plan approval without deciding. You are still in plan mode; do not make changes.' : outcome.message;
      return { content: JSON.stringify({ code: outcome.code, message, planMode: true }), isError: true };
    }
    const [answer] = outcome.answers;
    const feedback = answer.custom;
    if (answer.selected.includes(PLAN_APPROVAL_OPTIONS.approve)) {
      agent.planMode = false;
      return result({
        status: 'approved',
        planMode: false,
        message: 'The human approved the plan. Plan mode is off: carry out the plan.',
        ...(feedback !== undefined ? { feedback } : {}),
      });
    }
    return result({
      status: 'kept-planning',
      planMode: true,
      message: 'The human did not approve the plan. You are still in plan mode: revise the plan (use the feedback, if any) before asking again.',
      ...(feedback !== undefined ? { feedback } : {}),
    });
  },
});

/** The one question of a plan approval. */
function planQuestion(label: string): Question[] {
  return [
    {
      id: 'plan',
      header: 'Plan',
      question: `Approve this plan and let ${label} start making changes?`,
      options: [
        { label: PLAN_APPROVAL_OPTIONS.approve, description: 'Leave plan mode and carry out the plan.' },
        { label: PLAN_APPROVAL_OPTIONS.keepPlanning, description: 'Stay in plan mode; add feedback as free text.' },
      ],
      multiSelect: false,
    },
  ];
}

function result(body: { status: string; planMode: boolean; message: string; feedback?: string }): ToolResult {
  return { content: JSON.stringify(body) };
}
