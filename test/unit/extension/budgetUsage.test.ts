import * as assert from 'node:assert/strict';
import { presentAgent } from '../../../src/extension/agents/agentPresentation';
import { usageText } from '../../../src/extension/budgets/usageText';
import { Runtime } from '../../../src/core/runtime';
import { recordingModel } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

describe('budget usage on a node of the Agents view', () => {
  const track = disposeAfterEach();
  it('shows its cost and its branch cost, and warns from 80% of a run budget', async () => {
    const { model } = recordingModel({ version: 1, agents: { main: { turns: [[{ text: 'hi', usage: { inputTokens: 850_000, outputTokens: 0 } }]] } } });
    const runtime = new Runtime({ model, limits: { maxTokens: 1_000_000 }, prices: { recording: { input: 1, output: 1 } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    const view = presentAgent({ agent: root, waiting: false, treeTokens: 850_000, descendants: 1, now: Date.now(), treeCost: 1.25 });
    assert.match(view.description, /\$0\.85 \(tree \$1\.25\)/);
    assert.match(view.description, /⚠ 85% of tokens/);
    assert.match(view.tooltip, /850k of 1\.0M tokens \(85%\)/);
  });

  it('says when the run is paused because its budget is spent, and shows no percentage then', async () => {
    const { model } = recordingModel({ version: 1, agents: { main: { turns: [[{ toolCalls: [{ name: 'list_agents', arguments: {} }], usage: { inputTokens: 50, outputTokens: 0 } }, { text: 'never' }]] } } });
    const runtime = new Runtime({ model, limits: { maxTokens: 50 } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => root.status === 'idle' && runtime.budgets.holdOf(root.run) !== undefined, 'the run to pause');
    const usage = usageText(root, 0, Date.now());
    assert.deepEqual(usage.parts, ['run paused: budget spent']);
    assert.equal(usage.warn, true);
    assert.ok(usage.lines.some((l) => /Paused: the run's token budget of 50 is spent\. Raise the limit/.test(l)));
  });
});
