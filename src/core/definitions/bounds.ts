import { toolGlobMatcher } from './toolGlob';
import type { AgentDefinition, AgentLimits } from './types';

/**
 * What definitions allow an agent: the tool lists it must pass and the per-agent limits it runs
 * under. Bounds are inherited: an agent started by a bounded agent is bounded as its parent is
 * (with its own definition's added on top), so delegating never escapes a definition. A tool is
 * allowed only if every list allows it; a limit is the tightest of the run's and every
 * definition's. Bounds are made once per agent from immutable definitions: editing a file later
 * changes nothing for an agent already started.
 */
export interface ToolAllowList {
  /** The definition the list comes from, named in a refusal. */
  readonly definition: string;
  readonly file: string;
  readonly patterns: readonly string[];
  allows(tool: string): boolean;
}

export type LimitKey = keyof AgentLimits;

export interface AgentBounds {
  readonly toolLists: readonly ToolAllowList[];
  readonly limits: Readonly<AgentLimits>;
  /** The definition each limit comes from. */
  readonly limitSources: Readonly<Partial<Record<LimitKey, string>>>;
}

function allowList(def: AgentDefinition, patterns: readonly string[]): ToolAllowList {
  const matchers = patterns.map(toolGlobMatcher);
  return { definition: def.name, file: def.file, patterns, allows: (tool) => matchers.some((m) => m(tool)) };
}

/** The bounds of an agent started with `def` (if any) by an agent bounded by `parent` (if any). */
export function boundsFor(parent: AgentBounds | undefined, def: AgentDefinition | undefined): AgentBounds | undefined {
  if (!def || (!def.tools && !def.limits)) return parent;
  const toolLists = def.tools ? [...(parent?.toolLists ?? []), allowList(def, def.tools)] : (parent?.toolLists ?? []);
  const limits: AgentLimits = { ...parent?.limits };
  const limitSources: Partial<Record<LimitKey, string>> = { ...parent?.limitSources };
  for (const [key, value] of Object.entries(def.limits ?? {}) as Array<[LimitKey, number | undefined]>) {
    if (value === undefined) continue;
    const before = limits[key];
    if (before === undefined || value < before) {
      limits[key] = value;
      limitSources[key] = def.name;
    }
  }
  return { toolLists, limits, limitSources };
}

/** The first list that does not allow `tool`, if any. */
export function refusingList(bounds: AgentBounds | undefined, tool: string): ToolAllowList | undefined {
  return bounds?.toolLists.find((list) => !list.allows(tool));
}
