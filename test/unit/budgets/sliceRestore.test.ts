import * as assert from 'assert';
import type { Agent } from '../../../src/core/agents/agent';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { SLICE_RESUME_NOTE } from '../../../src/core/budgets';
import type { Runtime } from '../../../src/core/runtime';
import { until, userMessages } from '../../support/runtimeFixture';
import { closeWindow, openTestWindow, sessionsFolderPerTest } from '../../support/windows';

// A branch's own budget (a slice) survives a reload like the run's budget: its limits, what the
// branch used, the slice it was taken from, and its pause.

const openWindow = (dir: string, script: ModelScript) => openTestWindow(dir, script, { shutdownWaitMs: 5_000 });

const byLabel = (runtime: Runtime, label: string): Agent => {
  const agent = runtime.agents.all().find((a) => a.label === label);
  assert.ok(agent, `no live agent labelled ${label}`);
  return agent;
};

const NONE = { inputTokens: 0, outputTokens: 0 };
const script: ModelScript = {
  version: 1,
  agents: {
    Lead: {
      turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Sliced', prompt: 'spend', budget: { tokens: 100, modelCalls: 50 } } }], usage: NONE }, { text: 'lead waits', usage: NONE }]],
      afterLastTurn: 'repeat-last',
    },
    Sliced: {
      turns: [
        [{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Inner', prompt: 'wait', budget: { tokens: 10 } } }], usage: { inputTokens: 70, outputTokens: 0 } }, { delayMs: 5, toolCalls: [{ name: 'list_agents', arguments: {} }], usage: { inputTokens: 40, outputTokens: 0 } }, { text: 'never', usage: NONE }],
        [{ text: 'sliced goes on', usage: NONE }],
      ],
      afterLastTurn: 'repeat-last',
    },
    Inner: { turns: [[{ hang: true }], [{ text: 'inner goes on', usage: NONE }]], afterLastTurn: 'repeat-last' },
  },
};

describe('restore: budgets per branch survive a reload', () => {
  const folder = sessionsFolderPerTest('arbor-slices-');
  const { windows } = folder;

  it('puts back each slice with what its branch used, the slice it was taken from and its pause; Raise limit then resumes the branch', async () => {
    const first = openWindow(folder.dir, script);
    windows.open(first);
    first.runtime.startRoot({ prompt: 'go', label: 'Lead' });
    await until(() => first.runtime.agents.all().some((a) => a.label === 'Sliced' && a.status === 'idle' && a.holds.some((h) => h.reason === 'slice')), 'the branch to pause');
    const inner = byLabel(first.runtime, 'Inner');
    await until(() => inner.status === 'idle', 'the inner agent to stop');
    await closeWindow(first);
    windows.forget();

    const second = openWindow(folder.dir, script);
    windows.open(second);
    const report = await second.runtime.restoreLive();
    assert.deepStrictEqual(report.problems, []);
    const sliced = byLabel(second.runtime, 'Sliced');
    const inner2 = byLabel(second.runtime, 'Inner');
    const slices = second.runtime.budgets.slices;
    const own = slices.ownSliceOf(sliced);
    assert.ok(own, 'the slice is back');
    assert.deepStrictEqual(own.limits, { tokens: 100, cost: 0, modelCalls: 50, wallTimeSeconds: 0 });
    assert.strictEqual(own.tokensUsed, 110);
    assert.strictEqual(own.modelCallsUsed, 3, 'its own two calls and the inner agent\'s one');
    assert.ok(own.hold, 'it is still spent and paused');
    const innerSlice = slices.ownSliceOf(inner2);
    assert.strictEqual(innerSlice?.parent, own, 'the inner slice was taken from the branch it is in');
    assert.ok(sliced.holds.some((h) => h.reason === 'slice') && inner2.holds.some((h) => h.reason === 'slice'), 'the branch is paused again');
    assert.ok(!byLabel(second.runtime, 'Lead').holds.some((h) => h.reason === 'slice' || h.reason === 'budget'), 'the rest of the run is not');

    second.runtime.budgets.slices.raise(sliced);
    await until(() => sliced.log.events.some((e) => e.type === 'assistant_text' && e.text === 'sliced goes on'), 'the branch to go on after the raise');
    assert.ok(userMessages(sliced).includes(SLICE_RESUME_NOTE));
  });
});
