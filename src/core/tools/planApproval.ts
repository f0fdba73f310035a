/**
 * What exit_plan_mode does when called (exitPlanMode.ts describes it to the model): asks the
 * human to approve the plan and says what came of it. A part loaded by the first plan presented
 * (src/core/parts.ts), since only runs in plan mode need it.
 */

import { askTheHuman } from '../interaction';
import type { Question } from '../sessions/types';
import { PLAN_APPROVAL_OPTIONS, type ExitPlanModeContext } from './planApprovalOptions';
import type { ToolResult } from './types';

export async function exitPlanMode(args: { plan: string }, ctx: ExitPlanModeContext): Promise<ToolResult> {
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
}

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
