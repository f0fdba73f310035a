import * as assert from 'assert';
import { z } from 'zod';
import type { RuntimeTool } from '../../../src/core/runtime';
import { makeRuntime, reasons, tick, toolResults, until, userMessages } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

describe('agent turn loop', () => {
  const track = disposeAfterEach();
  it('runs model, tools, results until an answer without tool calls, and records completed', async () => {
    const seen: string[] = [];
    const echo: RuntimeTool = {
      name: 'echo',
      description: 'echo',
      schema: () => z.object({ say: z.string() }),
      readOnly: true,
      run: (args: { say: string }) => {
        seen.push(args.say);
        return { content: `echoed ${args.say}` };
      },
    };
    const { runtime, calls } = makeRuntime(
      { version: 1, agents: { main: { turns: [[{ toolCalls: [{ name: 'echo', arguments: { say: 'a' } }, { name: 'echo', arguments: { say: 'b' } }] }, { text: 'all done' }]] } } },
      { tools: [echo] },
    );
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    assert.strictEqual(agent.status, 'running');
    await agent.whenIdle();
    assert.deepStrictEqual(seen, ['a', 'b']);
    assert.deepStrictEqual(reasons(agent), ['completed']);
    assert.strictEqual(agent.lastTurnEnd?.finalText, 'all done');
    assert.deepStrictEqual(toolResults(agent).map((r) => r.content), ['echoed a', 'echoed b']);
    assert.strictEqual(calls.length, 2);
    assert.ok(calls[0].tools.some((t) => t.name === 'echo'), 'the model sees the tool');
    const echoSpec = calls[0].tools.find((t) => t.name === 'echo')!;
    assert.deepStrictEqual((echoSpec.parameters as { required: string[] }).required, ['say'], 'JSON Schema comes from the zod schema');
    // The second call saw the tool results in order.
    const roles = calls[1].messages.map((m) => m.role);
    assert.deepStrictEqual(roles, ['user', 'assistant', 'tool', 'tool']);
  });

  it('turns invalid arguments and unknown tools into error results and goes on', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: {
          turns: [
            [
              { toolCalls: [{ name: 'send_message', arguments: { agent_id: 7 } }, { name: 'no_such_tool', arguments: {} }, { name: 'list_agents', arguments: '{not json' }] },
              { text: 'recovered' },
            ],
          ],
        },
      },
    });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    await agent.whenIdle();
    const results = toolResults(agent);
    assert.strictEqual(results.length, 3);
    assert.ok(results.every((r) => r.isError));
    assert.match(results[0].content, /TOOL_ARGUMENTS_INVALID/);
    assert.match(results[0].content, /agent_id/);
    assert.match(results[0].content, /message/, 'names the missing field too');
    assert.match(results[1].content, /TOOL_UNKNOWN/);
    assert.match(results[1].content, /no_such_tool/);
    assert.match(results[2].content, /not valid JSON/);
    assert.deepStrictEqual(reasons(agent), ['completed']);
    assert.strictEqual(agent.lastTurnEnd?.finalText, 'recovered');
  });

  it('records a model failure as an error turn end and stays usable', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ error: { code: 'MODEL_UNAVAILABLE', message: 'server down' } }], [{ text: 'back' }]] } },
    });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'one', label: 'main' });
    await agent.whenIdle();
    assert.deepStrictEqual(reasons(agent), ['error']);
    assert.match(agent.lastTurnEnd!.message!, /server down/);
    runtime.sendFromUser(agent, 'two');
    await agent.whenIdle();
    assert.deepStrictEqual(reasons(agent), ['error', 'completed']);
  });

  it('the turn signal reaches a running tool, and an abort does not wait for a tool that ignores it', async () => {
    let toolSignal: AbortSignal | undefined;
    const slow: RuntimeTool = {
      name: 'slow',
      description: 'never finishes',
      schema: () => z.object({}),
      readOnly: true,
      run: (_a: unknown, ctx) => {
        toolSignal = ctx.signal;
        return new Promise(() => undefined);
      },
    };
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ toolCalls: [{ name: 'slow', arguments: {} }] }]] } } }, { tools: [slow] });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => toolSignal !== undefined, 'the tool to start');
    runtime.stop(agent);
    assert.strictEqual(toolSignal!.aborted, true, 'the signal reached the tool synchronously');
    await agent.whenIdle();
    assert.deepStrictEqual(reasons(agent), ['aborted:user']);
    const results = toolResults(agent);
    assert.strictEqual(results.length, 1, 'the unanswered call is closed so the conversation stays valid');
    assert.match(results[0].content, /stopped by the user/);
  });
});

