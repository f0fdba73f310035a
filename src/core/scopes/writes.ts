import { scopeRunsPart, workspaceFilesPart, workspaceToolRunsPart } from '../parts';
import type { WriteGuardDeps, WriteScope, WriteSeam, WritesHost } from './writeScope';

/**
 * What the runtime holds of write scopes from the start: each agent's scope (set when it is
 * made, by the exact agent object) and the write guard, made with the scopes part the first time an agent writes, asks for a scope
 * or is shown with one.
 */
export class Writes implements WritesHost {
  private readonly scopes = new WeakMap<object, WriteScope>();
  private made: WriteSeam | undefined;

  constructor(private readonly deps: WriteGuardDeps) {}

  get guard(): WriteSeam {
    return (this.made ??= new (scopeRunsPart().WriteGuard)(this.deps, this, { files: workspaceFilesPart, runs: workspaceToolRunsPart }));
  }

  scopeOf(agent: object): WriteScope | undefined {
    return this.scopes.get(agent);
  }

  set(agent: object, scope: WriteScope | undefined): void {
    if (scope) this.scopes.set(agent, scope);
  }

  /** The ⚠ its node shows while it shares a file with another live agent (none before any write was guarded). */
  overlapText(sessionId: string): string | undefined {
    return this.made?.overlapText(sessionId);
  }
}
