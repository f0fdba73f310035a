import { ArborError } from '../errors';
import type { ModelProvider, ToolSpec } from '../models/types';
import type { AgentDefinitions } from './definitionSet';
import { boundsFor, refusingList, type AgentBounds } from './bounds';

export { toolGlobMatcher } from './toolGlob';
import type { AgentDefinition } from './types';

/**
 * How the runtime applies definitions to the agents it makes: what a new agent inherits and
 * adds (bounds, model), what it is offered (tools outside its lists are not), what a call to a
 * tool outside them gets (TOOL_NOT_ALLOWED, naming the definition), its instructions, and the
 * list of definitions the delegation tools describe to the model.
 */

/** Resolves a definition's `model` to a provider; undefined when that model is not available here. */
export type ModelResolver = (id: string) => ModelProvider | undefined;

export interface DefinedAgentSpec {
  definition?: AgentDefinition;
  bounds?: AgentBounds;
  model?: ModelProvider;
}

/**
 * What an agent made by `parent` (none for a root) with `definition` starts with. A child keeps
 * its parent's bounds and model unless its own definition narrows the one or names the other. A
 * model the definition names that is not available is an error, before anything is made.
 */
export function definedAgentSpec(parent: { readonly bounds?: AgentBounds; readonly model?: ModelProvider } | undefined, definition: AgentDefinition | undefined, resolveModel: ModelResolver | undefined): DefinedAgentSpec {
  const bounds = boundsFor(parent?.bounds, definition);
  let model = parent?.model;
  if (definition?.model !== undefined) {
    model = resolveModel?.(definition.model);
    if (!model) {
      throw new ArborError('MODEL_UNAVAILABLE', `The agent definition "${definition.name}" (${definition.file}) asks for the model "${definition.model}", which is not available here. Change its "model:" field, or remove it to use the run's model.`, { definition: definition.name, model: definition.model });
    }
  }
  return { ...(definition ? { definition } : {}), ...(bounds ? { bounds } : {}), ...(model ? { model } : {}) };
}

/** Why `tool` may not be called by an agent with these bounds, or undefined when it may. */
export function toolRefusal(bounds: AgentBounds | undefined, tool: string): ArborError | undefined {
  const list = refusingList(bounds, tool);
  if (!list) return undefined;
  return new ArborError(
    'TOOL_NOT_ALLOWED',
    `The tool "${tool}" is not allowed for the agent definition "${list.definition}" (${list.file}); its tools are: ${list.patterns.join(', ') || 'none'}.`,
    { tool, definition: list.definition },
  );
}

/** The specs an agent with these bounds is offered, made once per list of specs and bounds. */
const narrowed = new WeakMap<readonly ToolSpec[], WeakMap<AgentBounds, readonly ToolSpec[]>>();
export function boundedSpecs(specs: readonly ToolSpec[], bounds: AgentBounds | undefined): readonly ToolSpec[] {
  if (!bounds || bounds.toolLists.length === 0) return specs;
  let byBounds = narrowed.get(specs);
  if (!byBounds) narrowed.set(specs, (byBounds = new WeakMap()));
  let list = byBounds.get(bounds);
  if (!list) byBounds.set(bounds, (list = specs.filter((s) => !refusingList(bounds, s.name))));
  return list;
}

/** The tools whose descriptions list the definitions, so a model can choose one by name. */
export const DELEGATION_TOOLS: ReadonlySet<string> = new Set(['delegate_task', 'start_subagent', 'start_external_agent']);
const DESCRIPTION_IN_LIST = 200;

/** The delegation tools' specs with the definitions listed; the rest as they are. Made once per list of specs and version of the set. */
const listed = new WeakMap<readonly ToolSpec[], { version: number; specs: readonly ToolSpec[] }>();
export function withDefinitionsListed(specs: readonly ToolSpec[], definitions: AgentDefinitions): readonly ToolSpec[] {
  // Asked at every model call: the list is made only when the definitions changed.
  if (definitions.size === 0) return specs;
  const made = listed.get(specs);
  if (made && made.version === definitions.version) return made.specs;
  const defs = definitions.list();
  const list = defs.map((d) => `"${d.name}"${d.kind ? ` (${d.kind === 'one-shot' ? 'best started with delegate_task' : 'best started with start_subagent'})` : ''}: ${short(d.description)}`).join('; ');
  const text = ` Pass agent: "<name>" to start one of these agent definitions (its instructions, tools and limits apply): ${list}.`;
  // An external agent brings its own tools and model: only a definition's instructions and name apply to it.
  const external = ` Pass definition: "<name>" to give it one of these agent definitions' instructions (only those without tools, limits or model): ${list}.`;
  const out = specs.map((s) => (DELEGATION_TOOLS.has(s.name) ? { ...s, description: s.description + (s.name === 'start_external_agent' ? external : text) } : s));
  listed.set(specs, { version: definitions.version, specs: out });
  return out;
}

function short(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= DESCRIPTION_IN_LIST ? flat : `${flat.slice(0, DESCRIPTION_IN_LIST - 1)}…`;
}

/** An agent's system prompt with its definition's instructions after Arbor's own (which they cannot replace). */
const prompts = new WeakMap<AgentDefinition, { base: string; text: string }>();
export function withDefinitionPrompt(base: string, definition: AgentDefinition | undefined): string {
  if (!definition) return base;
  const made = prompts.get(definition);
  if (made?.base === base) return made.text;
  const text = `${base}\n\nYou are the agent "${definition.name}", defined in ${definition.file}. Its instructions:\n\n${definition.prompt}`;
  prompts.set(definition, { base, text });
  return text;
}
