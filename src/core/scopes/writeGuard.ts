import type { Agent } from '../agents/agent';
import type { AgentDefinition } from '../definitions/types';
import type { WorkspacePath } from '../workspace/port';
import { FileOverlaps } from './fileOverlaps';
import { FileQueue } from './fileQueue';
import { checkInScope, consentToHolders, writeChecked } from './heldFiles';
import { describeScope, narrowScope, scopeFolders } from './scopeGlobs';
import type { FileOverlap, GlobKit, GuardState, ScopeKit, ScopeNote, WriteAttempt, WriteGuardDeps, WriteScope, WriteSeam } from './writeScope';

/**
 * The seam every write of an agent's passes (Arbor's edit tools, an external agent's
 * fs/write_text_file), beside the approval seam: the agent's write scope (SCOPE_VIOLATION, at
 * once, never asked), another live agent that holds the file (the human asked, or
 * FILE_HELD_BY_OTHER_AGENT when nobody can be asked: heldFiles.ts), and the per-file queue the
 * write itself runs in. Part of the scopes part: the runtime makes it on first use (writes.ts),
 * and the scopes of agents made before stay where they are (the runtime's start-up state).
 */
export class WriteGuard implements WriteSeam, GuardState {
  readonly overlaps: FileOverlaps;
  readonly queue = new FileQueue();
  /** The globs and diffs of the parts that hold them. */
  readonly kit: ScopeKit;

  constructor(
    readonly deps: WriteGuardDeps,
    private readonly scopes: { scopeOf(agent: object): WriteScope | undefined },
    parts: { files: () => GlobKit; runs: () => Pick<ScopeKit, 'unifiedDiff'> },
  ) {
    // Each agent whose shared files changed is repainted through the runtime's event channel.
    this.overlaps = new FileOverlaps((ids) => {
      for (const id of ids) {
        const agent = deps.agents.get(id);
        if (agent) deps.agentChanged(agent, { type: 'envelope' });
      }
    });
    // The workspace files' part (picomatch) is loaded by the first glob, not by the guard.
    this.kit = {
      parseGlob: (g) => parts.files().parseGlob(g),
      matcherCanTake: (g) => parts.files().matcherCanTake(g),
      globMatcher: (g) => parts.files().globMatcher(g),
      globIsMatch: (t, g, o) => parts.files().globIsMatch(t, g, o),
      unifiedDiff: (...args) => parts.runs().unifiedDiff(...args),
    };
    deps.onEvents(['agent_removed'], (event) => this.overlaps.agentLeft(event.agent.id));
    deps.changes.onDidChange((sessionId) => {
      this.held.delete(sessionId);
      if (this.overlaps.of(sessionId).length === 0) return;
      this.heldPaths(sessionId).then((held) => this.overlaps.recordChanged(sessionId, held), (err: unknown) => deps.onProblem('Arbor: could not read a change record', err));
    });
  }

  /** Per session, the paths its change record holds, read once after each change of it. */
  private readonly held = new Map<string, Promise<ReadonlySet<string>>>();

  heldPaths(sessionId: string): Promise<ReadonlySet<string>> {
    let paths = this.held.get(sessionId);
    if (!paths) {
      paths = this.deps.changes.list(sessionId).then((files) => new Set(files.map((f) => f.path)));
      this.held.set(sessionId, paths);
      // A record that could not be read is read again next time.
      void paths.catch(() => this.held.delete(sessionId));
    }
    return paths;
  }

  scopeOf(agent: object): WriteScope | undefined {
    return this.scopes.scopeOf(agent);
  }

  overlapsOf(sessionId: string): readonly FileOverlap[] {
    return this.overlaps.of(sessionId);
  }

  /**
   * The scope of an agent made with `definition` (its `scope:`) and asked for `requested` by
   * `parent` (none for a root): each narrowed into what is above it. `narrowed` lists the
   * requested globs that were not inside the parent's scope. A glob a scope cannot hold is
   * refused (TOOL_ARGUMENTS_INVALID) before anything is made.
   */
  childScope(parent: Agent | undefined, definition: AgentDefinition | undefined, requested: readonly string[] | undefined): { scope: WriteScope | undefined; narrowed: readonly string[] } {
    const above = parent ? this.scopeOf(parent) : undefined;
    // Most agents have no scope: nothing to narrow, and no glob loaded.
    if (!definition?.writeScope && !requested) return { scope: above, narrowed: [] };
    const byDefinition = narrowScope(this.kit, above, definition?.writeScope, `definition "${definition?.name ?? ''}" (${definition?.file ?? ''})`);
    const byRequest = narrowScope(this.kit, byDefinition.scope, requested, parent ? `delegation by "${parent.label}" (${parent.id})` : 'the run');
    return { scope: byRequest.scope, narrowed: [...byDefinition.narrowed, ...byRequest.narrowed] };
  }

  scopeNote(parent: Agent, definition: AgentDefinition | undefined, requested: readonly string[] | undefined): ScopeNote {
    const { scope, narrowed } = this.childScope(parent, definition, requested);
    if (!scope) return {};
    const effective = scope.terms.map((t) => t.join(' and '));
    if (narrowed.length === 0) return { fields: { scope: effective } };
    const why = `Not inside your own scope, so narrowed into it: ${narrowed.join(', ')}.`;
    return { fields: { scope: effective, scope_narrowed: why }, text: `\n\n[Arbor] Its scope: ${effective.join(', ')}. ${why}` };
  }

  /** SCOPE_VIOLATION when the file is outside the agent's scope (thrown at once: nothing is asked). */
  checkScope(agent: Agent, file: WorkspacePath): void {
    const scope = this.scopeOf(agent);
    if (scope) checkInScope(this.kit, agent, scope, file.relative);
  }

  /**
   * Before the approval is asked: another live agent that holds the file. Resolves the agents the
   * human let this write past (asked once here), or throws FILE_HELD_BY_OTHER_AGENT.
   */
  consentBefore(attempt: WriteAttempt): Promise<ReadonlySet<Agent>> {
    if (this.deps.agents.size <= 1) return Promise.resolve(new Set());
    return consentToHolders(this, attempt, new Set());
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
      return writeChecked(this, attempt, consented, write);
    });
  }

  overlapText(sessionId: string): string | undefined {
    const all = this.overlaps.of(sessionId);
    if (all.length === 0) return undefined;
    const [first] = all;
    return `⚠ ${first.path} (also "${first.writer === sessionId ? first.otherLabel : first.writerLabel}")${all.length > 1 ? ` +${all.length - 1}` : ''}`;
  }

  writableFolders(agent: Agent, folder: string): string[] {
    const scope = this.scopeOf(agent);
    return scope && !agent.run.workspace ? scopeFolders(scope, folder) : [folder];
  }

  envelopeLines(agent: Agent, escape: (text: string) => string): string {
    const lines: string[] = [];
    const scope = this.scopeOf(agent);
    if (scope) lines.push(`- May change: ${escape(describeScope(scope))} (scope set by ${escape(scope.setBy[scope.setBy.length - 1] ?? 'its definition')}; commands are not file-aware)`);
    for (const o of this.overlaps.of(agent.id)) {
      const mine = o.writer === agent.id;
      const how = mine ? (o.otherHeld === 'changed' ? 'had changed it' : 'has it in its scope') : 'changed it after this agent';
      lines.push(`- ⚠ ${escape(o.path)}: "${escape(mine ? o.otherLabel : o.writerLabel)}" ${how}; Keep or Undo of either change ends this`);
    }
    return lines.length ? `\n\n${lines.join('\n')}` : '';
  }
}
