import { isoNow } from '../clock';
import { toFailure } from '../errors';
import type { Answer, Question, SessionLog } from '../sessions/types';
import type { RunInteractionPolicy } from './policy';
import type { AskIntent, InteractionCaller, UserInteractionService } from './userInteraction';

/** What the asking transaction needs: the caller (with its session log), the turn's signal, the seam and the run's policy. */
export interface AskingContext {
  /** The exact live Agent object: ask() authenticates it through the registry. */
  agent: InteractionCaller & { readonly log: SessionLog };
  signal: AbortSignal;
  interaction: Pick<UserInteractionService, 'ask'>;
  policy: Pick<RunInteractionPolicy, 'unattended' | 'mode'>;
  /** The tool call that asks: recorded with the question, so a session resumed while it waited asks again. */
  toolCallId?: string;
}

export interface HumanQuestion {
  questions: Question[];
  /** 'clarify' for a question, 'plan-approval' for a plan (the plan is the `detail`). */
  intent: Exclude<AskIntent, 'approval'>;
  detail?: string;
}

/**
 * How asking ended. `unattended`: the run has no human, nothing was asked. `failed`: the ask
 * was refused (a delegated caller, a caller no longer live...), withdrawn, or the human
 * dismissed it (`dismissed`); `code` is stable and `message` is for the model.
 */
export type AskingOutcome =
  | { status: 'answered'; answers: Answer[] }
  | { status: 'unattended' }
  | { status: 'failed'; code: string; message: string; dismissed: boolean };

/**
 * The one transaction for asking the human from a tool (ask_user_question, exit_plan_mode):
 * the run's policy first (an unattended run asks nobody), then UserInteractionService.ask()
 * with its guards, and the session log records the question and its answer or failure code.
 * A clarification an unattended run suppresses is still recorded, so the log shows what the
 * agent wanted to know; a plan approval there is no question at all and records nothing.
 * Tools keep only their schema and their wording. `now` is the clock the log's entries are dated by.
 */
export async function askTheHuman(ctx: AskingContext, ask: HumanQuestion, now: () => number = Date.now): Promise<AskingOutcome> {
  const log = ctx.agent.log;
  if (ctx.policy.unattended) {
    if (ask.intent === 'clarify') {
      log.append({ type: 'question', at: isoNow(now), questions: ask.questions });
      log.append({ type: 'answer', at: isoNow(now), error: `SUPPRESSED: ${ctx.policy.mode} run, nobody can answer` });
    }
    return { status: 'unattended' };
  }
  log.append({ type: 'question', at: isoNow(now), questions: ask.questions, toolCallId: ctx.toolCallId, intent: ask.intent });
  try {
    const answers = await ctx.interaction.ask({ questions: ask.questions, agent: ctx.agent, signal: ctx.signal, intent: ask.intent, detail: ask.detail });
    log.append({ type: 'answer', at: isoNow(now), answers });
    return { status: 'answered', answers };
  } catch (err) {
    const failure = toFailure(err);
    log.append({ type: 'answer', at: isoNow(now), error: failure.code });
    return { status: 'failed', ...failure, dismissed: failure.code === 'ASK_CANCELLED' };
  }
}
