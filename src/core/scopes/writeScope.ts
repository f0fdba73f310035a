/**
 * A write scope: the workspace files an agent may change, as globs. It is data on the agent,
 * set when the agent is made (from its definition's `scope:` and the delegation's `scope`
 * argument, narrowed into its parent's) and never changed after; Arbor's edit tools and an
 * external agent's file writes check it before anything is asked or written (SCOPE_VIOLATION).
 * Commands (run_command, an external agent's terminals) are not file-aware: a scope bounds them
 * only as far as the sandbox makes the scope's folders the only writable ones.
 */
export interface WriteScope {
  /**
   * The scope as alternatives: a path is in it when it matches every glob of one term. A term of
   * one glob is the common case; a glob that could not be shown to lie inside the parent's scope
   * is kept beside the parent's globs in one term, so the scope never widens.
   */
  readonly terms: readonly (readonly string[])[];
  /** The globs asked for at the level that set it (normalized), as a person wrote them. */
  readonly globs: readonly string[];
  /** Who set each level, outermost first: `definition "docs" (.arbor/agents/docs.md)`, `delegation by "lead"`. */
  readonly setBy: readonly string[];
}

/** What a delegation asks of the branch it starts, beside its task: the files it may change. */
export interface BranchScopeRequest {
  /** Workspace globs the child may change; absent: the parent's scope (or none) applies. */
  readonly scope?: readonly string[];
}

/** The scope of each agent that has one (by the exact agent object, like the registry). */
export class WriteScopes {
  private readonly byAgent = new WeakMap<object, WriteScope>();

  of(agent: object): WriteScope | undefined {
    return this.byAgent.get(agent);
  }

  set(agent: object, scope: WriteScope | undefined): void {
    if (scope) this.byAgent.set(agent, scope);
  }
}
