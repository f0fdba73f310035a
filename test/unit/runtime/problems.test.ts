import * as assert from 'node:assert/strict';
import type { Agent } from '../../../src/core/agents/agent';
import { EndedAgentLogs } from '../../../src/core/agents/endedAgentLogs';
import { AgentRegistry } from '../../../src/core/agents/registry';
import { Emitter } from '../../../src/core/events';
import { Runtime } from '../../../src/core/runtime';
import { MemorySessionLog, type SessionHeader } from '../../../src/core/sessions';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { settledChildLoader } from '../../../src/core/subagents/settledChildLoader';
import { forged } from '../../support/forged';
import { header } from '../../support/sessionFixtures';
import { recordingModel, until } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';

/** A runtime on the scripted model and what it reported to its onProblem. */
function reportingRuntime(script: ModelScript) {
  const problems: unknown[][] = [];
  const runtime = new Runtime({ model: recordingModel(script).model, newId: () => 'main#1', onProblem: (...args) => void problems.push(args) });
  return { runtime, problems };
}

// A failure nobody awaits (a listener that throws, a session not saved after its agent ended)
// reaches the onProblem the runtime was given: the editor's log, not the process console.

describe('problems nobody awaits', () => {
  const track = disposeAfterEach();
  it("a runtime event listener that throws is reported to the runtime's onProblem, and the other listeners still hear the event", async () => {
    const { runtime, problems } = reportingRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
    track(runtime);
    runtime.onEvent(() => {
      throw new Error('listener broke');
    });
    let heard = 0;
    runtime.onEvent(() => void heard++);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.ok(heard > 0, 'the second listener heard the events');
    assert.equal(problems[0]?.[0], 'Arbor: an event listener failed');
    assert.match(String(problems[0]?.[1]), /listener broke/);
  });

  it("a listener of the runtime's question prompts that throws is reported to the runtime's onProblem, and the question is still answered", async () => {
    const { runtime, problems } = reportingRuntime({ version: 1, agents: {} });
    track(runtime);
    runtime.interaction.registerProvider({ ask: async (prompt) => prompt.questions.map((q) => ({ id: q.id, selected: ['Yes'] })) });
    runtime.interaction.onDidChangePending(() => {
      throw new Error('badge broke');
    });
    const answers = await runtime.interaction.ask({ questions: [{ id: 'q1', question: 'Go on?', header: 'Go', options: [{ label: 'Yes' }, { label: 'No' }], multiSelect: false }] });
    assert.deepEqual(answers, [{ id: 'q1', selected: ['Yes'] }]);
    assert.equal(problems[0]?.[0], 'Arbor: an event listener failed');
    assert.match(String(problems[0]?.[1]), /badge broke/);
  });

  it("an ended agent's session that cannot be saved as its log closes is reported to the runtime's onProblem with its id", async () => {
    class FailingCloseLog extends MemorySessionLog {
      close(): Promise<void> {
        return Promise.reject(new Error('disk gone'));
      }
    }
    const reported: unknown[][] = [];
    const { model } = recordingModel({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
    const runtime = new Runtime({
      model,
      sessions: {
        create: (h: SessionHeader) => new FailingCloseLog(h),
        reopenLog: () => Promise.reject(new Error('not in this test')),
        loadSession: () => Promise.reject(new Error('not in this test')),
      },
      newId: () => 'main#1',
      onProblem: (...args) => void reported.push(args),
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    await runtime.end(root);
    await until(() => reported.length > 0, 'the report');
    assert.equal(reported[0][0], 'Arbor: could not save session main#1');
    assert.match(String(reported[0][1]), /disk gone/);
  });

  it('a past subagent session read back and then not resumed, whose close fails, is reported to onProblem with its id', async () => {
    class FailingCloseLog extends MemorySessionLog {
      close(): Promise<void> {
        return Promise.reject(new Error('disk gone'));
      }
    }
    const kid = header('kid#1', { kind: 'continuable', parentSession: 'lead#1', delegationDepth: 1 });
    const store = {
      create: (h: SessionHeader) => new FailingCloseLog(h),
      loadSession: async () => ({ header: kid, events: [] }),
      reopenLog: async () => new FailingCloseLog(kid),
    };
    const reported: unknown[][] = [];
    const load = settledChildLoader(store, new AgentRegistry(), new EndedAgentLogs(() => undefined), (...args) => void reported.push(args));
    const loaded = await load(forged<Agent>({ id: 'lead#1' }), 'kid#1');
    assert.ok(loaded, 'the session is read back');
    loaded.discard();
    await until(() => reported.length > 0, 'the report');
    assert.equal(reported[0][0], 'Arbor: could not save session kid#1');
    assert.match(String(reported[0][1]), /disk gone/);
  });

  it('an emitter made without an onProblem reports a listener that throws as a process warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void (warning.name === 'ArborProblem' && warnings.push(warning));
    process.on('warning', onWarning);
    try {
      const emitter = new Emitter<number>();
      emitter.on(() => {
        throw new Error('listener broke');
      });
      emitter.fire(1);
      await until(() => warnings.length > 0, 'the warning');
      assert.equal(warnings[0].message, 'Arbor: an event listener failed');
      assert.match(String((warnings[0] as Error & { detail?: unknown }).detail), /listener broke/);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
