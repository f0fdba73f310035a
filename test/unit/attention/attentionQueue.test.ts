import * as assert from 'node:assert/strict';
import { AttentionQueue, pathText, type AttentionItem } from '../../../src/core/attention';
import type { Agent } from '../../../src/core/agents/agent';
import type { InteractionPrompt } from '../../../src/core/interaction';
import type { Answer } from '../../../src/core/sessions/types';
import { Runtime } from '../../../src/core/runtime';
import { recordingModel } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const askStep = (question: string) => ({ toolCalls: [{ name: 'ask_user_question', arguments: { questions: [{ id: 'q', question, options: [{ label: 'Yes' }, { label: 'No' }] }] } }] });

/** A human who answers nothing until told: each open prompt waits in `open`. */
function heldHuman() {
  const open: Array<{ prompt: InteractionPrompt; answer: (label: string) => void }> = [];
  return {
    open,
    provider: {
      ask: (prompt: InteractionPrompt) =>
        new Promise<Answer[]>((resolve) => {
          open.push({ prompt, answer: (label) => resolve(prompt.questions.map((q) => ({ id: q.id, selected: [label] }))) });
        }),
    },
  };
}

function queueOn(runtime: Runtime) {
  const queue = new AttentionQueue({ interaction: runtime.interaction, agents: runtime.agents, onEvents: runtime.onEvents, onBudgetEvent: runtime.budgets.onEvent });
  const fired: Array<readonly AttentionItem[]> = [];
  queue.onDidChange((items) => fired.push(items));
  return { queue, fired };
}

describe('the attention queue over a live runtime', () => {
  const track = disposeAfterEach();

  it('lists the questions of three agents in the order they asked, each with its path, and drops each as it is answered', async () => {
    let now = 1000;
    const { model } = recordingModel({
      version: 1,
      agents: {
        First: { turns: [[askStep('First question?'), { text: 'ok' }]] },
        Second: { turns: [[askStep('Second question?'), { text: 'ok' }]] },
        Third: { turns: [[askStep('Third question?'), { text: 'ok' }]] },
      },
    });
    const runtime = new Runtime({ model, now: () => now });
    track(runtime);
    const human = heldHuman();
    runtime.interaction.registerProvider(human.provider);
    const { queue, fired } = queueOn(runtime);
    track(queue);
    const agents: Agent[] = [];
    for (const label of ['First', 'Second', 'Third']) {
      agents.push(runtime.startRoot({ prompt: 'ask me', label }));
      await whenState(runtime, () => human.open.length === agents.length, `${label} to ask`);
      now += 10;
    }
    await whenState({ onEvent: queue.onDidChange }, () => queue.items().length === 3, 'three items');
    assert.deepEqual(queue.items().map((i) => [i.kind, pathText(i), i.asks]), [
      ['question', 'First', 'First question?'],
      ['question', 'Second', 'Second question?'],
      ['question', 'Third', 'Third question?'],
    ]);
    const count = fired.length;
    human.open[1].answer('Yes');
    await whenState({ onEvent: queue.onDidChange }, () => queue.items().length === 2, 'the answered item to go');
    assert.deepEqual(queue.items().map((i) => i.agentLabel), ['First', 'Third']);
    assert.equal(fired.length, count + 1, 'one change for one answer');
    await whenState(runtime, () => agents[1].lastTurnEnd?.reason === 'completed', 'the answered agent to go on');
  });

  it('a run paused at its budget is one item until its limit is raised', async () => {
    const { model } = recordingModel({
      version: 1,
      agents: {
        Budgeted: { turns: [[{ toolCalls: [{ name: 'list_agents', arguments: {} }], usage: { inputTokens: 500, outputTokens: 500 } }, { text: 'done', usage: { inputTokens: 0, outputTokens: 0 } }]] },
      },
    });
    const runtime = new Runtime({ model, limits: { maxTokens: 100 } });
    track(runtime);
    const { queue } = queueOn(runtime);
    track(queue);
    const root = runtime.startRoot({ prompt: 'spend', label: 'Budgeted' });
    await whenState({ onEvent: queue.onDidChange }, () => queue.items().length === 1, 'the pause to be listed');
    const [item] = queue.items();
    assert.equal(item.kind, 'budget');
    assert.equal(item.agentId, root.id);
    assert.match(item.asks, /^paused: /);
    runtime.budgets.raise(root.run, { maxTokens: 1_000_000 });
    await whenState({ onEvent: queue.onDidChange }, () => queue.items().length === 0, 'the raise to clear it');
  });

  it('a runaway guard that pauses an agent is an item until the person resumes it', async () => {
    const { model } = recordingModel({
      version: 1,
      agents: { Looper: { turns: [{ steps: [{ toolCalls: [{ name: 'list_agents', arguments: {} }] }], loop: true }, [{ text: 'going on' }]] } },
    });
    const runtime = new Runtime({ model, runaway: { sameCallRepeats: 3, pauseAgent: true } });
    track(runtime);
    const { queue } = queueOn(runtime);
    track(queue);
    const root = runtime.startRoot({ prompt: 'loop', label: 'Looper' });
    await whenState({ onEvent: queue.onDidChange }, () => queue.items().some((i) => i.kind === 'runaway'), 'the runaway pause to be listed');
    assert.equal(queue.items()[0].agentId, root.id);
    runtime.budgets.resumeAgent(root);
    await whenState({ onEvent: queue.onDidChange }, () => queue.items().length === 0, 'Resume to clear it');
  });
});
