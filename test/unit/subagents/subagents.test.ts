import * as assert from 'assert';
import type { Agent } from '../../../src/core/agents/agent';
import { isArborError } from '../../../src/core/errors';
import { listDescendants } from '../../../src/core/subagents/listing';
import { childByLabel, makeRuntime, reasons, tick, toolResults, userMessages } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const start = (label: string, prompt = 'work') => ({ name: 'start_subagent', arguments: { label, prompt } });

function expectUnauthorized(fn: () => unknown): void {
  assert.throws(fn, (e: unknown) => isArborError(e, 'SUBAGENT_UNAUTHORIZED'));
}

describe('one-shot subagents', () => {
  const track = disposeAfterEach();
  it("return the child's final text as the tool result and leave no live child", async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'helper', prompt: 'sum 2+2' } }] }, { text: 'parent saw: done' }]] },
        helper: { turns: [[{ delayMs: 20, text: 'four' }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 2, 'the child to exist');
    const child = childByLabel(runtime, 'helper');
    assert.strictEqual(runtime.agents.ownerOf(child), root, 'owned by the parent');
    assert.strictEqual(runtime.agents.isRoot(child), false);
    assert.strictEqual(child.log.header.parentSession, root.id);
    assert.strictEqual(child.log.header.delegationDepth, 1);
    await root.whenIdle();
    assert.deepStrictEqual(toolResults(root).map((r) => r.content), ['four']);
    assert.strictEqual(runtime.agents.size, 1);
  });

  it("aborting the parent's turn aborts the child and the parent gets a structured result", async () => {
    const { runtime, aborts } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'helper', prompt: 'hang' } }] }]] },
        helper: { turns: [[{ hang: true }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => aborts.length === 0 && runtime.agents.size === 2, 'the child to hang');
    const child = childByLabel(runtime, 'helper');
    await tick(2);
    runtime.stop(root);
    assert.strictEqual(aborts.length, 1, "the child's model call saw the abort synchronously");
    assert.strictEqual(aborts[0].agentId, child.id);
    await root.whenIdle();
    await child.whenIdle();
    await tick(1);
    assert.deepStrictEqual(reasons(child), ['aborted:parent']);
    assert.deepStrictEqual(reasons(root), ['aborted:user']);
    assert.strictEqual(runtime.agents.isLive(child), false);
  });

  it('a failing child becomes an error result and the parent goes on', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'helper', prompt: 'x' } }] }, { text: 'handled' }]] },
        helper: { turns: [[{ error: { message: 'exploded' } }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    const [result] = toolResults(root);
    assert.strictEqual(result.isError, true);
    assert.deepStrictEqual(JSON.parse(result.content).status, 'error');
    assert.match(result.content, /exploded/);
    assert.deepStrictEqual(reasons(root), ['completed']);
  });

  it('one-shot nodes cannot be stopped directly', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'helper', prompt: 'x' } }] }]] }, helper: { turns: [[{ hang: true }]] } },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 2, 'child');
    const child = childByLabel(runtime, 'helper');
    expectUnauthorized(() => runtime.stop(child));
    const answer = runtime.subagents.interrupt(child.id, { kind: 'user', parentSessionId: root.id });
    assert.strictEqual(answer.accepted, true, 'one-shot target: accepted');
    assert.strictEqual(child.status, 'running', 'and it kept running');
  });

  it('an interrupt of a one-shot says it did nothing and why: the target belongs to its holder', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'helper', prompt: 'x' } }] }]] }, helper: { turns: [[{ hang: true }]] } },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 2, 'child');
    const child = childByLabel(runtime, 'helper');
    for (const authority of [{ kind: 'user' as const, parentSessionId: root.id }, { kind: 'ancestor' as const, agent: root }]) {
      const answer = runtime.subagents.interrupt(child.id, authority);
      assert.strictEqual(answer.accepted, true, 'the accepted field stays, so callers do not break');
      assert.strictEqual(answer.effect, 'none', `${authority.kind}: not a silent no-op`);
      assert.ok(answer.effect === 'none' && answer.reason === 'one-shot' && answer.holderId === root.id);
      assert.match(answer.message, /one-shot/);
      assert.match(answer.message, /"main"/, 'it names the holder to stop instead');
    }
    assert.strictEqual(child.status, 'running', 'nothing was stopped');
    assert.deepStrictEqual(runtime.subagents.interrupt('unknown', { kind: 'user', parentSessionId: root.id }), { accepted: true }, 'other absent targets keep the plain answer');
  });
});

