import type { Agent } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';

/**
 * A live continuable child. Its lifetime belongs to the continuation manager, not to the
 * parent agent, so the child is unowned (it may ask the human). Its ancestry is fixed when it
 * is created.
 * A child waiting for its next message keeps only what it uses: its ancestors (weakly, one
 * slot each), no queue of work once that has run, and no list of reports until one is kept.
 */
export class Activation {
  /** Set once disposal has begun: later interrupts are accepted no-ops. */
  disposing = false;
  private reports: string[] | undefined;
  /** The last work queued, until it has run. */
  private chain: Promise<unknown> | undefined;

  constructor(
    readonly agent: Agent,
    /** The direct parent as it was at creation; authority for delivery, and its nearest ancestor. */
    readonly parent: Agent,
    /**
     * Its live ancestors at creation beyond the parent, nearest first (with the parent, what a
     * child's ancestry is built from). Weak: an ended ancestor is not kept alive by them. A child
     * of a root has none, and shares one empty list.
     */
    readonly fartherAncestors: readonly WeakRef<Agent>[],
  ) {}

  /** The durable address of the direct parent (its session id). */
  get parentSessionId(): string {
    return this.parent.id;
  }

  /** Reports that could not reach the parent because it was not live. */
  get undelivered(): readonly string[] {
    return this.reports ?? NO_REPORTS;
  }

  keepUndelivered(report: string): void {
    (this.reports ??= []).push(report);
  }

  /** Whether `agent` (this exact object) was among the child's live ancestors at its creation. */
  hasAncestor(agent: Agent): boolean {
    return agent === this.parent || this.fartherAncestors.some((ref) => ref.deref() === agent);
  }

  /**
   * This child's work queue: delivery, settlement and disposal of one child run one at a time,
   * in arrival order, each after the previous one has finished (failed or not).
   */
  inOrder<T>(work: () => T | Promise<T>): Promise<T> {
    const next = (this.chain ?? Promise.resolve()).then(work, work);
    const tail = next.catch(ignore);
    this.chain = tail;
    void tail.then(() => {
      if (this.chain === tail) this.chain = undefined;
    });
    return next;
  }
}

const NO_REPORTS: readonly string[] = Object.freeze([]);
const NO_ANCESTORS: readonly WeakRef<Agent>[] = Object.freeze([]);
const ignore = (): undefined => undefined;

/**
 * The Activation of `child`, created by `parent`, with its ancestry fixed now: the live lineage
 * at creation (the parent, its holders and creators, and for a continuable parent the ancestry
 * recorded when it was created). `activationOf` finds a live agent's own Activation. The parent
 * is live (starting and resuming a child check it first), so it heads that lineage.
 */
export function newActivation(
  parent: Agent,
  child: Agent,
  agents: Pick<AgentRegistry, 'isLive' | 'parentOf'>,
  activationOf: (agent: Agent) => Activation | undefined,
): Activation {
  const found: Agent[] = [];
  const addAncestor = (a: Agent): void => {
    if (!found.includes(a)) found.push(a);
  };
  for (let a: Agent | undefined = parent; a && agents.isLive(a); a = agents.parentOf(a)) {
    addAncestor(a);
    const act = activationOf(a);
    if (act) {
      if (agents.isLive(act.parent)) addAncestor(act.parent);
      for (const ref of act.fartherAncestors) {
        const anc = ref.deref();
        if (anc && agents.isLive(anc)) addAncestor(anc);
      }
      break;
    }
  }
  const farther = found.length > 1 ? found.slice(1).map((a) => new WeakRef(a)) : NO_ANCESTORS;
  return new Activation(child, parent, farther);
}
