import * as assert from 'assert';
import { TaskOutcomes, type TaskOutcome } from '../../../src/extension/agents/taskOutcomes';
import { makeRuntime } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const start = (label: string) => ({ name: 'start_subagent', arguments: { label, prompt: 'work' } });

describe('turn-end notifications do not pile up (TaskOutcomes)', () => {
  const track = disposeAfterEach();
  it("announces one outcome per task the user gives a root, none for the turns its children's reports wake", async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        lead: {
          turns: [[{ toolCalls: [start('a'), start('b'), start('c')] }, { text: 'Started three helpers.' }], [{ text: 'Noted a report.' }]],
          afterLastTurn: 'repeat-last',
        },
        a: { turns: [[{ delayMs: 5, text: 'a done' }]] },
        b: { turns: [[{ delayMs: 10, text: 'b done' }]] },
        c: { turns: [[{ delayMs: 15, text: 'c done' }]] },
      },
    });
    track(runtime);
    const outcomes: TaskOutcome[] = [];
    const tracker = new TaskOutcomes();
    runtime.onEvent((e) => {
      const o = tracker.observe(e);
      if (o) outcomes.push(o);
    });
    const lead = runtime.startRoot({ prompt: 'go', label: 'lead' });
    await whenState(runtime, () => runtime.agents.size === 1 && lead.status === 'idle' && lead.pendingCount === 0, 'every report to be heard');
    assert.ok(lead.turnCount >= 2, 'reports woke the lead for turns of their own');
    assert.deepStrictEqual(
      outcomes.map((o) => o.end.finalText),
      ['Started three helpers.'],
      'one notification for the task, none per report',
    );
    runtime.sendFromUser(lead, 'and now?');
    await whenState(runtime, () => outcomes.length === 2, 'the next task to end');
    assert.strictEqual(outcomes[1].end.reason, 'completed');
  });

  it('a task the user stopped announces nothing; one that failed announces why', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ hang: true }], [{ toolCalls: [{ name: 'no_such_tool', arguments: {} }] }]] } },
    }, { limits: { maxStepsPerTurn: 1 } });
    track(runtime);
    const outcomes: TaskOutcome[] = [];
    const tracker = new TaskOutcomes();
    runtime.onEvent((e) => {
      const o = tracker.observe(e);
      if (o) outcomes.push(o);
    });
    const main = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => main.status === 'running', 'main to run');
    runtime.stop(main);
    await main.whenIdle();
    assert.strictEqual(outcomes.length, 0, 'the user stopped it: no notification');
    runtime.sendFromUser(main, 'again');
    await whenState(runtime, () => outcomes.length === 1, 'the second task to end');
    assert.strictEqual(outcomes[0].end.reason, 'budget');
  });
});
