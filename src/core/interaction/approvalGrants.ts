/**
 * What a person allowed from an approval prompt for agents, not for the workspace: grants.
 *
 * Scopes, from narrow to wide (rules, in approvalRules.ts, are the two widest):
 * - `agent`: "Allow for this agent": the exact agent object that asked, for one action, until
 *   it ends in this window. Not the agents it starts; a resumed session is another object and
 *   is asked again.
 * - `branch`: "Allow for this agent and the agents it starts": the holder and every agent below
 *   it in the live tree, those started after the grant included, for one action, until the
 *   holder ends. The branch is read from the live lineage at each request, never stored, so a
 *   subagent started later is covered and an agent that leaves the branch is not.
 *
 * Invariants:
 * - A grant never covers an agent outside its holder's branch: coverage is decided by walking
 *   the asking agent's live parents by object identity up to the holder. An agent whose chain
 *   to the holder passes through an agent that is no longer live has left the branch (the tree
 *   shows it at the top level), and the walk is bounded, so a damaged lineage covers nothing.
 * - A grant ends with its holder (`forgetAgent`) and can be revoked by id (Manage Approvals);
 *   every change is announced (`onChange`).
 * - Grants live in memory only: nothing here is written to disk or survives the window. The
 *   store is made with the first grant (in the approval-asking part): a window where nobody
 *   grants anything never loads it.
 */
import type { ApprovalAction } from './approvalWording';
import type { InteractionCaller } from './userInteraction';

export type GrantScope = 'agent' | 'branch';

/** Who asks, as prompts and grants read them: the exact live agent, with its kind and definition when it has them. */
export interface ApprovalAsker extends InteractionCaller {
  readonly kind?: string;
  readonly definition?: { readonly name: string };
}

/** The live tree's lineage (the agent registry): who started whom, by object. */
export interface AgentLineage {
  parentOf(agent: never): object | undefined;
}

export interface ApprovalGrant {
  readonly id: string;
  readonly scope: GrantScope;
  readonly action: ApprovalAction;
  /** The exact agent the person answered. */
  readonly holder: ApprovalAsker;
  /** The holder's place in the tree when the grant was made, for lists ("Demo lead › Researcher"). */
  readonly path: string;
  /** Epoch milliseconds. */
  readonly grantedAt: number;
}

/** Deeper than any tree the delegation limits allow: a lineage this long is damaged and covers nothing. */
const MAX_LINEAGE_STEPS = 256;

/** Is `agent` the holder or below it in the live tree? */
export function inBranch(agent: object, holder: object, lineage: AgentLineage | undefined): boolean {
  return stepsUp(agent, holder, lineage) !== undefined;
}

/** The labels from the top of the live tree down to `agent`, joined as the tree reads: "Demo lead › Researcher". */
export function branchPath(agent: InteractionCaller, lineage: AgentLineage | undefined): string {
  const labels: string[] = [];
  let current: object | undefined = agent;
  for (let step = 0; current !== undefined && step <= MAX_LINEAGE_STEPS; step++) {
    labels.unshift((current as InteractionCaller).label);
    current = lineage?.parentOf(current as never);
  }
  return labels.join(' › ');
}

/** The live grants of one runtime. */
export class ApprovalGrants {
  private readonly list: ApprovalGrant[] = [];
  private nextId = 1;

  constructor(
    private readonly lineage: AgentLineage | undefined,
    private readonly now: () => number = Date.now,
    /** Told when a grant is added, revoked or ends with its holder. */
    private readonly onChange: () => void = () => undefined,
  ) {}

  /** The live grants, oldest first. */
  grants(): readonly ApprovalGrant[] {
    return [...this.list];
  }

  /** Grants `action` to `holder` (and, for `branch`, to every agent below it); a grant already held is not added twice. */
  add(scope: GrantScope, holder: ApprovalAsker, action: ApprovalAction): ApprovalGrant {
    const held = this.list.find((g) => g.scope === scope && g.holder === holder && g.action === action);
    if (held) return held;
    const grant: ApprovalGrant = Object.freeze({ id: `grant-${this.nextId++}`, scope, action, holder, path: branchPath(holder, this.lineage), grantedAt: this.now() });
    this.list.push(grant);
    this.onChange();
    return grant;
  }

  /** The grant that covers `agent` for `action`: its own agent grant first, then the nearest branch grant above it. */
  covering(agent: object, action: ApprovalAction): ApprovalGrant | undefined {
    const own = this.list.find((g) => g.action === action && g.holder === agent);
    if (own) return own;
    let best: { grant: ApprovalGrant; depth: number } | undefined;
    for (const grant of this.list) {
      if (grant.scope !== 'branch' || grant.action !== action) continue;
      const depth = stepsUp(agent, grant.holder, this.lineage);
      if (depth !== undefined && (!best || depth < best.depth)) best = { grant, depth };
    }
    return best?.grant;
  }

  /** Revokes one grant by id; false when there is none (already ended or revoked). */
  revoke(id: string): boolean {
    const i = this.list.findIndex((g) => g.id === id);
    if (i < 0) return false;
    this.list.splice(i, 1);
    this.onChange();
    return true;
  }

  /** Ends every grant this exact agent holds (its agent and branch grants): it has ended. */
  forgetAgent(agent: object): void {
    this.dropWhere((g) => g.holder === agent);
  }

  /** Ends the grants held by any agent of this session id (whichever object). */
  forgetSession(sessionId: string): void {
    this.dropWhere((g) => g.holder.id === sessionId);
  }

  private dropWhere(match: (grant: ApprovalGrant) => boolean): void {
    const before = this.list.length;
    for (let i = this.list.length - 1; i >= 0; i--) if (match(this.list[i])) this.list.splice(i, 1);
    if (this.list.length !== before) this.onChange();
  }
}

/** How many parents up from `agent` the holder is; undefined when it is not above it. */
function stepsUp(agent: object, holder: object, lineage: AgentLineage | undefined): number | undefined {
  let current: object | undefined = agent;
  for (let step = 0; current !== undefined && step <= MAX_LINEAGE_STEPS; step++) {
    if (current === holder) return step;
    current = lineage?.parentOf(current as never);
  }
  return undefined;
}
