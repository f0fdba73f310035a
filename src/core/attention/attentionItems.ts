import type { Hold } from '../agents/holds';
import type { PendingInteraction } from '../interaction/userInteraction';

/**
 * What waits on the human, as one list over every agent: the questions, approvals and plan
 * approvals open in the interaction seam, and the holds only a person releases (a spent run
 * budget, a runaway guard's pause, a turn a reload cut short that waits for Resume).
 *
 * Invariants:
 * - Derived, never kept: the list is computed from the seam's open prompts and the agents' holds
 *   as they are now, so it cannot disagree with them, and whatever brings those back after a
 *   reload (the restore) brings the items back too.
 * - One item per thing to decide: a run paused at its budget is one item (its holds are on
 *   every agent of the run; the item names the run's top agent), a prompt is one item however
 *   many questions it holds.
 * - Oldest first; items of the same time keep the order they were first seen in (`seen`), then
 *   their keys, so the order never depends on how the sources happened to list them.
 * - A Stop, Stop All Below or a reopened queue is the person's own doing, not a question to
 *   them: those holds are not items.
 */

export type AttentionKind = 'question' | 'approval' | 'plan-approval' | 'budget' | 'runaway' | 'interrupted';

export interface AttentionItem {
  /** Stable while the item is open: `ask:<prompt id>`, `budget:<agent id>`, `slice:<agent id>`, `runaway:<agent id>`, `interrupted:<agent id>`. */
  readonly key: string;
  readonly kind: AttentionKind;
  /** The agent that asks or is held; undefined for a prompt no agent opened. */
  readonly agentId: string | undefined;
  readonly agentLabel: string;
  /** The labels from the tree's top down to the agent (`['Demo lead', 'Researcher']`). */
  readonly path: readonly string[];
  /** What it asks of the human, in one line. */
  readonly asks: string;
  /** Epoch milliseconds since when it waits. */
  readonly since: number;
  /** The open prompt's id, for a question, an approval or a plan approval. */
  readonly promptId?: string;
  /** A budget item of a branch's own budget (a slice, budgets/slices.ts), not the run's: its raise is that slice's. */
  readonly slice?: true;
}

/** What the list reads of a live agent (the runtime's Agent satisfies it). */
export interface AttentionAgent {
  readonly id: string;
  readonly label: string;
  readonly holds: readonly Hold[];
  /** Agents of one run share this object. */
  readonly run: object;
}

export interface AttentionSources<A extends AttentionAgent = AttentionAgent> {
  readonly pending: readonly PendingInteraction[];
  /** The live agents, in the registry's order. */
  readonly agents: readonly A[];
  /** The live agent that created `agent`, if any. */
  parentOf(agent: A): A | undefined;
  /** An agent by id, when it is live. */
  get(id: string): A | undefined;
}

/** The path's separator, as the tree and the inbox show it. */
export const PATH_SEPARATOR = ' › ';

export function pathText(item: Pick<AttentionItem, 'path' | 'agentLabel'>): string {
  return item.path.length > 0 ? item.path.join(PATH_SEPARATOR) : item.agentLabel;
}

/** How an item's kind is said in a list: "question", "approval"... */
export const KIND_TEXT: Readonly<Record<AttentionKind, string>> = Object.freeze({
  question: 'question',
  approval: 'approval',
  'plan-approval': 'plan to approve',
  budget: 'run paused at its budget',
  runaway: 'paused by a runaway guard',
  interrupted: 'interrupted by a reload',
});

/** Every open item, oldest first. `seen` gives each key the order it was first seen in (see the invariants). */
export function attentionItems<A extends AttentionAgent>(sources: AttentionSources<A>, seen: ReadonlyMap<string, number> = new Map()): AttentionItem[] {
  const items: AttentionItem[] = [];
  const pathOf = (agent: A): string[] => {
    const labels: string[] = [];
    const visited = new Set<A>();
    for (let at: A | undefined = agent; at && !visited.has(at); at = sources.parentOf(at)) {
      visited.add(at);
      labels.unshift(at.label);
    }
    return labels;
  };
  for (const p of sources.pending) {
    const agent = p.agent && sources.get(p.agent.id);
    items.push({
      key: `ask:${p.id}`,
      kind: p.intent === 'clarify' ? 'question' : p.intent,
      agentId: p.agent?.id,
      agentLabel: p.agent?.label ?? 'Arbor',
      path: agent ? pathOf(agent) : p.agent ? [p.agent.label] : [],
      asks: promptAsks(p),
      since: p.openedAt,
      promptId: p.id,
    });
  }
  const pausedRuns = new Map<object, A[]>();
  const spentSlices = new Set<string>();
  for (const agent of sources.agents) {
    for (const hold of agent.holds) {
      if (hold.reason === 'budget') {
        const run = pausedRuns.get(agent.run);
        if (run) run.push(agent);
        else pausedRuns.set(agent.run, [agent]);
      } else if (hold.reason === 'slice') {
        // One item per spent slice, named by the agent that was given it (the top of its branch).
        const owner = sources.agents.find((a) => a.id === (hold.slice ?? agent.id)) ?? agent;
        if (spentSlices.has(owner.id)) continue;
        spentSlices.add(owner.id);
        const ownHold = owner.holds.find((h) => h.reason === 'slice') ?? hold;
        items.push({ ...holdItem('budget', owner, ownHold, pathOf(owner), `paused: ${ownHold.detail ?? 'its own budget is spent'}`), key: `slice:${owner.id}`, slice: true });
      } else if (hold.reason === 'runaway') {
        items.push(holdItem('runaway', agent, hold, pathOf(agent), hold.detail ?? 'a runaway guard paused it'));
      } else if (hold.reason === 'reload' && hold.interrupted) {
        items.push(holdItem('interrupted', agent, hold, pathOf(agent), 'the window closed while it was working: Resume it to go on'));
      }
    }
  }
  for (const agents of pausedRuns.values()) {
    // The run's top agent names it: the one whose creator is not of the run (its root, when live).
    const top = agents.find((a) => sources.parentOf(a)?.run !== a.run) ?? agents[0];
    const hold = top.holds.find((h) => h.reason === 'budget')!;
    items.push(holdItem('budget', top, hold, pathOf(top), `paused: ${hold.detail ?? 'a run budget is spent'}`));
  }
  return items.sort(byAge(seen));
}

/** Oldest first; then first seen; then by key. */
export function byAge(seen: ReadonlyMap<string, number>): (a: AttentionItem, b: AttentionItem) => number {
  const rank = (item: AttentionItem): number => seen.get(item.key) ?? Number.MAX_SAFE_INTEGER;
  return (a, b) => a.since - b.since || rank(a) - rank(b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

function holdItem(kind: 'budget' | 'runaway' | 'interrupted', agent: AttentionAgent, hold: Hold, path: string[], asks: string): AttentionItem {
  const since = Date.parse(hold.since);
  return { key: `${kind}:${agent.id}`, kind, agentId: agent.id, agentLabel: agent.label, path, asks, since: Number.isFinite(since) ? since : 0 };
}

function promptAsks(p: PendingInteraction): string {
  const first = p.questions[0]?.question ?? '';
  return p.questions.length > 1 ? `${first} (+${p.questions.length - 1} more)` : first;
}
