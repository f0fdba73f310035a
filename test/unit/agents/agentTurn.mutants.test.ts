import * as assert from 'assert';
import { z } from 'zod';
import { ArborError } from '../../../src/core/errors';
import type { RuntimeTool } from '../../../src/core/runtime';
import { makeRuntime, reasons, toolResults, until, userMessages } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

// The turn loop's contract as a caller sees it: what the model receives on the next step, the
// run limits at their exact edge, idle waiters, the final text and the token count.

const listAgents = { name: 'list_agents', arguments: {} };

describe('agent turn loop, pinned', () => {
  const track = disposeAfterEach();
  it('the next model step receives the assistant message with every tool call it made, then their results', async () => {
    const { runtime, calls } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ text: 'looking', toolCalls: [listAgents, listAgents] }, { text: 'done' }]] } },
    });
    track(runtime);
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
      assistant.toolCalls.map((c) => c.id),
    );
  });

  it('maxTurns allows exactly that many turns; the next one ends as budget and says why', async () => {
    const { runtime } = makeRuntime(
      { version: 1, agents: { main: { turns: [[{ text: 'one' }], [{ text: 'two' }], [{ text: 'three' }]] } } },
      { limits: { maxTurns: 2 } },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    runtime.sendFromUser(root, 'again');
    await whenState(runtime, () => reasons(root).length === 2 && root.status === 'idle', 'the second turn');
    assert.deepStrictEqual(reasons(root), ['completed', 'completed']);
    runtime.sendFromUser(root, 'once more');
    await whenState(runtime, () => reasons(root).length === 3 && root.status === 'idle', 'the third turn');
    assert.deepStrictEqual(reasons(root), ['completed', 'completed', 'budget']);
    assert.match(userMessages(root).at(-1)!, /at most 2 turns per agent/);
    assert.strictEqual(root.lastTurnEnd?.message, 'the run allows at most 2 turns per agent');
  });

  it('maxStepsPerTurn allows exactly that many model calls in a turn', async () => {
    const { runtime, calls } = makeRuntime(
      { version: 1, agents: { main: { turns: [[{ toolCalls: [listAgents] }, { toolCalls: [listAgents] }, { text: 'three' }]] } } },
      { limits: { maxStepsPerTurn: 3 } },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.deepStrictEqual(reasons(root), ['completed']);
    assert.strictEqual(calls.length, 3);
  });

  it('two callers waiting on whenIdle in the same turn are both released when it ends', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ delayMs: 5, text: 'done' }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    let first = false;
    let second = false;
    void root.whenIdle().then(() => (first = true));
    void root.whenIdle().then(() => (second = true));
    await until(() => first && second, 'both idle waiters');
    assert.strictEqual(root.status, 'idle');
  });

  it('a later empty model reply keeps the final text of the turn', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ text: 'the answer', toolCalls: [listAgents] }, {}]] } },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.deepStrictEqual(reasons(root), ['completed']);
    assert.strictEqual(root.lastTurnEnd?.finalText, 'the answer');
  });

  it('a one-shot child whose last reply is empty still hands its last text to the parent', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'kid', prompt: 'work' } }] }, { text: 'ok' }]] },
        kid: { turns: [[{ text: 'kid found it', toolCalls: [listAgents] }, {}]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    const result = toolResults(root).find((r) => r.name === 'delegate_task');
    assert.ok(result);
    assert.match(result.content, /kid found it/);
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
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.deepStrictEqual(root.usage, { inputTokens: 30, outputTokens: 10 });
    assert.strictEqual(calls.length, 2, 'the third call is refused: 40 tokens are spent');
    assert.deepStrictEqual(reasons(root), ['paused']);
    assert.match(root.lastTurnEnd!.message!, /token budget of 40 is spent/);
    const usage = root.log.events.filter((e) => e.type === 'usage');
    assert.deepStrictEqual(
      usage.map((e) => (e.type === 'usage' ? [e.inputTokens, e.outputTokens] : [])),
      [
        [10, 3],
        [20, 7],
      ],
    );
  });

  it('a token budget not yet spent lets the turn go on', async () => {
    const { runtime, calls } = makeRuntime(
      {
        version: 1,
        agents: { main: { turns: [[{ toolCalls: [listAgents], usage: { inputTokens: 20, outputTokens: 19 } }, { text: 'done' }]] } },
      },
      { limits: { maxTokens: 40 } },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.deepStrictEqual(reasons(root), ['completed']);
    assert.strictEqual(calls.length, 2);
  });
});