describe('continuable subagents', () => {
  const track = disposeAfterEach();
  it('the parent gets the id at once, the child is unowned, and its report wakes the idle parent', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid')] }, { text: 'waiting for kid' }], [{ text: 'got the report' }]] },
        kid: { turns: [[{ delayMs: 10, text: 'kid result' }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => reasons(root).length === 1, 'the first parent turn');
    const started = JSON.parse(toolResults(root)[0].content);
    assert.strictEqual(started.status, 'started');
    const kid = runtime.agents.get(started.agent_id)!;
    assert.ok(kid, 'the child is live');
    assert.strictEqual(runtime.agents.isRoot(kid), true, 'owned by the continuation manager, not the parent');
    assert.strictEqual(runtime.agents.parentOf(kid), root);
    await whenState(runtime, () => reasons(root).length === 2, 'the report to wake the parent');
    assert.match(userMessages(root)[1], /Report from subagent "kid"/);
    assert.match(userMessages(root)[1], /kid result/);
    assert.match(userMessages(root)[1], /released/, 'the parent is told the idle child settled');
    assert.strictEqual(runtime.agents.isLive(kid), false, 'an idle child with no children settles');
  });

  it("a busy parent receives the report at its next step, inside the same turn", async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid')] }, { delayMs: 40, toolCalls: [{ name: 'list_agents', arguments: {} }] }, { text: 'done' }]] },
        kid: { turns: [[{ text: 'quick' }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.deepStrictEqual(reasons(root), ['completed'], 'one turn, not two');
    assert.strictEqual(userMessages(root).length, 2);
    assert.match(userMessages(root)[1], /quick/);
  });

  it('send_message works only from the exact direct parent, and resumes a settled child cold', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: {
          turns: [
            [{ toolCalls: [start('kid'), start('other')] }, { text: 'started' }],
            [{ text: 'ok' }],
            [{ text: 'ok' }],
            [{ toolCalls: [{ name: 'send_message', arguments: { agent_id: '{{agent:kid}}', message: 'again' } }] }, { text: 'sent' }],
          ],
          afterLastTurn: 'repeat-last',
        },
        kid: { turns: [[{ text: 'first' }], [{ text: 'second: {{lastMessage}}' }]] },
        other: { turns: [[{ toolCalls: [{ name: 'send_message', arguments: { agent_id: '{{agent:kid}}', message: 'hijack' } }] }, { text: 'x' }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 1 && root.status === 'idle', 'both children to settle');
    const kidId = JSON.parse(toolResults(root)[0].content).agent_id as string;
    const otherId = JSON.parse(toolResults(root)[1].content).agent_id as string;
    assert.ok(kidId && otherId);
    runtime.sendFromUser(root, 'resume kid');
    await whenState(runtime, () => userMessages(root).some((m) => m.includes('second: again')), 'the resumed child to report');
    const sendResult = toolResults(root).find((r) => r.name === 'send_message')!;
    assert.deepStrictEqual(JSON.parse(sendResult.content), { agent_id: kidId, status: 'resumed' });
    await whenState(runtime, () => runtime.agents.size === 1 && root.status === 'idle', 'quiet');
  });

  it('rejects a sibling sending to another sibling', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid'), start('other')] }, { text: 'started' }]], afterLastTurn: 'repeat-last' },
        kid: { turns: [[{ hang: true }]] },
        other: { turns: [[{ hang: true }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 3, 'children');
    const kid = childByLabel(runtime, 'kid');
    const other = childByLabel(runtime, 'other');
    await assert.rejects(runtime.subagents.deliver(other, kid.id, 'hijack'), (e: unknown) => isArborError(e, 'SUBAGENT_UNAUTHORIZED'));
    assert.strictEqual(kid.pendingCount, 0, 'nothing was queued');
    await assert.rejects(runtime.subagents.deliver(root, 'nobody', 'x'), (e: unknown) => isArborError(e, 'SUBAGENT_NOT_FOUND'));
  });
});

/** root -> a (continuable) -> b (continuable, grandchild); root -> s (sibling of a). All hang. */
async function family() {
  const fx = makeRuntime({
    version: 1,
    agents: {
      main: { turns: [[{ toolCalls: [start('a'), start('s')] }, { text: 'started' }]], afterLastTurn: 'repeat-last' },
      a: { turns: [[{ toolCalls: [start('b')] }, { hang: true }], [{ text: 'a: {{lastMessage}}' }]], afterLastTurn: 'repeat-last' },
      b: { turns: [[{ hang: true }]], afterLastTurn: 'repeat-last' },
      s: { turns: [[{ hang: true }]], afterLastTurn: 'repeat-last' },
    },
  });
  const root = fx.runtime.startRoot({ prompt: 'go', label: 'main' });
  await whenState(fx.runtime, () => fx.runtime.agents.size === 4 && fx.aborts.length === 0, 'the family');
  await whenState(fx.runtime, () => ['a', 'b', 's'].every((l) => childByLabel(fx.runtime, l).status === 'running'), 'all running');
  await tick(2);
  return { ...fx, root, a: childByLabel(fx.runtime, 'a'), b: childByLabel(fx.runtime, 'b'), s: childByLabel(fx.runtime, 's') };
}

describe('interrupt', () => {
  const track = disposeAfterEach();
  it('user authority stops only the target turn: aborted end recorded, grandchild and sibling keep running', async () => {
    const { runtime, root, a, b, s, aborts } = await family();
    track(runtime);
    const r = runtime.subagents.interrupt(a.id, { kind: 'user', parentSessionId: root.id });
    assert.deepStrictEqual(r, { accepted: true });
    assert.strictEqual(aborts.length, 1, "the target's model call saw the abort inside interrupt()");
    assert.strictEqual(aborts[0].agentId, a.id);
    await a.whenIdle();
    assert.deepStrictEqual(reasons(a), ['aborted:user']);
    assert.ok(a.log.events.some((e) => e.type === 'interrupt' && e.authority === 'user'));
    assert.strictEqual(b.status, 'running', 'no descendant cascade');
    assert.strictEqual(s.status, 'running', 'sibling untouched');
    assert.strictEqual(runtime.agents.isLive(a), true, 'the stopped child survives (it is not settled)');
  });

  it('user authority needs the durable parent address and works while the parent agent is offline', async () => {
    const { runtime, root, a, b } = await family();
    track(runtime);
    expectUnauthorized(() => runtime.subagents.interrupt(b.id, { kind: 'user', parentSessionId: root.id }));
    assert.strictEqual(b.status, 'running');
    // Take the parent agent offline: its live children stay reachable by address.
    root.dispose();
    runtime.agents.remove(root);
    assert.strictEqual(runtime.agents.get(root.id), undefined);
    runtime.subagents.interrupt(a.id, { kind: 'user', parentSessionId: root.id });
    await a.whenIdle();
    assert.deepStrictEqual(reasons(a), ['aborted:user']);
  });

  it('ancestor authority: direct parent and deep ancestor, with cause parent', async () => {
    const { runtime, root, a, b } = await family();
    track(runtime);
    runtime.subagents.interrupt(b.id, { kind: 'ancestor', agent: root });
    await b.whenIdle();
    assert.deepStrictEqual(reasons(b), ['aborted:parent'], 'deep ancestor');
    assert.ok(b.log.events.some((e) => e.type === 'interrupt' && e.authority === 'ancestor' && e.by === root.id));
    runtime.subagents.interrupt(a.id, { kind: 'ancestor', agent: root });
    await a.whenIdle();
    assert.deepStrictEqual(reasons(a), ['aborted:parent'], 'direct parent');
  });

  it('rejects self, sibling, stale and non-ancestor callers without touching the target', async () => {
    const { runtime, root, a, b, s, aborts } = await family();
    track(runtime);
    expectUnauthorized(() => runtime.subagents.interrupt(a.id, { kind: 'ancestor', agent: a }));
    expectUnauthorized(() => runtime.subagents.interrupt(a.id, { kind: 'ancestor', agent: s }));
    expectUnauthorized(() => runtime.subagents.interrupt(a.id, { kind: 'ancestor', agent: b }));
    // A stale object reusing a live id is not live, and is rejected even for an absent target.
    const stale = Object.create(Object.getPrototypeOf(root), { id: { value: root.id } }) as Agent;
    expectUnauthorized(() => runtime.subagents.interrupt(a.id, { kind: 'ancestor', agent: stale }));
    expectUnauthorized(() => runtime.subagents.interrupt('no-such-agent', { kind: 'ancestor', agent: stale }));
    expectUnauthorized(() => runtime.subagents.interrupt(a.id, { kind: 'user', parentSessionId: s.id }));
    await tick(5);
    assert.strictEqual(aborts.length, 0);
    assert.deepStrictEqual([a.status, b.status, s.status], ['running', 'running', 'running']);
    assert.strictEqual(a.pendingCount, 0);
  });

  it('absent, one-shot and settled targets are accepted no-ops', async () => {
    const { runtime, root } = await family();
    track(runtime);
    assert.deepStrictEqual(runtime.subagents.interrupt('unknown', { kind: 'user', parentSessionId: root.id }), { accepted: true });
    assert.deepStrictEqual(runtime.subagents.interrupt('unknown', { kind: 'ancestor', agent: root }), { accepted: true });
    await runtime.dispose();

    const fx = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [start('kid')] }, { text: 'x' }]], afterLastTurn: 'repeat-last' }, kid: { turns: [[{ text: 'done' }]] } },
    });
    track(fx.runtime);
    const r2 = fx.runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(fx.runtime, () => fx.runtime.agents.size === 1 && r2.status === 'idle', 'the kid to settle');
    const kidId = JSON.parse(toolResults(r2)[0].content).agent_id;
    assert.deepStrictEqual(fx.runtime.subagents.interrupt(kidId, { kind: 'ancestor', agent: r2 }), { accepted: true });
    assert.strictEqual(fx.runtime.agents.size, 1, 'no cold resume');
  });

  it('a target whose disposal is under way is an accepted no-op without a second signal', async () => {
    const { runtime, root, a } = await family();
    track(runtime);
    let signals = 0;
    const original = a.cancel.bind(a);
    a.cancel = (cause, options) => {
      signals++;
      return original(cause, options);
    };
    // Ending the child opens its disposal at once; the release itself runs later, serialized.
    const ending = runtime.end(a);
    assert.strictEqual(runtime.subagents.get(a.id)?.disposing, true, 'the Activation is still there, disposing');
    assert.deepStrictEqual(runtime.subagents.interrupt(a.id, { kind: 'user', parentSessionId: root.id }), { accepted: true });
    assert.deepStrictEqual(runtime.subagents.interrupt(a.id, { kind: 'ancestor', agent: root }), { accepted: true });
    assert.strictEqual(signals, 0, 'the interrupts issued no signal of their own');
    await ending;
    await a.whenIdle();
    assert.deepStrictEqual(reasons(a), ['aborted:disposed'], 'one abort, from the disposal');
  });

  it('interrupt_agent tool: the calling agent is the ancestor authority', async () => {
    const fx = makeRuntime({
      version: 1,
      agents: {
        main: {
          turns: [[{ toolCalls: [start('a')] }, { delayMs: 20, toolCalls: [{ name: 'interrupt_agent', arguments: { agent_id: '{{agent:a}}' } }] }, { text: 'stopped it' }]],
        },
        a: { turns: [[{ hang: true }]] },
      },
    });
    track(fx.runtime);
    const root = fx.runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    const a = childByLabel(fx.runtime, 'a');
    await a.whenIdle();
    assert.deepStrictEqual(reasons(a), ['aborted:parent']);
    assert.match(toolResults(root)[1].content, /"accepted":true/);
  });

  it('a stopped child with a queued message keeps it parked until a waking send, then FIFO', async () => {
    const fx = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('a')] }, { text: 'x' }]], afterLastTurn: 'repeat-last' },
        a: { turns: [[{ hang: true }], [{ text: 'queued one' }], [{ text: 'wake' }]] },
      },
    });
    track(fx.runtime);
    const root = fx.runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(fx.runtime, () => fx.runtime.agents.size === 2 && root.status === 'idle', 'child running');
    const a = childByLabel(fx.runtime, 'a');
    await fx.runtime.subagents.deliver(root, a.id, 'follow-up');
    fx.runtime.stop(a);
    await a.whenIdle();
    await tick(10);
    assert.strictEqual(a.isParked, true);
    assert.strictEqual(a.status, 'idle');
    assert.strictEqual(fx.runtime.agents.isLive(a), true);
    await fx.runtime.subagents.deliver(root, a.id, 'wake up');
    await whenState(fx.runtime, () => reasons(a).length === 3, 'resumed turns');
    assert.deepStrictEqual(reasons(a), ['aborted:user', 'completed', 'completed']);
    assert.deepStrictEqual(userMessages(a), ['work', 'follow-up', 'wake up']);
  });
});

