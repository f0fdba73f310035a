import type { RunInteractionPolicy } from '../interaction/policy';
import type { AgentKind } from '../sessions/types';

/** The runtime's default opening of every system prompt. */
export const BASE_PROMPT =
  'You are an agent running inside Arbor, in the user\'s editor. Work step by step with the tools you have. ' +
  'When you are done, answer with your final result as plain text and no tool calls.';
const PLAN_PROMPT =
  'You are in plan mode: only read-only tools are available. Investigate, then call exit_plan_mode with your plan to ask the user to approve it.';
const SUBAGENT_PROMPT =
  'You are a subagent working for another agent, not directly for the user. You cannot ask the user anything: ' +
  'if a decision is missing, make a minimal reversible assumption and say so, or put the open question in your final result.';

/**
 * An agent's system prompt: the base, then what its place in the tree means (a subagent cannot
 * ask the user), the run policy's guidance, and plan mode. Asked for every model call, so a
 * plan approved mid-turn is reflected at once. It is made of four inputs that take few values,
 * so the last prompts made are kept (PROMPTS) and a model call of an agent like the one before
 * joins nothing: a fan-out's thousand subagents share one prompt string.
 */
export function systemPromptFor(base: string, agent: { readonly kind: AgentKind; readonly planMode: boolean }, policy: Pick<RunInteractionPolicy, 'systemPromptGuidance'>): string {
  const subagent = agent.kind !== 'root';
  const guidance = policy.systemPromptGuidance();
  const plan = agent.planMode;
  for (const p of made) if (p.base === base && p.subagent === subagent && p.guidance === guidance && p.plan === plan) return p.text;
  const parts = [base];
  if (subagent) parts.push(SUBAGENT_PROMPT);
  if (guidance) parts.push(guidance);
  if (plan) parts.push(PLAN_PROMPT);
  const text = parts.join('\n\n');
  if (made.unshift({ base, subagent, guidance, plan, text }) > PROMPTS) made.pop();
  return text;
}

/** Prompts kept: a runtime has one base and a few policies, each with or without plan mode, for roots and subagents. */
const PROMPTS = 8;
const made: Array<{ base: string; subagent: boolean; guidance: string; plan: boolean; text: string }> = [];