describe('agent turn loop, pinned: what unanswered tool calls and ended turns leave behind', () => {
  const track = disposeAfterEach();
  function hangingTool(name: string, started: { signal?: AbortSignal }): RuntimeTool {
    return {
      name,
      description: 'never finishes',
      schema: () => z.object({}),
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
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => started.signal !== undefined, 'the tool to start');
    runtime.stop(root);
    await root.whenIdle();
    assert.deepStrictEqual(toolResults(root), [
      { name: 'slow', content: 'Stopped before this tool finished (stopped by the user).', isError: true },
      { name: 'list_agents', content: 'Stopped before this tool finished (stopped by the user).', isError: true },
    ]);
    assert.deepStrictEqual(root.lastTurnEnd, { turn: 1, reason: 'aborted', cause: 'user', finalText: '' });
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
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => started.signal !== undefined, 'the kid tool to start');
    const kid = runtime.agents.all().find((a) => a.label === 'kid')!;
    runtime.subagents.interrupt(kid.id, { kind: 'ancestor', agent: root });
    await whenState(runtime, () => kid.status === 'idle', 'the kid to stop');
    assert.deepStrictEqual(toolResults(kid), [{ name: 'slow', content: 'Stopped before this tool finished (cancelled: parent).', isError: true }]);
    assert.deepStrictEqual(reasons(kid), ['aborted:parent']);
    assert.strictEqual(kid.lastTurnEnd?.finalText, 'working', 'the text so far is kept');
  });

  it('a tool result that ends the turn closes the turn as budget; a throwing tool becomes an error result', async () => {
    const limiter: RuntimeTool = {
      name: 'limiter',
      description: 'ends the turn',
      schema: () => z.object({}),
      readOnly: true,
      run: async () => ({ content: 'stop here', endsTurn: 'the tool said so' }),
    };
    const thrower: RuntimeTool = {
      name: 'thrower',
      description: 'throws',
      schema: () => z.object({}),
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
    track(runtime);
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
  });

  it('a model failure ends the turn as error with its message, recorded in the turn end', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ text: 'partial', toolCalls: [listAgents] }, { error: { code: 'MODEL_UNAVAILABLE', message: 'down' } }]] } },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.strictEqual(root.lastTurnEnd?.reason, 'error');
    assert.match(root.lastTurnEnd.message!, /down/);
    assert.strictEqual(root.lastTurnEnd?.finalText, 'partial');
    const end = root.log.events.find((e) => e.type === 'turn_end');
    assert.ok(end && end.type === 'turn_end');
    assert.strictEqual(end.message, root.lastTurnEnd.message);
  });

  it('each model request names the agent, counts calls across turns, and numbers turn and step', async () => {
    const { runtime, calls } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [listAgents] }, { text: 'one' }], [{ text: 'two' }]] } },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    runtime.sendFromUser(root, 'again');
    await whenState(runtime, () => reasons(root).length === 2 && root.status === 'idle', 'the second turn');
    assert.deepStrictEqual(
      calls.map((c) => [c.agentId, c.agentLabel, c.call, c.turn, c.step]),
      [
        [root.id, 'main', 1, 1, 1],
        [root.id, 'main', 2, 1, 2],
        [root.id, 'main', 3, 2, 1],
      ],
    );
    assert.ok(calls.every((c) => c.system.length > 0 && c.tools.some((t) => t.name === 'list_agents')));
  });

  it('a send to an ended agent is refused with AGENT_DISPOSED naming it; whenIdle on an idle agent resolves at once', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
    track(runtime);
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
  });
});

