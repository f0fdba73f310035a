import type { AgentDefinition } from '../definitions/types';
import type { Agent } from '../agents/agent';
import { Emitter } from '../events';
import { scopeRunsPart, workspaceFilesPart, workspaceToolRunsPart } from '../parts';
import type { FileOverlap, WriteGuardDeps, WriteScope, WriteSeam, WritesHost } from './writeScope';

/**
 * What the runtime holds of write scopes from the start: each agent's scope (set when it is
 * made, by the exact agent object), the overlaps' change event the Agents view listens to, and
 * the write guard, made with the scopes part the first time an agent writes, asks for a scope
 * or is shown with one.
 */
export class Writes implements WritesHost {
  private readonly scopes = new WeakMap<object, WriteScope>();
  private made: WriteSeam | undefined;
  private readonly changed = new Emitter<readonly string[]>();
  readonly onOverlapsChanged = this.changed.on;

  constructor(private readonly deps: WriteGuardDeps) {}

  get guard(): WriteSeam {
    return (this.made ??= new (scopeRunsPart().WriteGuard)(this.deps, this, kit(), (ids) => this.changed.fire(ids)));
  }

  scopeOf(agent: object): WriteScope | undefined {
    return this.scopes.get(agent);
  }

  /**
   * The scope a new agent gets: its parent's, unless its definition or its delegation asks for
   * one (narrowed into it). Asked before the agent is made: a glob a scope cannot hold throws.
   */
  scopeFor(parent: Agent | undefined, definition: AgentDefinition | undefined, requested: readonly string[] | undefined): WriteScope | undefined {
    return definition?.writeScope || requested ? this.guard.childScope(parent, definition, requested).scope : parent && this.scopes.get(parent);
  }

  set(agent: object, scope: WriteScope | undefined): void {
    if (scope) this.scopes.set(agent, scope);
  }

  overlapsOf(sessionId: string): readonly FileOverlap[] {
    return this.made?.overlapsOf(sessionId) ?? [];
  }
}

function kit() {
  const files = workspaceFilesPart();
  return { parseGlob: files.parseGlob, matcherCanTake: files.matcherCanTake, globMatcher: files.globMatcher, globIsMatch: files.globIsMatch, unifiedDiff: (relative: string, before: string | null, after: string) => workspaceToolRunsPart().unifiedDiff(relative, before, after) };
}
