import { toFailure } from '../errors';
import {
  ASK_USER_QUESTION_TOOL,
  MAX_QUESTIONS,
  askTheHuman,
  askUserQuestionArgsSchema,
  type RunInteractionPolicy,
  type UserInteractionService,
} from '../interaction';
import type { BaseToolContext } from './context';
import { defineTool } from './defineTool';
import type { ToolResult } from './types';

export { toFailure };

/** What ask_user_question needs besides the caller and the turn's signal. */
export interface AskUserQuestionContext extends BaseToolContext {
  interaction: Pick<UserInteractionService, 'ask'>;
  /** The run's policy: when nobody can answer, the question is not asked at all. */
  policy: Pick<RunInteractionPolicy, 'unattended' | 'mode' | 'suppressedClarificationResult'>;
}

const DISMISSED_GUIDANCE =
  'The human dismissed the question without answering. Do not ask it again right away: continue with what you know and state your assumptions, ' +
  'or stop and say which decision you need.';

/**
 * Asks the human through the interaction door (askTheHuman: policy, ask() and its guards, the
 * log). The result is `{ answers }` as JSON, or `{ code, message }` with isError when the
 * question could not be asked or answered; an unattended run gets the policy's suppressed
 * clarification result.
 */
export const askUserQuestionTool = defineTool<typeof askUserQuestionArgsSchema, AskUserQuestionContext>({
  name: ASK_USER_QUESTION_TOOL,
  description:
    `Ask the human 1 to ${MAX_QUESTIONS} questions and wait for the answers. Use it only for decisions you cannot settle from the context ` +
    '(preferences, trade-offs, missing requirements); batch related questions. Offer options where you can; the human may always answer in free text. ' +
    'Returns {"answers":[{"id","selected":[labels],"custom"?}]}; on a multi-select question an empty "selected" without "custom" means none of the options.',
  schema: askUserQuestionArgsSchema,
  readOnly: true,
  async run(args, ctx): Promise<ToolResult> {
    const outcome = await askTheHuman(ctx, { questions: args.questions, intent: 'clarify' });
    switch (outcome.status) {
      case 'unattended':
        return { content: ctx.policy.suppressedClarificationResult(args.questions.map((q) => q.question).join(' / ')) };
      case 'answered':
        return { content: JSON.stringify({ answers: outcome.answers }) };
      case 'failed':
        return { content: JSON.stringify({ code: outcome.code, message: outcome.dismissed ? DISMISSED_GUIDANCE : outcome.message }), isError: true };
    }
  },
});
