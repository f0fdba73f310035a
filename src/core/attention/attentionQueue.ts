import type { Agent } from '../agents/agent';
import type { OnRuntimeEvents } from '../agents/runtimeEvent';
import type { BudgetEvent } from '../budgets/budgetGuard';
import { Emitter, type Disposable } from '../events';
import type { PendingChange, PendingInteraction } from '../interaction/userInteraction';
import { attentionItems, type AttentionItem } from './attentionItems';

export interface AttentionQueueDeps {
  interaction: { pending(): readonly PendingInteraction[]; onDidChangePending(listener: (change: PendingChange) => void): Disposable };
  agents: { all(): Agent[]; parentOf(agent: Agent): Agent | undefined; get(id: string): Agent | undefined; isLive(agent: object): boolean };
  /** The runtime's event channel. */
  readonly onEvents: OnRuntimeEvents;
  /** The budget guard's events (pauses, raises, runaway guards). */
  onBudgetEvent(listener: (event: BudgetEvent) => void): Disposable;
  /** Runs a look at the sources after a burst of events; a microtask by default. */
  schedule?: (look: () => void) => void;
  onProblem?: (problem: string, err: unknown) => void;
}

/**
 * The attention queue: the list of what waits on the human (attentionItems.ts), kept current
 * from the events that can change it, and announced only when it did change.
 *
 * Invariants:
 * - Nothing is kept but the list last computed and the order keys were first seen in: every
 *   look reads the seam's open prompts and the live agents' holds afresh.
 * - A burst of events costs one look (scheduled once, run after the burst); events that cannot
 *   change a hold or a prompt (usage, activity, streaming, log lines) cost nothing.
 * - `onDidChange` fires after a look whose list differs from the last one (an item came, went,
 *   or says something new), never twice for the same list.
 */
export class AttentionQueue implements Disposable {
  private readonly changes: Emitter<readonly AttentionItem[]>;
  private readonly subscriptions: Disposable[];
  private readonly schedule: (look: () => void) => void;
  private readonly seen = new Map<string, number>();
  private nextSeen = 0;
  private current: readonly AttentionItem[] = [];
  private signature = '';
  private scheduled = false;
  private disposed = false;

  constructor(private readonly deps: AttentionQueueDeps) {
    this.changes = new Emitter(deps.onProblem);
    this.schedule = deps.schedule ?? queueMicrotask;
    const soon = (): void => this.soon();
    this.subscriptions = [
      deps.interaction.onDidChangePending(soon),
      deps.onBudgetEvent((event) => {
        if (event.type !== 'warning') soon();
      }),
      // A hold comes or goes with an arrival or departure, a turn's end, a status change or the agent's end.
      deps.onEvents(['agent_added', 'agent_removed', 'status', 'turn_end', 'disposed'], soon),
    ];
    this.look();
  }

  /** Fires with the whole list, oldest first, each time it changes. */
  readonly onDidChange = (listener: (items: readonly AttentionItem[]) => void): Disposable => this.changes.on(listener);

  /** Every open item, oldest first, as of the last look. */
  items(): readonly AttentionItem[] {
    return this.current;
  }

  /** Looks now (a restore that put holds back calls it once it is done). */
  refresh(): readonly AttentionItem[] {
    this.look();
    return this.current;
  }

  dispose(): void {
    this.disposed = true;
    for (const s of this.subscriptions) s.dispose();
    this.changes.dispose();
  }

  private soon(): void {
    if (this.scheduled || this.disposed) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      if (!this.disposed) this.look();
    });
  }

  private look(): void {
    const { agents, interaction } = this.deps;
    const pending = interaction.pending();
    const live = agents.all();
    const parentOf = (agent: Agent): Agent | undefined => {
      const parent = agents.parentOf(agent);
      return parent && agents.isLive(parent) ? parent : undefined;
    };
    const items = attentionItems({ pending, agents: live, parentOf, get: (id) => agents.get(id) }, this.seenWith(pending, live));
    for (const key of [...this.seen.keys()]) if (!items.some((i) => i.key === key)) this.seen.delete(key);
    const signature = items.map((i) => `${i.key}\u0000${i.asks}\u0000${i.path.join('\u0000')}`).join('\u0001');
    if (signature === this.signature) return;
    this.signature = signature;
    this.current = Object.freeze(items);
    this.changes.fire(this.current);
  }

  /** Gives keys not seen before their rank now, in the order the sources list them. */
  private seenWith(pending: readonly PendingInteraction[], agents: readonly Agent[]): ReadonlyMap<string, number> {
    const note = (key: string): void => {
      if (!this.seen.has(key)) this.seen.set(key, this.nextSeen++);
    };
    for (const p of pending) note(`ask:${p.id}`);
    for (const agent of agents) {
      for (const hold of agent.holds) {
        if (hold.reason === 'runaway') note(`runaway:${agent.id}`);
        else if (hold.reason === 'reload' && hold.interrupted) note(`interrupted:${agent.id}`);
        else if (hold.reason === 'budget') note(`budget:${agent.id}`);
      }
    }
    return this.seen;
  }
}
