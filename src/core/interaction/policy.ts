import * as z from 'zod';
import { ArborError } from '../errors';
import { once } from '../once';
import type { InteractionMode } from '../sessions/types';

/** The tools whose only purpose is to reach a human. */
export const ASK_USER_QUESTION_TOOL = 'ask_user_question';
export const EXIT_PLAN_MODE_TOOL = 'exit_plan_mode';

export const INTERACTION_MODES: readonly InteractionMode[] = Object.freeze(['interactive', 'scheduled', 'webhook', 'autonomous']);

/**
 * What a run is started with. All four keys are internal-caller-only: public entry points
 * strip or reject them (see trustBoundary.ts). The three hints besides `interactionMode` are
 * older ways of saying the same thing and are never persisted.
 */
export interface RunContext {
  interactionMode?: string;
  nonInteractive?: boolean;
  channelName?: string;
  disableClarification?: boolean;
}

/** Which rule picked the mode; written to logs so a surprising mode can be traced. */
export type PolicySource = 'interactionMode' | 'nonInteractive' | 'channelName' | 'disableClarification' | 'default';

export type ApprovalEligibility = 'ask' | 'deny';

/**
 * How a run may involve the human, resolved once when the run starts and never changed. It is
 * the single source for tool visibility, what a suppressed clarification returns, approval
 * eligibility and the system-prompt guidance, so these can never disagree.
 */
export interface RunInteractionPolicy {
  readonly mode: InteractionMode;
  /** No human will answer during this run. */
  readonly unattended: boolean;
  readonly source: PolicySource;
  isToolVisible(name: string): boolean;
  /** The tools the model is offered, in the given order. */
  visibleTools<T extends string | { readonly name: string }>(tools: readonly T[]): T[];
  /** The tool result a clarification gets when no human can be asked. */
  suppressedClarificationResult(question?: string): string;
  /**
   * Whether a pending approval may wait for the person. An unattended run never does; a subagent
   * does only where `subagents` is `ask` (arbor.approvals.subagents) and the person is there
   * (`humanPresent`: a question UI is open for them); a root of an interactive run always does.
   */
  approvalEligibility(caller: { isSubagent: boolean; subagents?: 'deny' | 'ask'; humanPresent?: boolean }): ApprovalEligibility;
  /** Appended to the system prompt. Tool schemas never depend on it. */
  systemPromptGuidance(): string;
}

const runContextSchema = once(() => z.object({
  interactionMode: z.string().optional(),
  nonInteractive: z.boolean().optional(),
  channelName: z.string().optional(),
  disableClarification: z.boolean().optional(),
}));

/**
 * Precedence: an explicit `interactionMode` wins and must name a known mode (an unknown one is
 * a configuration error, never a fallback to interactive); otherwise `nonInteractive` means
 * scheduled, `channelName === 'github'` means webhook, `disableClarification` means
 * autonomous, and anything else is interactive. A hint of the wrong type is an error too:
 * reading `"true"` as false would silently make an unattended run wait for a human.
 */