describe('listing', () => {
  const track = disposeAfterEach();
  it('listDescendants walks in pre-order with parentId and depth, siblings by creation then id', async () => {
    const { runtime, root, a, b, s } = await family();
    track(runtime);
    const all = listDescendants(runtime.agents, root);
    assert.deepStrictEqual(
      all.map((x) => [x.id, x.parentId, x.depth]),
      [
        [a.id, root.id, 1],
        [b.id, a.id, 2],
        [s.id, root.id, 1],
      ],
    );
    const children = listDescendants(runtime.agents, root, { maxDepth: 1 });
    assert.deepStrictEqual(children.map((x) => x.id), [a.id, s.id]);
  });

  it('list_agents omits one-shot intermediates and shows the continuable agents beneath them', async () => {
    const fx = makeRuntime({
      version: 1,
      agents: {
        main: {
          turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'mid', prompt: 'x' } }] }, { text: 'x' }]],
        },
        mid: { turns: [[{ toolCalls: [start('deep')] }, { hang: true }]] },
        deep: { turns: [[{ hang: true }]] },
      },
    });
    track(fx.runtime);
    const root = fx.runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(fx.runtime, () => fx.runtime.agents.size === 3, 'three agents');
    const deep = childByLabel(fx.runtime, 'deep');
    const listed = listDescendants(fx.runtime.agents, root, { omitOneShot: true });
    assert.deepStrictEqual(listed.map((x) => [x.id, x.parentId, x.depth]), [[deep.id, root.id, 1]]);
    // The root is an ancestor of the continuable grandchild through the one-shot holder.
    fx.runtime.subagents.interrupt(deep.id, { kind: 'ancestor', agent: root });
    await deep.whenIdle();
    assert.deepStrictEqual(reasons(deep), ['aborted:parent']);
  });
});

