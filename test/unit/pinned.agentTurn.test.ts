import * as assert from 'assert';
import { z } from 'zod';
import { ArborError } from '../../src/core/errors';
import type { RuntimeTool } from '../../src/core/runtime';
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

describe('agent turn loop, pinned: what unanswered tool calls and ended turns leave behind', () => {
  function hangingTool(name: string, started: { signal?: AbortSignal }): RuntimeTool {
    return {
      name,
      description: 'never finishes',
      schema: z.object({}),
      readOnly: true,
      run: (_a: unknown, ctx) => {
        started.signal = ctx.signal;
        return new Promise(() => undefined);
      },
    };
  }

  it('a Stop closes every unanswered call with a result that says the user stopped it, in call order', async () => {
    const started: { signal?: AbortSignal } = {};
    const { runtime } = makeRuntime(
      { version: 1, agents: { main: { turns: [[{ toolCalls: [{ name: 'slow', arguments: {} }, listAgents] }]] } } },
      { tools: [hangingTool('slow', started)] },
    );
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => started.signal !== undefined, 'the tool to start');
    runtime.stop(root);
    await root.whenIdle();
    assert.deepStrictEqual(toolResults(root), [
      { name: 'slow', content: 'Stopped before this tool finished (stopped by the user).', isError: true },
      { name: 'list_agents', content: 'Stopped before this tool finished (stopped by the user).', isError: true },
    ]);
    assert.deepStrictEqual(root.lastTurnEnd, { turn: 1, reason: 'aborted', cause: 'user', finalText: '' });
    await runtime.dispose();
  });

  it('a parent stopping a child closes its calls with the cause named', async () => {
    const started: { signal?: AbortSignal } = {};
    const { runtime } = makeRuntime(
      {
        version: 1,
        agents: {
          main: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'kid', prompt: 'w' } }] }, { text: 'ok' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
          kid: { turns: [[{ text: 'working', toolCalls: [{ name: 'slow', arguments: {} }] }]] },
        },
      },
      { tools: [hangingTool('slow', started)] },
    );
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => started.signal !== undefined, 'the kid tool to start');
    const kid = runtime.agents.all().find((a) => a.label === 'kid')!;
    runtime.subagents.interrupt(kid.id, { kind: 'ancestor', agent: root });
    await until(() => kid.status === 'idle', 'the kid to stop');
    assert.deepStrictEqual(toolResults(kid), [{ name: 'slow', content: 'Stopped before this tool finished (cancelled: parent).', isError: true }]);
    assert.deepStrictEqual(reasons(kid), ['aborted:parent']);
    assert.strictEqual(kid.lastTurnEnd?.finalText, 'working', 'the text so far is kept');
    await runtime.dispose();
  });

  it('a tool result that ends the turn closes the turn as budget; a throwing tool becomes an error result', async () => {
    const limiter: RuntimeTool = {
      name: 'limiter',
      description: 'ends the turn',
      schema: z.object({}),
      readOnly: true,
      run: async () => ({ content: 'stop here', endsTurn: 'the tool said so' }),
    };
    const thrower: RuntimeTool = {
      name: 'thrower',
      description: 'throws',
      schema: z.object({}),
      readOnly: true,
      run: async () => {
        throw new ArborError('INTERNAL', 'tool broke');
      },
    };
    const { runtime, calls } = makeRuntime(
      {
        version: 1,
        agents: { main: { turns: [[{ toolCalls: [{ name: 'thrower', arguments: {} }] }, { toolCalls: [{ name: 'limiter', arguments: {} }] }, { text: 'never' }]] } },
      },
      { tools: [limiter, thrower] },
    );
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.strictEqual(calls.length, 2);
    assert.deepStrictEqual(reasons(root), ['budget']);
    assert.strictEqual(root.lastTurnEnd?.message, 'the tool said so');
    const results = toolResults(root);
    assert.strictEqual(results[0].isError, true);
    assert.match(results[0].content, /tool broke/);
    assert.deepStrictEqual(results[1], { name: 'limiter', content: 'stop here', isError: undefined });
    assert.strictEqual(
      userMessages(root).at(-1),
      '[Arbor] This turn was ended because the tool said so. Summarise what you have so far and say what remains.',
    );
    await runtime.dispose();
  });

  it('a model failure ends the turn as error with its message, recorded in the turn end', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ text: 'partial', toolCalls: [listAgents] }, { error: { code: 'MODEL_UNAVAILABLE', message: 'down' } }]] } },
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.strictEqual(root.lastTurnEnd?.reason, 'error');
    assert.match(root.lastTurnEnd!.message!, /down/);
    assert.strictEqual(root.lastTurnEnd?.finalText, 'partial');
    const end = root.log.events.find((e) => e.type === 'turn_end');
    assert.ok(end && end.type === 'turn_end');
    assert.strictEqual(end.message, root.lastTurnEnd!.message);
    await runtime.dispose();
  });

  it('each model request names the agent, counts calls across turns, and numbers turn and step', async () => {
    const { runtime, calls } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [listAgents] }, { text: 'one' }], [{ text: 'two' }]] } },
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    runtime.sendFromUser(root, 'again');
    await until(() => reasons(root).length === 2 && root.status === 'idle', 'the second turn');
    assert.deepStrictEqual(
      calls.map((c) => [c.agentId, c.agentLabel, c.call, c.turn, c.step]),
      [
        [root.id, 'main', 1, 1, 1],
        [root.id, 'main', 2, 1, 2],
        [root.id, 'main', 3, 2, 1],
      ],
    );
    assert.ok(calls.every((c) => c.system.length > 0 && c.tools.some((t) => t.name === 'list_agents')));
    await runtime.dispose();
  });

  it('a send to an ended agent is refused with AGENT_DISPOSED naming it; whenIdle on an idle agent resolves at once', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    let resolved = false;
    void root.whenIdle().then(() => (resolved = true));
    await Promise.resolve();
    assert.strictEqual(resolved, true);
    await runtime.end(root);
    assert.strictEqual(root.disposed, true);
    assert.throws(
      () => root.send('late', { from: 'user' }),
      (e: unknown) => e instanceof ArborError && e.code === 'AGENT_DISPOSED' && e.message === 'Agent "main" has ended; start a new agent or resume its session.',
    );
    await runtime.dispose();
  });
});
