import * as assert from 'node:assert/strict';
import { RESUME_NOTE, type BudgetEvent } from '../../../src/core/budgets';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { Runtime } from '../../../src/core/runtime';
import type { Agent } from '../../../src/core/agents/agent';
import { reasons, recordingModel, userMessages } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const NONE = { inputTokens: 0, outputTokens: 0 };
const start = (label: string) => ({ name: 'start_subagent', arguments: { label, prompt: 'work' } });

/**
 * The root starts three children that hang, then its next reply spends the run's 10 tokens: the
 * root is the agent whose reply crossed the limit (not cancelled, so its reply stays whole), and
 * the children's reports arrive while its paused turn closes.
 */
const script: ModelScript = {
  version: 1,
  agents: {
    main: {
      turns: [
        [
          { toolCalls: [start('a'), start('b'), start('c')], usage: NONE },
          { delayMs: 5, toolCalls: [{ name: 'list_agents', arguments: {} }], usage: { inputTokens: 10, outputTokens: 0 } },
        ],
        [{ text: 'main goes on', usage: NONE }],
      ],
      afterLastTurn: 'repeat-last',
    },
    '*': { turns: [[{ hang: true }], [{ text: 'child goes on', usage: NONE }]] },
  },
};

/** The same tree, but the reply that spends the budget calls no tool: its turn completes. */
const answering: ModelScript = {
  ...script,
  agents: {
    ...script.agents,
    main: {
      turns: [
        [
          { toolCalls: [start('a'), start('b'), start('c')], usage: NONE },
          { delayMs: 5, text: 'waiting for the children', usage: { inputTokens: 10, outputTokens: 0 } },
        ],
        [{ text: 'main goes on', usage: NONE }],
      ],
      afterLastTurn: 'repeat-last',
    },
  },
};

function pausedRuntime(s: ModelScript) {
  const { model } = recordingModel(s);
  let n = 0;
  const runtime = new Runtime({ model, limits: { maxTokens: 10 }, newId: (label) => `${label}#${++n}` });
  const events: BudgetEvent[] = [];
  runtime.budgets.onEvent((e) => events.push(e));
  return { runtime, events, root: runtime.startRoot({ prompt: 'go', label: 'main' }) };
}

function turnStarts(agent: Agent): number {
  return agent.log.events.filter((e) => e.type === 'turn_start').length;
}

function childReports(agent: Agent): string[] {
  return agent.log.events.flatMap((e) => (e.type === 'queued' && e.from === 'child' ? [e.text] : []));
}

describe('run budgets: the queue of the agent whose reply spent the budget', () => {
  const track = disposeAfterEach();
  it('is parked like every other agent of the paused run, and the raise runs it in order', async () => {
    const { runtime, events, root } = pausedRuntime(script);
    track(runtime);
    await whenState(runtime.budgets, () => events.some((e) => e.type === 'paused'), 'the run to pause');
    const kids = runtime.agents.all().filter((a) => a !== root);
    assert.equal(kids.length, 3);
    await whenState(runtime, () => root.status === 'idle' && kids.every((k) => k.status === 'idle'), 'every agent to stop');
    await whenState(runtime, () => childReports(root).length === 3 && root.status === 'idle', "the children's three reports to reach the root");
    assert.equal(turnStarts(root), 1, 'no report starts a turn of the paused root');
    assert.equal(root.pendingCount, 3, 'the reports wait in the queue');
    assert.deepEqual(reasons(root), ['paused']);
    assert.equal(root.isParked, true);
    for (const kid of kids) assert.deepEqual(reasons(kid), ['paused']);

    const queued = childReports(root);
    runtime.budgets.raise(root.run);
    await whenState(runtime, () => runtime.agents.all().length === 1 && root.status === 'idle' && root.pendingCount === 0, 'the root to run its queue and the children to finish');
    assert.deepEqual(userMessages(root).slice(1, 5), [...queued, RESUME_NOTE], 'the reports first, in the order they came, then the note of the raise');
    assert.deepEqual(reasons(root).slice(0, 3), ['paused', 'completed', 'completed']);
  });

  it('is parked even when that reply completes its turn, and the raise wakes that agent too', async () => {
    const { runtime, events, root } = pausedRuntime(answering);
    track(runtime);
    await whenState(runtime.budgets, () => events.some((e) => e.type === 'paused'), 'the run to pause');
    await whenState(runtime, () => childReports(root).length === 3 && root.status === 'idle', "the children's three reports to reach the root");
    assert.deepEqual(reasons(root), ['completed'], 'the reply that spent the budget is kept whole');
    assert.equal(root.pendingCount, 3);
    runtime.budgets.raise(root.run);
    await whenState(runtime, () => root.pendingCount === 0 && root.status === 'idle' && userMessages(root).includes(RESUME_NOTE), 'the root to run its queue after the raise');
    assert.deepEqual(userMessages(root).slice(1, 4), childReports(root).slice(0, 3));
  });
});
