import { ArborError } from '../errors';
import type { AgentDefinition } from './types';

/**
 * The definitions in use now. An agent keeps the definition it was started with (the object,
 * which never changes): replacing the set applies to agents started afterwards, never to one
 * mid-turn.
 */
export class AgentDefinitions {
  private byName = new Map<string, AgentDefinition>();
  private changes = 0;

  replace(definitions: readonly AgentDefinition[]): void {
    this.byName = new Map(definitions.map((d) => [d.name.toLowerCase(), d]));
    this.changes++;
  }

  /** Counts replacements: text made from the set at another count is stale. */
  get version(): number {
    return this.changes;
  }

  /** How many there are (asked at every model call, so it makes no list). */
  get size(): number {
    return this.byName.size;
  }

  list(): readonly AgentDefinition[] {
    return [...this.byName.values()];
  }

  find(name: string): AgentDefinition | undefined {
    return this.byName.get(name.trim().toLowerCase());
  }

  /** The definition of that name, or DEFINITION_UNKNOWN naming those there are. */
  get(name: string): AgentDefinition {
    const found = this.find(name);
    if (found) return found;
    const names = this.list().map((d) => d.name);
    throw new ArborError('DEFINITION_UNKNOWN', `There is no agent definition named "${name}". ${names.length ? `Definitions: ${names.join(', ')}.` : 'No definitions are loaded (files in .arbor/agents/*.md define them).'}`, { name });
  }
}
