import { ArborError } from '../errors';
import {
  ASK_USER_QUESTION_TOOL,
  MAX_QUESTIONS,
  askUserQuestionArgsSchema,
  type RunInteractionPolicy,
  type UserInteractionService,
} from '../interaction';
import type { BaseToolContext } from './context';
import type { ToolDefinition, ToolResult } from './types';

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
 * Asks the human through UserInteractionService.ask(), which decides whether this caller may
 * (only runtime roots may). The result is `{ answers }` as JSON, or `{ code, message }` with
 * isError when the question could not be asked or answered.
 */
export const askUserQuestionTool: ToolDefinition<AskUserQuestionContext, typeof askUserQuestionArgsSchema> = {
  name: ASK_USER_QUESTION_TOOL,
  description:
    `Ask the human 1 to ${MAX_QUESTIONS} questions and wait for the answers. Use it only for decisions you cannot settle from the context ` +
    '(preferences, trade-offs, missing requirements); batch related questions. Offer options where you can; the human may always answer in free text. ' +
    'Returns {"answers":[{"id","selected":[labels],"custom"?}]}.',
  schema: askUserQuestionArgsSchema,
  readOnly: true,
  async run(args, ctx): Promise<ToolResult> {
    const log = ctx.agent.log;
    log.append({ type: 'question', at: new Date().toISOString(), questions: args.questions });

    // The policy hides this tool when unattended; this covers a runtime that offers it anyway.
    if (ctx.policy.unattended) {
      log.append({ type: 'answer', at: new Date().toISOString(), error: `SUPPRESSED: ${ctx.policy.mode} run, nobody can answer` });
      return { content: ctx.policy.suppressedClarificationResult(args.questions.map((q) => q.question).join(' / ')) };
    }

    try {
      const answers = await ctx.interaction.ask({ questions: args.questions, agent: ctx.agent, signal: ctx.signal, intent: 'clarify' });
      log.append({ type: 'answer', at: new Date().toISOString(), answers });
      return { content: JSON.stringify({ answers }) };
    } catch (err) {
      const failure = toFailure(err);
      log.append({ type: 'answer', at: new Date().toISOString(), error: failure.code });
      const message = failure.code === 'ASK_CANCELLED' ? DISMISSED_GUIDANCE : failure.message;
      return { content: JSON.stringify({ code: failure.code, message }), isError: true };
    }
  },
};

/** Every failure as a stable code and a message; unexpected throws become INTERNAL. */
export function toFailure(err: unknown): { code: string; message: string } {
  if (err instanceof ArborError) return { code: err.code, message: err.message };
  return { code: 'INTERNAL', message: `Asking the human failed: ${err instanceof Error ? err.message : String(err)}` };
}