export function resolveInteractionPolicy(context: RunContext = {}): RunInteractionPolicy {
  const parsed = runContextSchema().safeParse(context);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${keyOf(i.path)}: ${i.message}`).join('; ');
    throw new ArborError('POLICY_INVALID', `The run context is invalid (${problems}).`);
  }
  const ctx = parsed.data;
  if (ctx.interactionMode !== undefined) {
    const mode = ctx.interactionMode;
    if (!isInteractionMode(mode)) {
      throw new ArborError(
        'POLICY_INVALID',
        `Unknown interaction mode "${mode}"; expected one of ${INTERACTION_MODES.join(', ')}.`,
        { interactionMode: mode },
      );
    }
    return policyFor(mode, 'interactionMode');
  }
  if (ctx.nonInteractive === true) return policyFor('scheduled', 'nonInteractive');
  if (ctx.channelName === 'github') return policyFor('webhook', 'channelName');
  if (ctx.disableClarification === true) return policyFor('autonomous', 'disableClarification');
  return policyFor('interactive', 'default');
}

/** The key a problem of the run context is about. */
const keyOf = (path: readonly PropertyKey[]): string => path.map(String).join('.');

export function isInteractionMode(value: unknown): value is InteractionMode {
  return (INTERACTION_MODES as readonly unknown[]).includes(value);
}

const UNATTENDED_OPENING: Record<Exclude<InteractionMode, 'interactive'>, string> = {
  scheduled: 'This run was started on a schedule',
  webhook: 'This run was started by a GitHub event',
  autonomous: 'This run was started to work on its own',
};

/**
 * The rule for working without a human, shared by the guidance and the suppressed
 * clarification result. It never says "go ahead": an ambiguous high-risk step ends in BLOCKED.
 */
const UNATTENDED_RULE =
  'Use the context you have. Where a gap remains, make the smallest reversible assumption and list every material assumption in your final result. ' +
  'If the work is high-risk or irreversible and the decision it needs is not authorized, do not do that part: ' +
  'end with a result that starts with "BLOCKED:" and names the missing decision.';

const INTERACTIVE_GUIDANCE =
  'A human is available. Ask (ask_user_question) only for decisions you cannot settle from the context, ' +
  'and batch related questions. If asking is refused, include the open question in your final result.';

/**
 * A policy is frozen and made of its mode and source alone, so each of the few there are is made
 * once and every run that resolves to it shares it: a run (a root agent) carries no policy of
 * its own, closures and set included.
 */
const policies = new Map<string, RunInteractionPolicy>();

function policyFor(mode: InteractionMode, source: PolicySource): RunInteractionPolicy {
  const key = `${mode}:${source}`;
  let policy = policies.get(key);
  if (!policy) policies.set(key, (policy = createPolicy(mode, source)));
  return policy;
}

function createPolicy(mode: InteractionMode, source: PolicySource): RunInteractionPolicy {
  const unattended = mode !== 'interactive';
  // exit_plan_mode is hidden too: plan approval needs a human, and approving on the human's
  // behalf would let an unattended run lift its own restriction. An unattended run that starts
  // in plan mode stays there and ends with its plan as the result.
  const hidden: ReadonlySet<string> = unattended ? new Set([ASK_USER_QUESTION_TOOL, EXIT_PLAN_MODE_TOOL]) : new Set();
  const isToolVisible = (name: string): boolean => !hidden.has(name);
  const opening = unattended ? UNATTENDED_OPENING[mode] : '';
  const guidance = unattended
    ? `${opening}: no human will answer, and you cannot ask one. Never wait for a human response. ${UNATTENDED_RULE} ` +
      'In plan mode, your plan is your final result.'
    : INTERACTIVE_GUIDANCE;

  return Object.freeze({
    mode,
    unattended,
    source,
    isToolVisible,
    visibleTools<T extends string | { readonly name: string }>(tools: readonly T[]): T[] {
      return tools.filter((tool) => isToolVisible(typeof tool === 'string' ? tool : tool.name));
    },
    suppressedClarificationResult(question?: string): string {
      const why = unattended ? `${opening}, so no human can answer` : 'No human can answer right now';
      const asked = question !== undefined && question.trim() !== '' ? ` Unanswered question: ${JSON.stringify(question.trim())}.` : '';
      return `${why}: the question was not asked and no answer will come. Do not wait for one.${asked} ${UNATTENDED_RULE}`;
    },
    approvalEligibility({ isSubagent, subagents, humanPresent }: { isSubagent: boolean; subagents?: 'deny' | 'ask'; humanPresent?: boolean }): ApprovalEligibility {
      if (unattended) return 'deny';
      if (!isSubagent) return 'ask';
      return subagents === 'ask' && humanPresent === true ? 'ask' : 'deny';
    },
    systemPromptGuidance(): string {
      return guidance;
    },
  });
}
