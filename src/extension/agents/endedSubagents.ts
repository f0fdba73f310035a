// The subagents that ended, kept under their parent in the Agents view so that a finished branch
// does not vanish while the user reads it. Pure (no 'vscode' import), unit-tested in plain Node;
// agentsTree.ts shows the records as dimmed rows.
//
// Invariants:
// - A record is small and holds nothing of the agent: its id, name, kind, how it ended and what
//   it used. Its conversation stays in its session (a click opens that, read-only).
// - A record lives only while its parent is live: when the parent leaves the registry, its
//   records go with it (the parent may itself become a record under its own parent).
// - A subagent that comes back (a settled continuable a message resumes) loses its record: one
//   agent is never shown twice.
// - At most MAX_ENDED_PER_PARENT records per parent, the oldest dropped first, so a long-lived
//   root that delegates thousands of one-shot tasks keeps a bounded list.
import { describeTurnEnd, type Agent, type RuntimeEvent, type TurnOutcome } from '../../core/agents';

/** How many ended subagents a parent keeps, the most recent ones. */
export const MAX_ENDED_PER_PARENT = 50;

/** How a subagent ended, as its row says it. */
export type EndedHow = 'done' | 'failed' | 'stopped' | 'cancelled' | 'blocked' | 'stopped at a run limit' | 'paused' | 'interrupted' | 'ended';

/** A row of the Agents view for a subagent that has ended. */
export interface EndedSubagent {
  readonly type: 'ended-subagent';
  /** The ended agent's session id. */
  readonly id: string;
  readonly label: string;
  readonly kind: Agent['kind'];
  readonly how: EndedHow;
  /** Its own tokens (in and out). */
  readonly tokens: number;
  /** Its own cost (0 when its model had no price). */
  readonly cost: number;
  /** Where it stood among its siblings, so its row stays where the live one was. */
  readonly creationOrder: number;
}

/** How `agent` ended, read when it leaves the registry. */
export function endedHow(agent: Agent): EndedHow {
  // A turn still in flight was cut short by the end itself (End, or its holder's turn ending).
  if (agent.status === 'running') return agent.kind === 'one-shot' ? 'cancelled' : 'ended';
  const end = agent.lastTurnEnd;
  if (!end) return agent.kind === 'one-shot' ? 'cancelled' : 'ended';
  return ENDED_HOW[describeTurnEnd(end).outcome];
}

/** The words of an ended row for each outcome (`ended:<how>:<kind>` is the row's state string in package.json). */
const ENDED_HOW: Readonly<Record<TurnOutcome, EndedHow>> = Object.freeze({
  completed: 'done',
  stopped: 'stopped',
  cancelled: 'cancelled',
  ended: 'ended',
  limit: 'stopped at a run limit',
  // A turn a hold ended (a spent budget, a runaway guard) waited for a raise or a message.
  paused: 'paused',
  blocked: 'blocked',
  failed: 'failed',
  interrupted: 'interrupted',
});

const HOWS: ReadonlySet<string> = new Set<EndedHow>([...Object.values(ENDED_HOW), 'cancelled', 'ended']);

/** Whether `how` is the word of an ended row (a record read back from disk is checked with it). */
export function isEndedHow(how: string): how is EndedHow {
  return HOWS.has(how);
}

/** Who the records belong to: the registry's view of parents. */
export interface EndedSubagentsHost {
  isLive(agent: Agent): boolean;
}

/**
 * The ended subagents of each live parent. Feed it the runtime's events (`observe`); it says
 * which parents' lists changed through `onChanged` (their rows, and so their children, need a
 * repaint).
 */
export class EndedSubagents {
  private readonly byParent = new Map<Agent, EndedSubagent[]>();
  private readonly parents = new WeakMap<EndedSubagent, Agent>();
  private enabled: boolean;

  constructor(
    private readonly host: EndedSubagentsHost,
    private readonly onChanged: (parent: Agent) => void,
    enabled = true,
  ) {
    this.enabled = enabled;
  }

  observe(e: RuntimeEvent): void {
    if (e.type === 'agent_removed') {
      // Its own ended subagents go with it.
      this.byParent.delete(e.agent);
      if (this.enabled && e.parent && e.agent.kind !== 'root' && this.host.isLive(e.parent)) this.record(e.parent, e.agent);
    } else if (e.type === 'agent_added') {
      this.forgetId(e.agent.id);
    }
  }

  /** The ended subagents of `parent`, oldest first. */
  of(parent: Agent): readonly EndedSubagent[] {
    return this.byParent.get(parent) ?? [];
  }

  count(parent: Agent): number {
    return this.byParent.get(parent)?.length ?? 0;
  }

  /** The live parent a record is kept under, while it is kept. */
  parentOf(node: EndedSubagent): Agent | undefined {
    const parent = this.parents.get(node);
    return parent && this.byParent.get(parent)?.includes(node) ? parent : undefined;
  }

  /** The live parent the ended subagent with this session id is kept under, if it is kept. */
  parentOfId(id: string): Agent | undefined {
    for (const [parent, list] of this.byParent) if (list.some((n) => n.id === id)) return parent;
    return undefined;
  }

  /** Forgets the ended subagents of `parent`, or of every parent; returns how many were forgotten. */
  clear(parent?: Agent): number {
    const parents = parent ? (this.byParent.has(parent) ? [parent] : []) : [...this.byParent.keys()];
    let forgotten = 0;
    for (const p of parents) {
      forgotten += this.count(p);
      this.byParent.delete(p);
      this.onChanged(p);
    }
    return forgotten;
  }

  /**
   * Puts back the records a live parent had when the window went away (restore): the same rows
   * under the restored parent, its live children's ids left out. Nothing is kept while turned off.
   */
  restore(parent: Agent, rows: readonly Omit<EndedSubagent, 'type'>[]): void {
    if (!this.enabled || rows.length === 0 || !this.host.isLive(parent)) return;
    const list = rows.slice(-MAX_ENDED_PER_PARENT).map((row): EndedSubagent => ({ type: 'ended-subagent', id: row.id, label: row.label, kind: row.kind, how: row.how, tokens: row.tokens, cost: row.cost, creationOrder: row.creationOrder }));
    for (const node of list) this.parents.set(node, parent);
    this.byParent.set(parent, list);
    this.onChanged(parent);
  }

  /** Turned off, nothing is kept (and what was is forgotten); turned on, subagents that end from now on are. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    if (!enabled) this.clear();
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  private record(parent: Agent, agent: Agent): void {
    const node: EndedSubagent = {
      type: 'ended-subagent',
      id: agent.id,
      label: agent.label,
      kind: agent.kind,
      how: endedHow(agent),
      tokens: agent.usage.inputTokens + agent.usage.outputTokens,
      cost: agent.run.budget.costOf(agent.id),
      creationOrder: agent.creationOrder,
    };
    const list = (this.byParent.get(parent) ?? []).filter((n) => n.id !== agent.id);
    list.push(node);
    if (list.length > MAX_ENDED_PER_PARENT) list.splice(0, list.length - MAX_ENDED_PER_PARENT);
    this.byParent.set(parent, list);
    this.parents.set(node, parent);
    this.onChanged(parent);
  }

  private forgetId(id: string): void {
    for (const [parent, list] of this.byParent) {
      const kept = list.filter((n) => n.id !== id);
      if (kept.length === list.length) continue;
      if (kept.length === 0) this.byParent.delete(parent);
      else this.byParent.set(parent, kept);
      this.onChanged(parent);
    }
  }
}