describe('inbox and cancel', () => {
  const track = disposeAfterEach();
  const hangThenAnswer = {
    version: 1 as const,
    agents: { main: { turns: [[{ hang: true }], [{ text: 'B done' }], [{ text: 'C done' }], [{ text: 'D done' }]] } },
  };

  it('interrupt parks the queue until a waking send, then resumes it in FIFO order', async () => {
    const { runtime, aborts } = makeRuntime(hangThenAnswer);
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'A', label: 'main' });
    agent.send('B', { from: 'user', wake: false });
    agent.send('C', { from: 'user', wake: false });
    await tick(5);
    assert.strictEqual(agent.pendingCount, 2);
    assert.strictEqual(agent.cancel('user', { keepInbox: true }), true);
    assert.strictEqual(aborts.length, 1, 'the model observed the abort inside cancel()');
    await agent.whenIdle();
    assert.deepStrictEqual(reasons(agent), ['aborted:user']);
    assert.strictEqual(agent.isParked, true);
    await tick(10);
    assert.strictEqual(agent.status, 'idle', 'nothing auto-starts after the aborted turn');
    assert.deepStrictEqual(userMessages(agent), ['A'], 'claimed work is not requeued; parked work is unclaimed');
    agent.send('D', { from: 'user' });
    await agent.whenIdle();
    assert.deepStrictEqual(reasons(agent), ['aborted:user', 'completed', 'completed', 'completed']);
    assert.deepStrictEqual(userMessages(agent), ['A', 'B', 'C', 'D']);
  });

  it('a waking send during abort convergence starts only after the aborted turn end is recorded', async () => {
    const { runtime } = makeRuntime(hangThenAnswer);
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'A', label: 'main' });
    agent.send('B', { from: 'user', wake: false });
    await tick(2);
    agent.cancel('user', { keepInbox: true });
    agent.send('C', { from: 'user' }); // arrives before the aborted turn has ended
    assert.strictEqual(agent.currentTurn, 1, 'no second turn while the first converges');
    const order: string[] = [];
    const sub = runtime.onEvent((e) => {
      if (e.type === 'agent_changed' && e.change.type === 'turn_end') order.push(`end ${e.change.end.turn}`);
      if (e.type === 'agent_changed' && e.change.type === 'turn_start') order.push(`start ${e.change.turn}`);
    });
    await whenState(runtime, () => agent.turnCount === 3 && agent.status === 'idle', 'both queued turns');
    sub.dispose();
    assert.deepStrictEqual(order, ['end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
    assert.deepStrictEqual(userMessages(agent), ['A', 'B', 'C'], 'nothing lost or reordered');
    assert.deepStrictEqual(reasons(agent), ['aborted:user', 'completed', 'completed']);
  });

  it('cancel without keepInbox clears the queue', async () => {
    const { runtime } = makeRuntime(hangThenAnswer);
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'A', label: 'main' });
    agent.send('B', { from: 'user', wake: false });
    await tick(2);
    agent.cancel('parent');
    await agent.whenIdle();
    assert.strictEqual(agent.pendingCount, 0);
    assert.deepStrictEqual(reasons(agent), ['aborted:parent']);
  });

  it('cancelling an idle agent does nothing and does not pre-arm a later cancel', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'one' }], [{ delayMs: 5, text: 'two' }]] } } });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'A', label: 'main' });
    await agent.whenIdle();
    assert.strictEqual(agent.cancel('user', { keepInbox: true }), false);
    assert.strictEqual(agent.isParked, false);
    agent.send('B', { from: 'user' });
    await agent.whenIdle();
    assert.deepStrictEqual(reasons(agent), ['completed', 'completed']);
  });

  it('a non-waking send to a parked agent stays parked', async () => {
    const { runtime } = makeRuntime(hangThenAnswer);
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'A', label: 'main' });
    agent.send('B', { from: 'user', wake: false });
    await tick(2);
    runtime.stop(agent);
    await agent.whenIdle();
    agent.send('C', { from: 'user', wake: false });
    await tick(5);
    assert.strictEqual(agent.status, 'idle');
    assert.strictEqual(agent.pendingCount, 2);
  });
});

