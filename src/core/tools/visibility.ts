import { EXIT_PLAN_MODE_TOOL, type RunInteractionPolicy } from '../interaction/policy';
import type { ToolDefinition } from './types';

/**
 * Whether a model may see (and call) a tool: the run's policy decides (no questions when nobody
 * can answer), plan mode narrows the list to read-only tools, and exit_plan_mode exists only in
 * plan mode. A call to a tool the model cannot see is answered as an unknown tool.
 */
export function isToolVisible(agent: { readonly planMode: boolean; readonly run: { readonly policy: RunInteractionPolicy } }, def: Pick<ToolDefinition<unknown>, 'name' | 'readOnly'>): boolean {
  if (agent.planMode && !def.readOnly) return false;
  if (def.name === EXIT_PLAN_MODE_TOOL && !agent.planMode) return false;
  return agent.run.policy.isToolVisible(def.name);
}
