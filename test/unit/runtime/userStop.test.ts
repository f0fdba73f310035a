import * as assert from 'node:assert/strict';
import type { Agent } from '../../../src/core/agents/agent';
import { childByLabel, makeRuntime, reasons, toolResults } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const start = (label: string, prompt = 'work') => ({ name: 'start_subagent', arguments: { label, prompt } });

/** main -> kid (continuable, running until stopped) -> grandkid (continuable, running). */
async function family() {
  const fx = makeRuntime({
    version: 1,
    agents: {
      main: { turns: [[{ toolCalls: [start('kid')] }, { text: 'started' }]], afterLastTurn: 'repeat-last' },
      kid: { turns: [[{ toolCalls: [start('grandkid')] }, { hang: true }]] },
      grandkid: { turns: [[{ hang: true }]] },
    },
  });
  const main = fx.runtime.startRoot({ prompt: 'go', label: 'main' });
  await whenState(fx.runtime, () => fx.runtime.agents.size === 3 && childByLabel(fx.runtime, 'grandkid').status === 'running' && main.status === 'idle', 'the family');
  return { ...fx, main, kid: childByLabel(fx.runtime, 'kid'), grandkid: childByLabel(fx.runtime, 'grandkid') };
}

describe("the user's Stop (runtime.stop) is authorised by the live agent it is given", () => {
  const track = disposeAfterEach();
  it('stops only that turn, queue parked, without its parent being live and without cascading', async () => {
    const { runtime, main, kid, grandkid } = await family();
    track(runtime);
    kid.send('later', { from: 'user', wake: false });
    // The parent goes offline: the user still holds the child, which is the authority.
    main.dispose();
    runtime.agents.remove(main);
    assert.deepEqual(runtime.stop(kid), { accepted: true });
    await kid.whenIdle();
    assert.deepEqual(reasons(kid), ['aborted:user']);
    assert.ok(kid.log.events.some((e) => e.type === 'interrupt' && e.authority === 'user'));
    assert.equal(kid.isParked, true, 'its queue waits for a waking message');
    assert.equal(kid.pendingCount, 1);
    assert.equal(grandkid.status, 'running', 'no descendant cascade');
  });

  it('a stale agent object whose session a live agent has taken up again stops nothing', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid')] }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
        kid: { turns: [[{ text: 'first' }], [{ hang: true }]] },
      },
    });
    track(runtime);
    const kids: Agent[] = [];
    runtime.onEvent((e) => {
      if (e.type === 'agent_added' && e.agent.label === 'kid') kids.push(e.agent);
    });
    const main = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => kids.length === 1 && !runtime.agents.isLive(kids[0]) && main.status === 'idle', 'the kid to report and settle');
    const kidId = JSON.parse(toolResults(main)[0].content).agent_id as string;
    assert.deepEqual(await runtime.subagents.deliver(main, kidId, 'again'), { agentId: kidId, resumed: true });
    const [stale, live] = kids;
    assert.notEqual(stale, live);
    assert.equal(live.id, stale.id, 'the same session, resumed in a new agent');
    await whenState(runtime, () => live.status === 'running', 'the resumed turn');
    // A node the tree showed before the kid settled, clicked late: it names the old object.
    assert.deepEqual(runtime.stop(stale), { accepted: true });
    assert.equal(live.status, 'running');
    assert.equal(live.stopping, undefined, 'the live agent with that id was not signalled');
    assert.ok(!live.log.events.some((e) => e.type === 'interrupt'), 'nothing was recorded as an interrupt');
    runtime.stop(live);
    await live.whenIdle();
    assert.deepEqual(reasons(live).at(-1), 'aborted:user');
  });

  it('a continuable agent whose end is under way is an accepted no-op without a signal of its own', async () => {
    const { runtime, kid } = await family();
    track(runtime);
    let signals = 0;
    const original = kid.cancel.bind(kid);
    kid.cancel = (cause, options) => {
      signals++;
      return original(cause, options);
    };
    const ending = runtime.end(kid);
    assert.equal(runtime.subagents.get(kid.id)?.disposing, true, 'the Activation is still there, disposing');
    assert.deepEqual(runtime.stop(kid), { accepted: true });
    assert.equal(signals, 0);
    await ending;
    await kid.whenIdle();
    assert.deepEqual(reasons(kid), ['aborted:disposed'], 'one abort, from the end');
  });

  it('an id from outside still needs the durable parent address (subagents.interrupt)', async () => {
    const { runtime, main, kid, grandkid } = await family();
    track(runtime);
    assert.throws(() => runtime.subagents.interrupt(grandkid.id, { kind: 'user', parentSessionId: main.id }), (e: unknown) => (e as { code?: string }).code === 'SUBAGENT_UNAUTHORIZED');
    assert.equal(grandkid.status, 'running');
    assert.deepEqual(runtime.subagents.interrupt(grandkid.id, { kind: 'user', parentSessionId: kid.id }), { accepted: true });
    await grandkid.whenIdle();
    assert.deepEqual(reasons(grandkid), ['aborted:user']);
  });
});
