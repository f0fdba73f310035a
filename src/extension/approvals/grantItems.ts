// How Manage Approvals shows a live grant. Pure (no 'vscode' import), so the wording is unit-tested in Node.
import { ACTION_WORDING, type ApprovalGrant } from '../../core/interaction';

export const REVOKE_GRANT_TOOLTIP = 'Revoke grant';

/** A grant as one row: who, what, how far it reaches, and where the holder sits in the tree. */
export function grantItemOf(grant: ApprovalGrant): { label: string; description: string; detail: string } {
  const reach = grant.scope === 'branch' ? 'this agent and the agents it starts' : 'this agent only';
  return {
    label: `${grant.holder.label} may ${ACTION_WORDING[grant.action]}`,
    description: `${reach}, until it ends`,
    detail: `${grant.path}: without asking, in this window`,
  };
}
