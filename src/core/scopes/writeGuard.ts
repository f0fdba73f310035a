import type { Agent } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';
import type { RuntimeEvent } from '../agents/runtimeEvent';
import type { AgentDefinition } from '../definitions/types';
import type { Disposable } from '../events';
import type { UserInteractionService } from '../interaction/userInteraction';
import { scopeRunsPart, workspaceFilesPart, workspaceToolRunsPart } from '../parts';
import type { OnProblem } from '../problems';
import type { ChangeSets } from '../workspace/changeSets';
import type { WorkspacePath } from '../workspace/port';
import { FileOverlaps } from './fileOverlaps';
import { FileQueue } from './fileQueue';
import { WriteScopes, type GuardState, type ScopeKit, type WriteAttempt, type WriteScope, type WriteSeam } from './writeScope';

export type { WriteAttempt };

/**
 * The seam every write of an agent's passes (Arbor's edit tools, an external agent's
 * fs/write_text_file), beside the approval seam: the agent's write scope (SCOPE_VIOLATION, at
 * once, never asked), another live agent that holds the file (the human asked, or
 * FILE_HELD_BY_OTHER_AGENT when nobody can be asked), and the per-file queue the write itself
 * runs in. What it does beyond the state kept here is the scopes part (scopeRuns.ts), loaded
 * only when an agent has a scope or another agent is live.
 */
export interface WriteGuardDeps {
  readonly agents: AgentRegistry;
  readonly changes: ChangeSets;
  readonly interaction: Pick<UserInteractionService, 'ask'>;
  readonly onEvent: (listener: (event: RuntimeEvent) => void) => Disposable;
  /** The human's "Stop the other": stops that agent's current turn as its node's Stop does. */
  readonly stop: (agent: Agent) => void;
  readonly onProblem: OnProblem;
}

export class WriteGuard implements WriteSeam, GuardState {
  readonly scopes = new WriteScopes();
  readonly overlaps: FileOverlaps;
  readonly queue = new FileQueue();

  constructor(readonly deps: WriteGuardDeps) {
    this.overlaps = new FileOverlaps(deps.onProblem);
    deps.onEvent((event) => {
      if (event.type === 'agent_removed') this.overlaps.agentLeft(event.agent.id);
    });
    deps.changes.onDidChange((sessionId) => {
      if (this.overlaps.of(sessionId).length === 0) return;
      deps.changes.heldPaths(sessionId).then((held) => this.overlaps.recordChanged(sessionId, held), (err: unknown) => deps.onProblem('Arbor: could not read a change record', err));
    });
  }

  /** The globs and diffs the scopes part uses, from the parts that hold them (loaded on first use). */
  get kit(): ScopeKit {
    const files = workspaceFilesPart();
    return { parseGlob: files.parseGlob, matcherCanTake: files.matcherCanTake, globMatcher: files.globMatcher, globIsMatch: files.globIsMatch, unifiedDiff: (...a) => workspaceToolRunsPart().unifiedDiff(...a) };
  }

  scopeOf(agent: object): WriteScope | undefined {
    return this.scopes.of(agent);
  }

  /**
   * The scope of an agent made with `definition` (its `scope:`) and asked for `requested` by
   * `parent` (none for a root): each narrowed into what is above it. `narrowed` lists the
   * requested globs that were not inside the parent's scope. A glob a scope cannot hold is
   * refused (TOOL_ARGUMENTS_INVALID) before anything is made.
   */
  childScope(parent: Agent | undefined, definition: AgentDefinition | undefined, requested: readonly string[] | undefined): { scope: WriteScope | undefined; narrowed: readonly string[] } {
    const above = parent ? this.scopes.of(parent) : undefined;
    if (!definition?.writeScope && requested === undefined) return { scope: above, narrowed: [] };
    const part = scopeRunsPart();
    const kit = this.kit;
    const byDefinition = part.narrowScope(kit, above, definition?.writeScope, `definition "${definition?.name ?? ''}" (${definition?.file ?? ''})`);
    const byRequest = part.narrowScope(kit, byDefinition.scope, requested, parent ? `delegation by "${parent.label}" (${parent.id})` : 'the run');
    return { scope: byRequest.scope, narrowed: [...byDefinition.narrowed, ...byRequest.narrowed] };
  }

  /** SCOPE_VIOLATION when the file is outside the agent's scope (thrown at once: nothing is asked). */
  checkScope(agent: Agent, file: WorkspacePath): void {
    const scope = this.scopes.of(agent);
    if (scope) scopeRunsPart().checkInScope(this.kit, agent, scope, file.relative);
  }

  /**
   * Before the approval is asked: another live agent that holds the file. Resolves the agents the
   * human let this write past (asked once here), or throws FILE_HELD_BY_OTHER_AGENT.
   */
  consentBefore(attempt: WriteAttempt): Promise<ReadonlySet<Agent>> {
    if (this.deps.agents.size <= 1) return Promise.resolve(new Set());
    return scopeRunsPart().consentToHolders(this, attempt, new Set());
  }

  /**
   * Runs `write` in the file's queue, after checking again, right before it, who holds the file
   * now (an agent that took it since `consentBefore` is asked about, or refused, then); the
   * overlaps the human let through are recorded once the write is done.
   */
  apply(attempt: WriteAttempt, consented: ReadonlySet<Agent>, write: () => Promise<void>): Promise<void> {
    return this.queue.run(attempt.file.absolute, async () => {
      attempt.signal.throwIfAborted();
      if (this.deps.agents.size <= 1) return write();
      return scopeRunsPart().writeChecked(this, attempt, consented, write);
    });
  }
}
