import type { Agent } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';

export interface AgentListing {
  id: string;
  label: string;
  kind: Agent['kind'];
  /** The nearest listed ancestor (the caller itself for direct children). */
  parentId: string;
  /** 1 for direct children. */
  depth: number;
  status: Agent['status'];
  parked: boolean;
  pending: number;
}

/**
 * A pre-order walk of `root`'s live descendants, siblings by creation time then id. One-shot
 * agents are walked through but not listed when `omitOneShot` is set: they cannot be messaged
 * or interrupted, so the model is shown the continuable agents beneath them.
 */
export function listDescendants(agents: AgentRegistry, root: Agent, options: { omitOneShot?: boolean; maxDepth?: number } = {}): AgentListing[] {
  const out: AgentListing[] = [];
  const visit = (node: Agent, listedParent: Agent, depth: number): void => {
    for (const child of agents.childrenOf(node)) {
      const hidden = options.omitOneShot === true && child.kind === 'one-shot';
      if (!hidden) {
        out.push({
          id: child.id,
          label: child.label,
          kind: child.kind,
          parentId: listedParent.id,
          depth: depth + 1,
          status: child.status,
          parked: child.isParked,
          pending: child.pendingCount,
        });
      }
      if (options.maxDepth === undefined || depth + 1 < options.maxDepth || hidden) {
        visit(child, hidden ? listedParent : child, hidden ? depth : depth + 1);
      }
    }
  };
  visit(root, root, 0);
  return out;
}