describe('ending agents', () => {
  const track = disposeAfterEach();
  it('ending a continuable child releases it, leaves its own children running, and later interrupts are no-ops', async () => {
    const { runtime, root, a, b } = await family();
    track(runtime);
    await runtime.end(a);
    assert.strictEqual(runtime.agents.isLive(a), false);
    await a.whenIdle();
    assert.deepStrictEqual(reasons(a), ['aborted:disposed']);
    assert.strictEqual(b.status, 'running', 'the grandchild lives on with its parent offline');
    assert.deepStrictEqual(runtime.subagents.interrupt(a.id, { kind: 'user', parentSessionId: root.id }), { accepted: true });
    await runtime.end(root);
    assert.strictEqual(runtime.agents.isLive(root), false);
    assert.throws(() => runtime.sendFromUser(root, 'x'), (e: unknown) => isArborError(e, 'AGENT_DISPOSED'));
  });
});

describe('reports and Stop', () => {
  const track = disposeAfterEach();
  it("a child's report does not restart a parent the user stopped; it waits for the next waking send", async () => {
    const fx = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid')] }, { hang: true }], [{ text: 'queued one' }], [{ text: 'woken' }]] },
        kid: { turns: [[{ delayMs: 30, text: 'kid result' }]] },
      },
    });
    track(fx.runtime);
    const root = fx.runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(fx.runtime, () => fx.runtime.agents.size === 2 && fx.aborts.length === 0 && root.status === 'running', 'the kid to start');
    root.send('later', { from: 'user', wake: false });
    fx.runtime.stop(root);
    await root.whenIdle();
    assert.strictEqual(root.isParked, true);
    await whenState(fx.runtime, () => fx.runtime.agents.size === 1, 'the kid to report and settle');
    await tick(10);
    assert.strictEqual(root.status, 'idle', 'the report did not restart the stopped parent');
    assert.strictEqual(root.pendingCount, 2, 'the report waits in the parked queue');
    fx.runtime.sendFromUser(root, 'go on');
    await whenState(fx.runtime, () => reasons(root).length === 3 && root.status === 'idle', 'the queue to run');
    // FIFO: the parked message, the report (joining that turn at its first step), then the new one.
    assert.deepStrictEqual(userMessages(root)[1], 'later');
    assert.match(userMessages(root)[2], /Report from subagent "kid"/);
    assert.deepStrictEqual(userMessages(root)[3], 'go on');
  });
});

