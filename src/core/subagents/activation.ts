import type { Agent } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';

/**
 * A live continuable child. Its lifetime belongs to the continuation manager, not to the
 * parent agent, so the child is a runtime root. Its ancestry is fixed when it is created.
 */
export class Activation {
  /** Set once disposal has begun: later interrupts are accepted no-ops. */
  disposing = false;
  /** Reports that could not reach the parent because it was not live. */
  readonly undelivered: string[] = [];
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly agent: Agent,
    /** The durable address of the direct parent (its session id). */
    readonly parentSessionId: string,
    /** The direct parent as it was at creation; authority for delivery. */
    readonly parent: Agent,
    readonly ancestry: WeakSet<Agent>,
    /** The same ancestors, for building a child's ancestry from this one's. */
    readonly ancestors: readonly WeakRef<Agent>[],
  ) {}

  /**
   * This child's work queue: delivery, settlement and disposal of one child run one at a time,
   * in arrival order, each after the previous one has finished (failed or not).
   */
  inOrder<T>(work: () => T | Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    // A failure is its caller's (it gets `next`): the queue goes on with the next work.
    this.chain = next.catch(() => undefined);
    return next;
  }
}

/**
 * The Activation of `child`, created by `parent`, with its ancestry fixed now: the live lineage
 * at creation (the parent, its holders and creators, and for a continuable parent the ancestry
 * recorded when it was created). `activationOf` finds a live agent's own Activation.
 */
export function newActivation(
  parent: Agent,
  child: Agent,
  agents: Pick<AgentRegistry, 'isLive' | 'parentOf'>,
  activationOf: (agent: Agent) => Activation | undefined,
): Activation {
  const ancestry = new WeakSet<Agent>();
  const ancestors: WeakRef<Agent>[] = [];
  const addAncestor = (a: Agent): void => {
    if (ancestry.has(a)) return;
    ancestry.add(a);
    ancestors.push(new WeakRef(a));
  };
  for (let a: Agent | undefined = parent; a && agents.isLive(a); a = agents.parentOf(a)) {
    addAncestor(a);
    const act = activationOf(a);
    if (act) {
      for (const ref of act.ancestors) {
        const anc = ref.deref();
        if (anc && agents.isLive(anc)) addAncestor(anc);
      }
      break;
    }
  }
  return new Activation(child, parent.id, parent, ancestry, ancestors);
}
