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
 * ask the user), the run policy's guidance, and plan mode. Rebuilt for every model call, so a
 * plan approved mid-turn is reflected at once.
 */
export function systemPromptFor(base: string, agent: { readonly kind: AgentKind; readonly planMode: boolean }, policy: Pick<RunInteractionPolicy, 'systemPromptGuidance'>): string {
  const parts = [base];
  if (agent.kind !== 'root') parts.push(SUBAGENT_PROMPT);
  const guidance = policy.systemPromptGuidance();
  if (guidance) parts.push(guidance);
  if (agent.planMode) parts.push(PLAN_PROMPT);
  return parts.join('\n\n');
}
