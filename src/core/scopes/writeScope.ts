import type { Agent } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';
import type { AgentDefinition } from '../definitions/types';
import type { UserInteractionService } from '../interaction/userInteraction';
import type { ChangeSets } from '../workspace/changeSets';
import type { WorkspacePath } from '../workspace/port';
import type { OnRuntimeEvents } from '../agents/runtimeEvent';
import type { OnProblem } from '../problems';
import type { SliceRequest } from '../budgets/sliceRequest';

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

/** One write an agent is about to make: the file, the text it was made from and the text it leaves. */
export interface WriteAttempt {
  readonly agent: Agent;
  readonly file: WorkspacePath;
  readonly before: string | null;
  readonly after: string;
  readonly signal: AbortSignal;
}

/**
 * The write guard as the tools that write use it (writeGuard.ts implements it): scope, another
 * agent's file, the per-file queue, and the scope a delegation gives its child.
 */
export interface WriteSeam {
  childScope(parent: Agent | undefined, definition: AgentDefinition | undefined, requested: readonly string[] | undefined): { scope: WriteScope | undefined; narrowed: readonly string[] };
  checkScope(agent: Agent, file: WorkspacePath): void;
  consentBefore(attempt: WriteAttempt): Promise<ReadonlySet<Agent>>;
  apply(attempt: WriteAttempt, consented: ReadonlySet<Agent>, write: () => Promise<void>): Promise<void>;
  /** What a delegation's tool result says of the child's scope: the effective scope, and what was narrowed. */
  scopeNote(parent: Agent, definition: AgentDefinition | undefined, requested: readonly string[] | undefined): ScopeNote;
  overlapsOf(sessionId: string): readonly FileOverlap[];
  /**
   * The folders a command of the agent's may write under the sandbox (`folder` is its run's real
   * folder): for a scoped agent the existing folders its scope names, else `folder` itself.
   */
  writableFolders(agent: Agent, folder: string): string[];
  /** The ⚠ an agent's row shows while it shares a file with another live agent: `⚠ src/a.ts (also "lead")`. */
  overlapText(sessionId: string): string | undefined;
  /** Tooltip lines (Markdown, text escaped with `escape`, led by a blank line; '' for none): the agent's scope and the files it shares. */
  envelopeLines(agent: Agent, escape: (text: string) => string): string;
}

/**
 * What the runtime holds at start (writes.ts): each agent's scope and the guard, made with its part on first use, so a window whose agents never write loads
 * none of it.
 */
export interface WritesHost {
  readonly guard: WriteSeam;
  scopeOf(agent: object): WriteScope | undefined;
  overlapText(sessionId: string): string | undefined;
}

/** What the write guard is made with. */
export interface WriteGuardDeps {
  readonly agents: AgentRegistry;
  readonly changes: ChangeSets;
  readonly interaction: Pick<UserInteractionService, 'ask'>;
  readonly onEvents: OnRuntimeEvents;
  /** The human's "Stop the other": stops that agent's current turn as its node's Stop does (refused for a one-shot agent, which is cancelled instead). */
  readonly stop: (agent: Agent) => unknown;
  readonly onProblem: OnProblem;
  /** Puts an agent's change on the runtime's one event channel (the Agents view repaints its node). */
  agentChanged(agent: Agent, change: { type: 'envelope' }): void;
}

/**
 * Files two live agents both hold: one changed a file that the other had changed (a change
 * record not yet kept or undone) or that lies in the other's declared scope, because the human
 * let it. Both agents' nodes show the file with a ⚠ while the overlap lasts (fileOverlaps.ts).
 */
export interface FileOverlap {
  /** The workspace-relative path. */
  readonly path: string;
  /** The agent that changed the file second, and its label. */
  readonly writer: string;
  readonly writerLabel: string;
  /** The agent that held it first, its label, and how it held it. */
  readonly other: string;
  readonly otherLabel: string;
  readonly otherHeld: 'changed' | 'scope';
}

/**
 * What the scopes part takes from the other parts (the workspace files' globs, the workspace
 * tools' diffs), handed to it by the write guard: a part never loads another part itself.
 */
export interface GlobKit {
  parseGlob(glob: string): unknown;
  matcherCanTake(glob: string): boolean;
  globMatcher(glob: string): (relative: string) => boolean;
  globIsMatch(text: string, glob: string, options: { dot: boolean; windows: boolean }): boolean;
}

export interface ScopeKit extends GlobKit {
  unifiedDiff(relative: string, before: string | null, after: string): string;
}

/** The write guard's state and services, as the scopes part reads them. */
export interface GuardState {
  readonly deps: WriteGuardDeps;
  readonly overlaps: { add(overlap: FileOverlap): void };
  /** The paths a session's change record holds now (files it changed, not yet kept or undone). */
  heldPaths(sessionId: string): Promise<ReadonlySet<string>>;
  readonly kit: ScopeKit;
  scopeOf(agent: object): WriteScope | undefined;
}

/** A delegation's tool result on its child's scope: fields for a JSON result, a sentence to add to a one-shot's answer when it was narrowed. */
export interface ScopeNote {
  readonly fields?: Record<string, unknown>;
  readonly text?: string;
}

/** What a delegation asks of the branch it starts, beside its task: the files it may change, and its own slice of the run's budget. */
export interface BranchScopeRequest {
  /** Workspace globs the child may change; absent: the parent's scope (or none) applies. */
  readonly scope?: readonly string[];
  /** The child's own slice of the run's budget (budgets/slices.ts); absent: it shares its parent's. */
  readonly budget?: SliceRequest;
}