describe('limits', () => {
  const track = disposeAfterEach();
  it('max steps per turn ends the turn with budget and tells the model why', async () => {
    const { runtime, calls } = makeRuntime(
      { version: 1, agents: { main: { turns: [{ steps: [{ toolCalls: [{ name: 'list_agents', arguments: {} }] }], loop: true }] } } },
      { limits: { maxStepsPerTurn: 3 } },
    );
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'loop', label: 'main' });
    await agent.whenIdle();
    assert.strictEqual(calls.length, 3);
    assert.deepStrictEqual(reasons(agent), ['budget']);
    assert.match(userMessages(agent).at(-1)!, /at most 3 model calls/);
  });

  it('delegation depth and live-children limits end the turn with budget', async () => {
    const { runtime } = makeRuntime(
      {
        version: 1,
        agents: {
          main: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'kid', prompt: 'x' } }, { name: 'start_subagent', arguments: { label: 'kid2', prompt: 'y' } }] }, { text: 'unreachable' }]] },
          kid: { turns: [[{ hang: true }]] },
          kid2: { turns: [[{ hang: true }]] },
        },
      },
      { limits: { maxLiveChildren: 1 } },
    );
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    await agent.whenIdle();
    assert.deepStrictEqual(reasons(agent), ['budget']);
    const results = toolResults(agent);
    assert.match(results[1].content, /LIMIT_EXCEEDED/);
    assert.match(agent.lastTurnEnd!.message!, /at most 1 live subagents/);
    await runtime.dispose();

    const deep = makeRuntime(
      { version: 1, agents: { main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'kid', prompt: 'x' } }] }, { text: 'no' }]] } } },
      { limits: { maxDelegationDepth: 0 } },
    );
    track(deep.runtime);
    const root = deep.runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.deepStrictEqual(reasons(root), ['budget']);
    assert.match(root.lastTurnEnd!.message!, /0 levels deep/);
  });

  it('the token budget covers the whole run', async () => {
    const { runtime } = makeRuntime(
      {
        version: 1,
        agents: {
          main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'kid', prompt: 'x' } }], usage: { inputTokens: 50, outputTokens: 10 } }, { text: 'late' }]] },
          kid: { turns: [[{ text: 'ok', usage: { inputTokens: 40, outputTokens: 10 } }]] },
        },
      },
      { limits: { maxTokens: 100 } },
    );
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    await agent.whenIdle();
    assert.strictEqual(agent.run.budget.tokensUsed, 110);
    assert.deepStrictEqual(reasons(agent), ['paused']);
    assert.match(agent.lastTurnEnd!.message!, /token budget of 100/);
  });
});

describe('dispose', () => {
  const track = disposeAfterEach();
  it('aborts the running turn with cause disposed and resolves whenIdle', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ hang: true }]] } } });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'A', label: 'main' });
    await tick(2);
    const idle = agent.whenIdle();
    agent.dispose();
    await idle;
    assert.deepStrictEqual(reasons(agent), ['aborted:disposed']);
  });
});