describe('agent state as the views see it, pinned', () => {
  const track = disposeAfterEach();
  /** The agent's change notifications (what the tree and the conversation view repaint on), as `type`s. */
  function changes(runtime: ReturnType<typeof makeRuntime>['runtime']) {
    const seen: string[] = [];
    runtime.onEvent((e) => {
      if (e.type === 'agent_changed' && e.change.type !== 'log') seen.push(e.change.type);
    });
    return seen;
  }

  it('a queued message, a Stop, new usage and the end each notify the views', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ usage: { inputTokens: 1, outputTokens: 1 }, toolCalls: [listAgents] }, { hang: true }], [{ text: 'b' }]] } },
    });
    track(runtime);
    const seen = changes(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => seen.includes('usage') && root.status === 'running', 'usage');
    assert.deepStrictEqual(seen.slice(0, 3), ['status', 'turn_start', 'usage']);
    seen.length = 0;
    root.send('later', { from: 'user', wake: false });
    assert.deepStrictEqual(seen, ['status'], 'a queued message changes the pending count shown');
    seen.length = 0;
    root.send('now', { from: 'user' });
    assert.deepStrictEqual(seen, ['status']);
    seen.length = 0;
    runtime.stop(root);
    assert.deepStrictEqual(seen, ['status'], 'stopping is shown at once');
    await root.whenIdle();
    seen.length = 0;
    root.dispose();
    root.dispose();
    assert.deepStrictEqual(seen.filter((c) => c === 'disposed'), ['disposed'], 'an agent is disposed once');
  });

  it('turn and start time are known only while a turn runs', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ hang: true }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    assert.strictEqual(root.currentTurn, 1);
    assert.strictEqual(typeof root.turnStartedAt, 'number');
    runtime.stop(root);
    await root.whenIdle();
    assert.strictEqual(root.currentTurn, undefined);
    assert.strictEqual(root.turnStartedAt, undefined);
  });

  it('a Stop with nothing queued leaves the agent unparked, so a child report wakes it later', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ hang: true }], [{ text: 'woken' }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    runtime.stop(root);
    assert.strictEqual(root.isParked, false, 'nothing is parked when nothing waits');
    await root.whenIdle();
    root.send('report', { from: 'child', wake: 'unless-parked' });
    await whenState(runtime, () => reasons(root).length === 2 && root.status === 'idle', 'the report to wake the agent');
    assert.deepStrictEqual(reasons(root), ['aborted:user', 'completed']);
  });

  it("a second stop does not change the first one's cause", async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'kid', prompt: 'w' } }] }, { text: 'ok' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
        kid: { turns: [[{ hang: true }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 2, 'the kid');
    const kid = runtime.agents.all().find((a) => a.label === 'kid')!;
    await whenState(runtime, () => kid.status === 'running', 'the kid turn');
    runtime.subagents.interrupt(kid.id, { kind: 'ancestor', agent: root });
    assert.strictEqual(kid.stopping, 'parent');
    runtime.stop(kid);
    assert.strictEqual(kid.stopping, 'parent', 'the first cause stands');
    await whenState(runtime, () => kid.status === 'idle', 'the kid to stop');
    assert.strictEqual(kid.stopping, undefined);
    assert.deepStrictEqual(reasons(kid), ['aborted:parent']);
  });

  it('the log records a queued message without a step flag unless it joins at the next step, no empty assistant text, and no empty drop', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ toolCalls: [listAgents] }, { hang: true }]] } } });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => root.status === 'running' && toolResults(root).length === 1, 'the tool step');
    root.send('report', { from: 'child', atNextStep: true, wake: false });
    const queued = root.log.events.filter((e) => e.type === 'queued');
    assert.deepStrictEqual(
      queued.map((e) => (e.type === 'queued' ? e.atNextStep : null)),
      [undefined, true],
    );
    assert.ok(!('atNextStep' in queued[0]) || queued[0].atNextStep === undefined);
    assert.strictEqual(root.log.events.filter((e) => e.type === 'assistant_text').length, 0, 'a reply with only tool calls records no text');
    await runtime.end(root);
    assert.strictEqual(root.log.events.filter((e) => e.type === 'queue_dropped').length, 1);
    const { runtime: other } = makeRuntime({ version: 1, agents: { main: { turns: [[{ hang: true }]] } } });
    track(other);
    track(runtime);
    const lone = other.startRoot({ prompt: 'go', label: 'main' });
    await other.end(lone);
    assert.strictEqual(lone.log.events.filter((e) => e.type === 'queue_dropped').length, 0, 'nothing queued, nothing dropped');
  });

  it("a turn ended by a run limit tells the model why at the start of the agent's next turn", async () => {
    const { runtime, calls } = makeRuntime(
      { version: 1, agents: { main: { turns: [[{ toolCalls: [listAgents] }, { text: 'never' }], [{ text: 'summary' }]] } } },
      { limits: { maxStepsPerTurn: 1 } },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    runtime.sendFromUser(root, 'summarise');
    await whenState(runtime, () => reasons(root).length === 2 && root.status === 'idle', 'the next turn');
    const note = '[Arbor] This turn was ended because a turn may make at most 1 model calls. Summarise what you have so far and say what remains.';
    const last = calls.at(-1)!.messages;
    assert.deepStrictEqual(last.slice(-2).map((m) => [m.role, m.content]), [
      ['user', note],
      ['user', 'summarise'],
    ]);
    const systemNote = root.log.events.find((e) => e.type === 'user_message' && e.text === note);
    assert.ok(systemNote && systemNote.type === 'user_message' && systemNote.from === 'system');
  });
});
