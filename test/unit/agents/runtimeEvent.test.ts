import * as assert from 'node:assert/strict';
import { Runtime, type RuntimeEvent } from '../../../src/core';
import { ScriptedModel } from '../../../src/core/models/scriptedModel';
import type { Agent } from '../../../src/core/agents/agent';
import { RuntimeEventChannel, runtimeEventName, runtimeEventNamesBut } from '../../../src/core/agents/runtimeEvent';
import { forged } from '../../support/forged';

// The channel reads nothing of the agent: an id stands in for it.
const agent = forged<Agent>({ id: 'a' });
const added: RuntimeEvent = { type: 'agent_added', agent };
const status: RuntimeEvent = { type: 'agent_changed', agent, change: { type: 'status' } };
const turnEnd: RuntimeEvent = { type: 'agent_changed', agent, change: { type: 'turn_end', end: { turn: 1, reason: 'completed', finalText: 'done' } } };

describe('runtime event channel', () => {
  it('reaches a listener only with the names it asked for, and every listener in the order they subscribed', () => {
    const channel = new RuntimeEventChannel();
    const heard: string[] = [];
    channel.on((e) => heard.push(`all:${runtimeEventName(e)}`));
    channel.onEvents(['turn_end'], (e) => heard.push(`ends:${e.change.end.reason}`));
    channel.onEvents(['agent_added', 'status'], (e) => heard.push(`some:${runtimeEventName(e)}`));
    channel.on((e) => heard.push(`last:${runtimeEventName(e)}`));
    for (const e of [added, status, turnEnd]) channel.fire(e);
    assert.deepEqual(heard, [
      'all:agent_added', 'some:agent_added', 'last:agent_added',
      'all:status', 'some:status', 'last:status',
      'all:turn_end', 'ends:completed', 'last:turn_end',
    ]);
  });

  it('says whether a name has anyone to reach, as listeners come and go', () => {
    const channel = new RuntimeEventChannel();
    assert.equal(channel.wants('status'), false);
    const ends = channel.onEvents(['turn_end'], () => undefined);
    assert.equal(channel.wants('turn_end'), true);
    assert.equal(channel.wants('status'), false);
    const all = channel.on(() => undefined);
    assert.equal(channel.wants('status'), true);
    all.dispose();
    assert.equal(channel.wants('status'), false);
    ends.dispose();
    ends.dispose();
    assert.equal(channel.wants('turn_end'), false);
  });

  it('names every event but those left out, for a listener that hears nearly all', () => {
    const channel = new RuntimeEventChannel();
    channel.onEvents(runtimeEventNamesBut('log', 'activity'), () => undefined);
    assert.equal(channel.wants('log'), false);
    assert.equal(channel.wants('activity'), false);
    for (const name of ['agent_added', 'agent_removed', 'status', 'turn_end', 'usage', 'disposed'] as const) assert.equal(channel.wants(name), true, name);
  });

  it('finishes a fire with the listeners it started with when one unsubscribes another', () => {
    const channel = new RuntimeEventChannel();
    const heard: string[] = [];
    const second = { dispose: (): void => undefined };
    channel.onEvents(['status'], () => {
      heard.push('first');
      second.dispose();
    });
    second.dispose = channel.onEvents(['status'], () => heard.push('second')).dispose;
    channel.fire(status);
    channel.fire(status);
    assert.deepEqual(heard, ['first', 'second', 'first']);
  });

  it('reports a listener that throws and still reaches the others', () => {
    const problems: string[] = [];
    const channel = new RuntimeEventChannel((problem) => void problems.push(problem));
    const heard: string[] = [];
    channel.onEvents(['status'], () => {
      throw new Error('boom');
    });
    channel.onEvents(['status'], () => heard.push('after'));
    channel.fire(status);
    assert.deepEqual(heard, ['after']);
    assert.equal(problems.length, 1);
  });

  it("a runtime's listener of turn ends hears each turn end of a fan-out and none of the agents' other changes", async () => {
    const usage = { inputTokens: 1, outputTokens: 1 };
    const calls = [0, 1, 2].map((i) => ({ name: 'delegate_task', arguments: { label: 'worker', prompt: `task ${i}` } }));
    const model = new ScriptedModel({
      version: 1,
      agents: {
        root: { turns: [[{ toolCalls: calls, usage }, { text: 'all done', usage }]] },
        worker: { turns: [[{ text: 'done', usage }]] },
      },
    });
    const runtime = new Runtime({ model });
    try {
      const ends: string[] = [];
      const all: string[] = [];
      runtime.onEvents(['turn_end'], (e) => ends.push(`${e.agent.label}:${e.change.end.reason}`));
      runtime.onEvent((e) => all.push(runtimeEventName(e)));
      const root = runtime.startRoot({ prompt: 'fan out', label: 'root' });
      await root.whenIdle();
      assert.deepEqual([...ends].sort(), ['root:completed', 'worker:completed', 'worker:completed', 'worker:completed']);
      // The listener of everything heard the rest: the channel filed, it did not drop.
      assert.equal(all.filter((n) => n === 'turn_end').length, 4);
      assert.ok(all.filter((n) => n !== 'turn_end').length > 20, `only ${all.length} events`);
    } finally {
      await runtime.dispose();
    }
  });
});
