import type { AgentBounds, LimitKey } from './bounds';

/**
 * The limit that applies to an agent: the run's, or a definition's when that is tighter. `by`
 * names the definition when it is the definition's, so the message can say so.
 */
export function agentLimit(bounds: AgentBounds | undefined, key: LimitKey, runValue: number): { value: number; by?: string } {
  const own = bounds?.limits[key];
  return own !== undefined && own < runValue ? { value: own, by: bounds?.limitSources[key] } : { value: runValue };
}
