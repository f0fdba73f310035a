// The rows of the live agents in the Agents view, each built once per repaint. Pure (no 'vscode'
// import), so it is unit-tested in plain Node; agentsTree.ts turns a row into a TreeItem.
//
// Invariants:
// - A row holds what the view shows of an agent: its presentation, and what it holds under it
//   (live subagents, ended ones, the files it changed) with how that starts out expanded.
// - A repaint builds each row it looks at once (`refresh`), compares it with the row it
//   replaces, and that row is what the host reads next (`rowOf`): the host's getTreeItem builds
//   nothing a repaint built. Walking a subtree for its tokens and cost happens once per repaint.
// - Only a repaint replaces a row. Reading one (the host, a test) never changes what the next
//   repaint compares with, so no reader can make a change look shown.
// - Outside a repaint a row is built only for an agent that has none yet, or after a whole-tree
//   repaint dropped them all (`dropAll`): the host then reads the rows it shows, once each.
// - Rows are held weakly: an agent that left the registry takes its row with it.
import type { Agent, AgentRegistry } from '../../core/agents';
import { filesChangedText } from '../review/changedFileNode';
import { presentLiveAgent, type AgentPresentation, type LiveAgents, type OpenPrompts } from './agentPresentation';

/** Up to this many changed files (and no subagents) show expanded under their agent; more start collapsed. */
export const FILES_EXPANDED_UP_TO = 5;

/** What a row is built from, besides its agent. */
export interface RowSources {
  readonly agents: LiveAgents & Pick<AgentRegistry, 'liveChildCount'>;
  pending(): OpenPrompts;
  /** The ended subagents kept under the agent. */
  endedCount(agent: Agent): number;
  /** The files the agent changed, as listed under it. */
  filesCount(agent: Agent): number;
  /** Whether commands run sandboxed now ("running (sandboxed): npm test"). */
  commandsSandboxed?(): boolean;
  /** The ⚠ of the files it shares with another live agent (src/core/scopes), if any. */
  overlapText?(agent: Agent): string | undefined;
}

export interface AgentRow {
  readonly presentation: AgentPresentation;
  /** The presentation's description, with how many files the agent changed. */
  readonly description: string;
  /** Whether it has rows under it, and how they start out. */
  readonly expansion: 'none' | 'expanded' | 'collapsed';
}

/**
 * `agent`'s row now. A row with rows under it is not repainted for time (agentsTree.ts): it
 * shows the clock time its turn started, which stays true.
 */
export function buildRow(agent: Agent, sources: RowSources, now = Date.now()): AgentRow {
  const subagents = (sources.agents.isLive(agent) ? sources.agents.liveChildCount(agent) : 0) + sources.endedCount(agent);
  const files = sources.filesCount(agent);
  const presentation = presentLiveAgent(agent, sources.agents, sources.pending(), { now, time: subagents + files > 0 ? 'started' : 'elapsed', commandsSandboxed: sources.commandsSandboxed?.() });
  const overlap = sources.overlapText?.(agent);
  const description = files > 0 ? `${presentation.description} · ${filesChangedText(files)}` : presentation.description;
  return {
    presentation,
    description: overlap ? `${description} · ${overlap}` : description,
    expansion: subagents > 0 || (files > 0 && files <= FILES_EXPANDED_UP_TO) ? 'expanded' : files > 0 ? 'collapsed' : 'none',
  };
}

/** Everything a repaint would change of a row (the tooltip is built on hover). */
export function sameRow(a: AgentRow, b: AgentRow): boolean {
  return a.presentation.contextValue === b.presentation.contextValue && a.presentation.icon === b.presentation.icon && a.description === b.description && a.expansion === b.expansion;
}

/** The row of each agent as the view was last given it (see the invariants at the top of this file). */
export class AgentRows {
  private readonly rows = new WeakMap<Agent, { row: AgentRow; generation: number }>();
  private generation = 0;
  private built = 0;

  constructor(private readonly build: (agent: Agent) => AgentRow) {}

  /** How many rows were built: one per agent per repaint that looked at it, one per row the host reads after a whole-tree repaint. */
  get builds(): number {
    return this.built;
  }

  /** The row the view was given; built only when the agent has none since the last whole-tree repaint. */
  rowOf(agent: Agent): AgentRow {
    const held = this.rows.get(agent);
    return held && held.generation === this.generation ? held.row : this.store(agent);
  }

  /** Builds the agent's row afresh for a repaint; true when it differs from the row it replaces (or there was none). */
  refresh(agent: Agent): boolean {
    const before = this.rows.get(agent)?.row;
    const row = this.store(agent);
    return before === undefined || !sameRow(before, row);
  }

  /** A whole-tree repaint: every row is built again when the host next reads it. */
  dropAll(): void {
    this.generation++;
  }

  private store(agent: Agent): AgentRow {
    const row = this.build(agent);
    this.built++;
    this.rows.set(agent, { row, generation: this.generation });
    return row;
  }
}
