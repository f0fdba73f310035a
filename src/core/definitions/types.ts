import type { SliceRequest } from '../budgets/sliceRequest';

/**
 * An agent definition: a Markdown file whose YAML frontmatter names an agent, says when to use it,
 * and bounds it (tools, limits, model), and whose body is its instructions. Definitions are data
 * from disk and so a trust boundary: they can only narrow what an agent may do (fewer tools,
 * tighter per-agent limits), never widen the run's interaction mode or approval rules.
 */

/** Where a definition file was found; the first two are the workspace's, the last the user's. */
export type DefinitionScope = 'workspace' | 'user';

/** The file format a definition was read from: Arbor's own, Claude Code's, or Copilot's. */
export type DefinitionFormat = 'arbor' | 'claude' | 'copilot';

/** The per-agent limits a definition may set (the keys of `arbor.limits` that bound one agent). */
export interface AgentLimits {
  maxTurns?: number;
  maxStepsPerTurn?: number;
  maxLiveChildren?: number;
  maxDelegationDepth?: number;
}

export interface AgentDefinition {
  /** Unique among the definitions in use, compared without case. */
  readonly name: string;
  /** When to use it: the model reads this to choose a definition. */
  readonly description: string;
  /** A model id; undefined means the run's model (`inherit`). */
  readonly model?: string;
  /** Tool names or globs the agent may use; undefined means every tool the run offers. */
  readonly tools?: readonly string[];
  readonly limits?: AgentLimits;
  /** How it is started when the caller does not say (Run Agent... and the tools' descriptions). */
  readonly kind?: 'one-shot' | 'continuable';
  /** Its `scope:`: workspace globs the agent may change (narrowed into its parent's); undefined: no scope of its own. */
  readonly writeScope?: readonly string[];
  /** Its own slice of the run's budget when started as a subagent; the caller's `budget` and this, the tighter per measure. */
  readonly budget?: SliceRequest;
  /** The file's body: the agent's instructions, added to Arbor's own system prompt. */
  readonly prompt: string;
  readonly file: string;
  readonly scope: DefinitionScope;
  readonly format: DefinitionFormat;
}

/** One file read: its definition, or why it was refused (whole), and what was left out of it. */
export type DefinitionFileResult =
  | { readonly ok: true; readonly definition: AgentDefinition; readonly notes: readonly string[] }
  | { readonly ok: false; readonly file: string; readonly message: string; readonly line?: number; readonly notes: readonly string[] };
