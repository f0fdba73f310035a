import * as assert from 'assert';
import * as z from 'zod';
import type { Agent } from '../../../src/core/agents/agent';
import { defineTool, type RuntimeTool } from '../../../src/core/tools';
import { childByLabel, makeRuntime, reasons, tick, until, userMessages } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const start = (label: string, prompt = 'work') => ({ name: 'start_subagent', arguments: { label, prompt } });
const hangForever = { turns: [[{ hang: true }]], afterLastTurn: 'repeat-last' as const };

/** A tool that waits for the test to open its gate, then does `after` (ignoring its turn's abort, as a slow tool may). */
function gatedTool(name: string, after: (ctx: Parameters<RuntimeTool['run']>[1]) => Promise<unknown> | unknown) {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let started = false;
  let done = false;
  const tool = defineTool({
    name,
    description: 'waits, then acts',
    schema: () => z.object({}),
    async run(_args, ctx) {
      started = true;
      await gate;
      await after(ctx);
      done = true;
      return { content: 'done' };
    },
  }) as RuntimeTool;
  return { tool, open: () => open(), isStarted: () => started, isDone: () => done };
}

const find = (runtime: { agents: { all(): Agent[] } }, label: string): Agent | undefined => runtime.agents.all().find((x) => x.label === label);

/**
 * lead -> a (continuable, running) -> a1 (continuable, running)
 *      -> b (continuable, idle) -> b1 (continuable, running)
 *      -> once (one-shot, running inside lead's turn)
 * other (another root, running)
 */
async function forest() {
  const fx = makeRuntime({
    version: 1,
    agents: {
      lead: {
        turns: [[{ toolCalls: [start('a'), start('b')] }, { toolCalls: [{ name: 'delegate_task', arguments: { label: 'once', prompt: 'x' } }] }, { text: 'lead done' }]],
        afterLastTurn: 'repeat-last',
      },
      a: { turns: [[{ toolCalls: [start('a1')] }, { hang: true }]], afterLastTurn: 'repeat-last' },
      a1: hangForever,
      b: { turns: [[{ toolCalls: [start('b1')] }, { text: 'b waits for b1' }], [{ hang: true }]], afterLastTurn: 'repeat-last' },
      b1: hangForever,
      once: hangForever,
      other: hangForever,
    },
  });
  const { runtime } = fx;
  const lead = runtime.startRoot({ prompt: 'go', label: 'lead' });
  const other = runtime.startRoot({ prompt: 'go', label: 'other' });
  await whenState(runtime, () => ['a', 'a1', 'b1', 'once'].every((l) => find(runtime, l)?.status === 'running'), 'the branch to run');
  const [a, a1, b, b1, once] = ['a', 'a1', 'b', 'b1', 'once'].map((l) => childByLabel(runtime, l));
  await whenState(runtime, () => b.status === 'idle' && reasons(b).length === 1, 'b to finish its first turn');
  return { ...fx, lead, other, a, a1, b, b1, once };
}

