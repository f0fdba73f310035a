import * as assert from 'assert';
import type { Agent } from '../../../src/core/agents/agent';
import { AgentRegistry, byCreation, type RegistryChange } from '../../../src/core/agents/registry';
import { forged } from '../../support/forged';

// The registry of live agents, by object identity: who is live, who is a root, who created whom,
// and in which order the tree lists them.

/** Only what the registry reads of an agent. */
function fake(id: string, creationOrder: number, disposed = false): Agent {
  return forged<Agent>({ id, creationOrder, disposed });
}

describe('agent registry, pinned', () => {
  it('identity is by object: a stale object reusing a live id is neither live, nor a root, nor removable', () => {
    const registry = new AgentRegistry();
    const live = fake('a', 1);
    const stale = fake('a', 1);
    registry.add(live);
    assert.strictEqual(registry.isLive(live), true);
    assert.strictEqual(registry.isLive(stale), false);
    assert.strictEqual(registry.isLive({ id: 5 }), false);
    assert.strictEqual(registry.isRoot(live), true);
    assert.strictEqual(registry.isRoot(stale), false);
    assert.strictEqual(registry.isRoot({}), false);
    assert.strictEqual(registry.ownerOf(stale), undefined);
    assert.strictEqual(registry.parentOf(stale), undefined);
    assert.strictEqual(registry.remove(stale), false);
    assert.strictEqual(registry.remove(fake('nobody', 0)), false);
    assert.strictEqual(registry.get('a'), live);
    assert.strictEqual(registry.remove(live), true);
    assert.strictEqual(registry.remove(live), false, 'removed once');
    assert.strictEqual(registry.size, 0);
  });

  it('a second live agent with the same id is refused; a disposed one may be replaced and loses its place under its parent', () => {
    const registry = new AgentRegistry();
    const parent = fake('p', 0);
    const first = fake('x', 1);
    registry.add(parent);
    registry.add(first, { parent });
    assert.throws(() => registry.add(fake('x', 2)), /An agent with id x is already live\./);
    registry.add(first, { parent });
    assert.strictEqual(registry.liveChildCount(parent), 1, 're-adding the same object keeps one child');
    (first as { disposed: boolean }).disposed = true;
    const second = fake('x', 3);
    registry.add(second);
    assert.strictEqual(registry.get('x'), second);
    assert.strictEqual(registry.liveChildCount(parent), 0, 'the replaced agent is no longer a child of its parent');
    assert.deepStrictEqual(registry.childrenOf(parent), []);
  });

  it('owners, parents, roots and children: an owned child has its owner as parent unless told otherwise', () => {
    const registry = new AgentRegistry();
    const root = fake('root', 1);
    const owned = fake('owned', 2);
    const continuable = fake('cont', 3);
    registry.add(root);
    registry.add(owned, { owner: root });
    registry.add(continuable, { parent: root });
    assert.strictEqual(registry.ownerOf(owned), root);
    assert.strictEqual(registry.parentOf(owned), root);
    assert.strictEqual(registry.ownerOf(continuable), undefined);
    assert.strictEqual(registry.parentOf(continuable), root);
    assert.strictEqual(registry.isRoot(owned), false);
    assert.strictEqual(registry.isRoot(continuable), true);
    assert.deepStrictEqual(registry.roots(), [root, continuable]);
    assert.deepStrictEqual(registry.ownedBy(root), [owned]);
    assert.strictEqual(registry.liveChildCount(root), 2);
    assert.deepStrictEqual(registry.topLevel(), [root]);
    registry.remove(owned);
    assert.strictEqual(registry.liveChildCount(root), 1);
    registry.remove(continuable);
    assert.strictEqual(registry.liveChildCount(root), 0);
    registry.remove(root);
    assert.deepStrictEqual(registry.all(), []);
  });

  it('children and the top level are listed by creation time, then id; orphans of an ended creator move to the top level', () => {
    const registry = new AgentRegistry();
    const p = fake('p', 1);
    const late = fake('a-late', 30);
    const b = fake('b', 20);
    const a = fake('a', 20);
    registry.add(p);
    registry.add(late, { parent: p });
    registry.add(b, { parent: p });
    registry.add(a, { parent: p });
    assert.deepStrictEqual(registry.childrenOf(p).map((x) => x.id), ['a', 'b', 'a-late']);
    assert.deepStrictEqual(registry.topLevel().map((x) => x.id), ['p']);
    registry.remove(p);
    assert.deepStrictEqual(registry.topLevel().map((x) => x.id), ['a', 'b', 'a-late']);
    assert.strictEqual(byCreation(fake('z', 1), fake('a', 2)) < 0, true, 'time first, whatever the ids');
    assert.strictEqual(byCreation(fake('a', 5), fake('a', 5)), 0);
    assert.strictEqual(byCreation(fake('b', 5), fake('a', 5)), 1);
  });

  it('announces each addition and removal, and nothing after dispose', () => {
    const registry = new AgentRegistry();
    const seen: string[] = [];
    registry.onDidChange((c: RegistryChange) => seen.push(`${c.type}:${c.agent.id}`));
    const a = fake('a', 1);
    registry.add(a);
    registry.remove(a);
    registry.remove(a);
    assert.deepStrictEqual(seen, ['added:a', 'removed:a']);
    registry.dispose();
    registry.add(fake('b', 2));
    assert.deepStrictEqual(seen, ['added:a', 'removed:a']);
  });
});

// "Unowned" is a question about ownership at run time, not about an agent's kind: roots and
// continuable children are unowned, one-shot children are not. roots()/isRoot() are its
// design-notes names and answer the same.

function fakeOfKind(id: string, kind: Agent['kind'], creationOrder: number): Agent {
  return forged<Agent>({ id, kind, creationOrder, disposed: false });
}

describe('agent registry: unowned agents', () => {
  it('unowned() lists the live agents with no runtime owner, whatever their kind; roots() is the same list', () => {
    const registry = new AgentRegistry();
    const root = fakeOfKind('root', 'root', 1);
    const once = fakeOfKind('once', 'one-shot', 2);
    const kid = fakeOfKind('kid', 'continuable', 3);
    registry.add(root);
    registry.add(once, { owner: root });
    registry.add(kid, { parent: root });
    assert.deepStrictEqual(registry.unowned(), [root, kid]);
    assert.deepStrictEqual(registry.roots(), registry.unowned());
    for (const agent of [root, once, kid]) assert.strictEqual(registry.isRoot(agent), registry.isUnowned(agent), agent.id);
    assert.strictEqual(registry.isUnowned(kid), true, 'a continuable child is unowned, not a root');
    assert.strictEqual(registry.isUnowned(once), false);
    assert.strictEqual(registry.isUnowned(fakeOfKind('root', 'root', 1)), false, 'a stale object with a live id is not live');
  });
});
