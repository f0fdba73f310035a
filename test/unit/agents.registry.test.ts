import * as assert from 'node:assert/strict';
import type { Agent } from '../../src/core/agents/agent';
import { AgentRegistry } from '../../src/core/agents/registry';
import { forged } from '../support/forged';

// "Unowned" is a question about ownership at run time, not about an agent's kind: roots and
// continuable children are unowned, one-shot children are not. roots()/isRoot() are its
// design-notes names and answer the same.

function fake(id: string, kind: Agent['kind'], creationOrder: number): Agent {
  return forged<Agent>({ id, kind, creationOrder, disposed: false });
}

describe('agent registry: unowned agents', () => {
  it('unowned() lists the live agents with no runtime owner, whatever their kind; roots() is the same list', () => {
    const registry = new AgentRegistry();
    const root = fake('root', 'root', 1);
    const once = fake('once', 'one-shot', 2);
    const kid = fake('kid', 'continuable', 3);
    registry.add(root);
    registry.add(once, { owner: root });
    registry.add(kid, { parent: root });
    assert.deepEqual(registry.unowned(), [root, kid]);
    assert.deepEqual(registry.roots(), registry.unowned());
    for (const agent of [root, once, kid]) assert.equal(registry.isRoot(agent), registry.isUnowned(agent), agent.id);
    assert.equal(registry.isUnowned(kid), true, 'a continuable child is unowned, not a root');
    assert.equal(registry.isUnowned(once), false);
    assert.equal(registry.isUnowned(fake('root', 'root', 1)), false, 'a stale object with a live id is not live');
  });
});
