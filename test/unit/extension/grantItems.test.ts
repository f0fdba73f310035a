import * as assert from 'assert';
import { ApprovalGrants } from '../../../src/core/interaction';
import { grantItemOf } from '../../../src/extension/approvals/grantItems';

describe('Manage Approvals: a live grant as a row (grantItemOf)', () => {
  it('says who may do what, how far the grant reaches, and where its holder sits in the tree', () => {
    const lead = { id: 'lead', label: 'Demo lead' };
    const researcher = { id: 'r', label: 'Researcher' };
    const grants = new ApprovalGrants({ parentOf: (a: object) => (a === researcher ? lead : undefined) });
    const branch = grants.add('branch', researcher, 'run-command');
    const own = grants.add('agent', lead, 'edit-file');
    assert.deepStrictEqual(grantItemOf(branch), {
      label: 'Researcher may run a command',
      description: 'this agent and the agents it starts, until it ends',
      detail: 'Demo lead › Researcher: without asking, in this window',
    });
    assert.deepStrictEqual(grantItemOf(own), { label: 'Demo lead may edit files', description: 'this agent only, until it ends', detail: 'Demo lead: without asking, in this window' });
  });
});