describe('Stop All Below (runtime.stopBranch)', () => {
  const track = disposeAfterEach();
  it('stops the agent and every live descendant; nothing outside the branch is touched', async () => {
    const { runtime, lead, other, a, a1, b, b1, once } = await forest();
    track(runtime);
    await runtime.subagents.deliver(lead, a.id, 'queued for a');
    const result = runtime.stopBranch(lead);
    assert.strictEqual(result.accepted, true);
    assert.deepStrictEqual(new Set(result.agentIds), new Set([lead, a, a1, b, b1, once].map((x) => x.id)), 'the whole branch, and only it');
    assert.strictEqual(result.agentIds[0], lead.id, 'top first');
    assert.deepStrictEqual(new Set(result.interrupted), new Set([lead.id, a.id, a1.id, b1.id]), 'the one-shot is stopped through its holder, the idle child has no turn');
    await Promise.all([lead, a, a1, b1].map((x) => x.whenIdle()));
    await whenState(runtime, () => !runtime.agents.isLive(once), 'the one-shot to end with the turn that held it');
    assert.deepStrictEqual(reasons(lead), ['aborted:user']);
    assert.deepStrictEqual(reasons(a), ['aborted:user']);
    assert.deepStrictEqual(reasons(a1), ['aborted:user']);
    assert.deepStrictEqual(reasons(b1), ['aborted:user']);
    assert.deepStrictEqual(reasons(b), ['completed'], 'an idle agent has no turn to stop');
    assert.deepStrictEqual(reasons(once), ['aborted:parent'], 'the one-shot ends through the turn that held it');
    for (const x of [lead, a, a1]) assert.ok(x.log.events.some((e) => e.type === 'interrupt' && e.authority === 'user'), `${x.label} records the user's interrupt`);
    assert.strictEqual(other.status, 'running', 'another root keeps running');
    assert.strictEqual(other.stopping, undefined);
    for (const x of [lead, a, a1, b, b1]) {
      assert.strictEqual(runtime.agents.isLive(x), true, `${x.label} keeps living, with its conversation`);
      assert.strictEqual(x.isHeld, true, `${x.label} stays stopped`);
    }
    assert.strictEqual(a.isParked, true, "a's queued message is parked, exactly like Stop");
    assert.ok(a.pendingCount >= 1);
    assert.ok(a.conversation.length > 0, 'the conversation is kept');
  });

  it('after it no agent of the branch calls its model again, and a report does not wake a stopped parent', async () => {
    const { runtime, lead, a, a1, b, b1, calls } = await forest();
    track(runtime);
    runtime.stopBranch(lead);
    await Promise.all([lead, a, a1, b1].map((x) => x.whenIdle()));
    // a1's aborted report reaches a, a's and b1's reach lead and b: they only queue, even on b's empty queue.
    await whenState(runtime, () => a.pendingCount >= 1 && b.pendingCount >= 1 && lead.pendingCount >= 1, 'the reports to arrive');
    const before = calls.length;
    await tick(20);
    for (const x of [lead, a, a1, b, b1]) assert.strictEqual(x.status, 'idle', `${x.label} did not restart by itself`);
    assert.strictEqual(calls.length, before, 'no model call after the stop');
  });

  it("a report from a child that finished just as the branch stopped does not restart the idle parent", async () => {
    const fx = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid')] }, { text: 'waiting for kid' }], [{ text: 'woken' }]] },
        kid: { turns: [[{ delayMs: 20, text: 'kid result' }]] },
      },
    });
    const { runtime } = fx;
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 2 && root.status === 'idle', 'main to wait for kid, idle');
    const kid = childByLabel(runtime, 'kid');
    // The user's Stop All Below lands between the kid's turn end and its report to the parent.
    runtime.onEvent((e) => {
      if (e.type === 'agent_changed' && e.agent === kid && e.change.type === 'turn_end') runtime.stopBranch(root);
    });
    await whenState(runtime, () => root.pendingCount === 1, 'the report to reach main');
    await tick(20);
    assert.strictEqual(root.status, 'idle', 'the report did not wake the stopped parent');
    assert.deepStrictEqual(reasons(root), ['completed']);
    assert.strictEqual(root.isParked, true, 'the report waits in the parked queue');
    // The user's own message resumes it: the report first, then the message, in order.
    runtime.sendFromUser(root, 'carry on');
    await whenState(runtime, () => reasons(root).length >= 2 && root.status === 'idle' && root.pendingCount === 0, 'main to run its queue');
    assert.match(userMessages(root)[1], /Report from subagent "kid"/);
    assert.ok(userMessages(root).includes('carry on'));
  });

  it('a child the user resumes by hand reports to its stopped parent without waking it', async () => {
    const fx = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid')] }, { text: 'started' }], [{ hang: true }], [{ text: 'woken' }]] },
        kid: { turns: [[{ toolCalls: [start('gk')] }, { delayMs: 30, text: 'kid first' }], [{ text: 'kid second' }]], afterLastTurn: 'repeat-last' },
        gk: hangForever,
      },
    });
    const { runtime } = fx;
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    // main's second turn (woken by kid's first report) runs with an empty queue.
    await whenState(runtime, () => reasons(root).length === 1 && root.status === 'running' && find(runtime, 'gk')?.status === 'running', 'main to run its second turn');
    const kid = childByLabel(runtime, 'kid');
    await whenState(runtime, () => kid.status === 'idle' && root.pendingCount === 0, "kid's report to be taken");
    runtime.stopBranch(root);
    await root.whenIdle();
    runtime.sendFromUser(kid, 'go on');
    await whenState(runtime, () => reasons(kid).length >= 2 && kid.status === 'idle' && root.pendingCount >= 1, "kid's second report to reach main");
    await tick(20);
    assert.strictEqual(root.status, 'idle', 'the stopped parent stays stopped');
    assert.deepStrictEqual(reasons(root), ['completed', 'aborted:user']);
    assert.strictEqual(root.isParked, true);
  });

  it('a child created while the branch stops is stopped too', async () => {
    const fx = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [start('kid')] }, { hang: true }]] }, kid: hangForever, late: hangForever },
    });
    const { runtime, calls } = fx;
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => find(runtime, 'kid')?.status === 'running' && root.status === 'running', 'kid to run');
    let late: Agent | undefined;
    // Something reacting to the stop (a listener, here) starts a child of the stopping parent.
    const sub = runtime.onEvent((e) => {
      if (!late && e.type === 'agent_changed' && e.agent === root && root.stopping) late = runtime.startContinuable(root, 'late', 'work');
    });
    runtime.stopBranch(root);
    sub.dispose();
    assert.ok(late, 'the child was created during the stop');
    await root.whenIdle();
    await tick(10);
    assert.strictEqual(late.status, 'idle', 'the late child never started');
    assert.strictEqual(late.isHeld, true);
    assert.strictEqual(late.pendingCount, 1, 'its task waits in its parked queue');
    assert.ok(!calls.some((c) => c.agentLabel === 'late'), 'the late child made no model call');
  });

  it("a tool call the stopped turn had begun cannot start or wake children after the stop", async () => {
    let kidId = '';
    const starter = gatedTool('slow_start', (ctx) => ctx.runtime.startContinuable(ctx.agent, 'late', 'work'));
    const sender = gatedTool('slow_send', (ctx) => ctx.runtime.subagents.deliver(ctx.agent, kidId, 'wake up'));
    const fx = makeRuntime(
      {
        version: 1,
        agents: {
          main: { turns: [[{ toolCalls: [start('kid')] }, { toolCalls: [{ name: 'slow_start', arguments: {} }, { name: 'slow_send', arguments: {} }] }]] },
          kid: { turns: [[{ toolCalls: [start('gk')] }, { text: 'kid waits for gk' }]], afterLastTurn: 'repeat-last' },
          gk: hangForever,
          late: hangForever,
        },
      },
      { tools: [starter.tool, sender.tool] },
    );
    const { runtime, calls } = fx;
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => starter.isStarted() && sender.isStarted() && find(runtime, 'gk')?.status === 'running', 'the slow tools and gk to start');
    const kid = childByLabel(runtime, 'kid');
    kidId = kid.id;
    await whenState(runtime, () => kid.status === 'idle' && reasons(kid).length === 1, 'kid to finish its turn');
    runtime.stopBranch(root);
    await root.whenIdle();
    starter.open();
    sender.open();
    await until(() => starter.isDone() && sender.isDone(), 'the slow tools to finish after the stop');
    await tick(10);
    const late = childByLabel(runtime, 'late');
    assert.strictEqual(late.status, 'idle', 'a child created by the stopped turn does not run');
    assert.strictEqual(late.isHeld, true);
    assert.strictEqual(kid.status, 'idle', 'a message from the stopped turn does not wake its child');
    assert.strictEqual(kid.pendingCount, 2, "the message waits in its parked queue, with gk's report");
    assert.deepStrictEqual(reasons(kid), ['completed']);
    assert.ok(!calls.some((c) => c.agentLabel === 'late'));
    assert.strictEqual(root.status, 'idle');
  });

  it('on a one-shot node stops the one-shot (its holder gets the partial result) and leaves the holder running', async () => {
    const fx = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'once', prompt: 'x' } }] }, { hang: true }]] },
        once: hangForever,
      },
    });
    const { runtime } = fx;
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 2, 'the one-shot to run');
    const once = childByLabel(runtime, 'once');
    const result = runtime.stopBranch(once.id);
    assert.deepStrictEqual(result.interrupted, [once.id]);
    await whenState(runtime, () => !runtime.agents.isLive(once), 'the one-shot to end');
    assert.deepStrictEqual(reasons(once), ['aborted:user']);
    assert.strictEqual(root.status, 'running', 'its holder, outside the branch, keeps its turn');
    assert.strictEqual(root.stopping, undefined);
  });

  it('an agent that is not live is an accepted no-op', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: {} });
    track(runtime);
    assert.deepStrictEqual(runtime.stopBranch('nobody#1'), { accepted: true, agentIds: [], interrupted: [] });
  });
});

describe('Stop All (runtime.stopAll)', () => {
  const track = disposeAfterEach();
  it('stops every live agent of every root; each resumes only on a waking message of its own', async () => {
    const { runtime, lead, other, a, a1, b, b1, calls } = await forest();
    track(runtime);
    const result = runtime.stopAll();
    assert.ok([lead, other, a, a1, b, b1].every((x) => result.agentIds.includes(x.id)));
    await Promise.all([lead, other, a, a1, b1].map((x) => x.whenIdle()));
    assert.deepStrictEqual(reasons(other), ['aborted:user']);
    await whenState(runtime, () => runtime.agents.all().every((x) => x.kind !== 'one-shot'), 'the one-shot to end');
    await tick(10);
    const before = calls.length;
    for (const x of runtime.agents.all()) assert.strictEqual(x.status, 'idle', `${x.label} is stopped`);
    runtime.sendFromUser(other, 'go on');
    await whenState(runtime, () => other.status === 'running', 'other to resume');
    assert.strictEqual(other.isHeld, false);
    assert.strictEqual(lead.status, 'idle', 'the others stay stopped');
    assert.ok(calls.slice(before).every((c) => c.agentLabel === 'other'));
  });
});
