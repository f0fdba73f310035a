import * as assert from 'assert';
import { makeRuntime, reasons, toolResults, until, userMessages } from './support/runtimeFixture';

// The turn loop's contract as a caller sees it: what the model receives on the next step, the
// run limits at their exact edge, idle waiters, the final text and the token count.

const listAgents = { name: 'list_agents', arguments: {} };

describe('agent turn loop, pinned', () => {
  it('the next model step receives the assistant message with every tool call it made, then their results', async () => {
    const { runtime, calls } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ text: 'looking', toolCalls: [listAgents, listAgents] }, { text: 'done' }]] } },
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.strictEqual(calls.length, 2);
    const second = calls[1].messages;
    const assistant = second.find((m) => m.role === 'assistant');
    assert.ok(assistant && assistant.role === 'assistant');
    assert.strictEqual(assistant.content, 'looking');
    assert.strictEqual(assistant.toolCalls?.length, 2, 'the tool calls stay on the assistant message the model sees again');
    const results = second.filter((m) => m.role === 'tool');
    assert.strictEqual(results.length, 2);
    assert.deepStrictEqual(
      results.map((m) => (m.role === 'tool' ? m.toolCallId : '')),
      assistant.toolCalls!.map((c) => c.id),
    );
    await runtime.dispose();
  });

  it('maxTurns allows exactly that many turns; the next one ends as budget and says why', async () => {
    const { runtime } = makeRuntime(
      { version: 1, agents: { main: { turns: [[{ text: 'one' }], [{ text: 'two' }], [{ text: 'three' }]] } } },
      { limits: { maxTurns: 2 } },
    );
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    runtime.sendFromUser(root, 'again');
    await until(() => reasons(root).length === 2 && root.status === 'idle', 'the second turn');
    assert.deepStrictEqual(reasons(root), ['completed', 'completed']);
    runtime.sendFromUser(root, 'once more');
    await until(() => reasons(root).length === 3 && root.status === 'idle', 'the third turn');
    assert.deepStrictEqual(reasons(root), ['completed', 'completed', 'budget']);
    assert.match(userMessages(root).at(-1)!, /at most 2 turns per agent/);
    assert.strictEqual(root.lastTurnEnd?.message, 'the run allows at most 2 turns per agent');
    await runtime.dispose();
  });

  it('maxStepsPerTurn allows exactly that many model calls in a turn', async () => {
    const { runtime, calls } = makeRuntime(
      { version: 1, agents: { main: { turns: [[{ toolCalls: [listAgents] }, { toolCalls: [listAgents] }, { text: 'three' }]] } } },
      { limits: { maxStepsPerTurn: 3 } },
    );
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.deepStrictEqual(reasons(root), ['completed']);
    assert.strictEqual(calls.length, 3);
    await runtime.dispose();
  });

  it('two callers waiting on whenIdle in the same turn are both released when it ends', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ delayMs: 5, text: 'done' }]] } } });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    let first = false;
    let second = false;
    void root.whenIdle().then(() => (first = true));
    void root.whenIdle().then(() => (second = true));
    await until(() => first && second, 'both idle waiters');
    assert.strictEqual(root.status, 'idle');
    await runtime.dispose();
  });

  it('a later empty model reply keeps the final text of the turn', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ text: 'the answer', toolCalls: [listAgents] }, {}]] } },
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.deepStrictEqual(reasons(root), ['completed']);
    assert.strictEqual(root.lastTurnEnd?.finalText, 'the answer');
    await runtime.dispose();
  });

  it('a one-shot child whose last reply is empty still hands its last text to the parent', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'kid', prompt: 'work' } }] }, { text: 'ok' }]] },
        kid: { turns: [[{ text: 'kid found it', toolCalls: [listAgents] }, {}]] },
      },
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    const result = toolResults(root).find((r) => r.name === 'delegate_task');
    assert.ok(result);
    assert.match(result.content, /kid found it/);
    await runtime.dispose();
  });

  it('token usage adds up over the steps of a turn, and a spent token budget ends the next step', async () => {
    const { runtime, calls } = makeRuntime(
      {
        version: 1,
        agents: {
          main: {
            turns: [
              [
                { toolCalls: [listAgents], usage: { inputTokens: 10, outputTokens: 3 } },
                { toolCalls: [listAgents], usage: { inputTokens: 20, outputTokens: 7 } },
                { text: 'never reached' },
              ],
            ],
          },
        },
      },
      { limits: { maxTokens: 40 } },
    );
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.deepStrictEqual(root.usage, { inputTokens: 30, outputTokens: 10 });
    assert.strictEqual(calls.length, 2, 'the third call is refused: 40 tokens are spent');
    assert.deepStrictEqual(reasons(root), ['budget']);
    assert.match(root.lastTurnEnd!.message!, /token budget of 40 is spent/);
    const usage = root.log.events.filter((e) => e.type === 'usage');
    assert.deepStrictEqual(
      usage.map((e) => (e.type === 'usage' ? [e.inputTokens, e.outputTokens] : [])),
      [
        [10, 3],
        [20, 7],
      ],
    );
    await runtime.dispose();
  });

  it('a token budget not yet spent lets the turn go on', async () => {
    const { runtime, calls } = makeRuntime(
      {
        version: 1,
        agents: { main: { turns: [[{ toolCalls: [listAgents], usage: { inputTokens: 20, outputTokens: 19 } }, { text: 'done' }]] } },
      },
      { limits: { maxTokens: 40 } },
    );
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.deepStrictEqual(reasons(root), ['completed']);
    assert.strictEqual(calls.length, 2);
    await runtime.dispose();
  });
});