describe('a parent that has ended', () => {
  const track = disposeAfterEach();
  const expectDisposed = (fn: () => unknown): void => assert.throws(fn, (e: unknown) => isArborError(e, 'AGENT_DISPOSED'));

  it('startContinuable refuses an ended root with AGENT_DISPOSED and creates no child', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    await runtime.end(root);
    expectDisposed(() => runtime.startContinuable(root, 'orphan', 'work'));
    assert.strictEqual(runtime.agents.size, 0, 'no child was registered');
    assert.strictEqual(runtime.subagents.liveContinuableCount(), 0);
  });

  it('startContinuable refuses a continuable parent whose End has begun, and one that has ended', async () => {
    const { runtime, a } = await family();
    track(runtime);
    const before = runtime.agents.size;
    const ending = runtime.end(a);
    assert.strictEqual(runtime.subagents.get(a.id)?.disposing, true, 'the End has begun, the release is still to come');
    expectDisposed(() => runtime.startContinuable(a, 'orphan', 'work'));
    assert.strictEqual(runtime.agents.size, before, 'no child while the End is under way');
    await ending;
    const after = runtime.agents.size;
    expectDisposed(() => runtime.startContinuable(a, 'orphan', 'work'));
    assert.strictEqual(runtime.agents.size, after, 'no child after the End');
    assert.ok(!runtime.agents.all().some((x) => x.label === 'orphan'));
  });

  it('a one-shot for an ended parent is refused the same way', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    await runtime.end(root);
    assert.throws(() => void runtime.runOneShot(root, 'orphan', 'work', new AbortController().signal), (e: unknown) => isArborError(e, 'AGENT_DISPOSED'));
    assert.strictEqual(runtime.agents.size, 0);
  });
});
