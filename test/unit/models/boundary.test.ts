import * as assert from 'node:assert/strict';
import * as z from 'zod';
import type { Agent } from '../../../src/core/agents/agent';
import { isArborError } from '../../../src/core/errors';
import { parseModelChunk, type ModelChunk, type ModelProvider, type ModelRequest } from '../../../src/core/models';
import { Runtime, type RuntimeTool } from '../../../src/core/runtime';
import { sessionEventSchema } from '../../../src/core/sessions';
import { disposeAfterEach } from '../../support/disposeAfterEach';

/** A provider that streams exactly the values given, as a misbehaving backend might. */
function rawModel(...values: unknown[]): ModelProvider & { closed: number } {
  const model = {
    id: 'raw',
    label: 'Raw test model',
    closed: 0,
    async *stream(_request: ModelRequest): AsyncGenerator<ModelChunk> {
      try {
        for (const v of values) yield v as ModelChunk;
      } finally {
        model.closed++;
      }
    },
  };
  return model;
}

async function runOneTurn(model: ModelProvider, tools: RuntimeTool[] = []): Promise<{ agent: Agent; runtime: Runtime }> {
  const runtime = new Runtime({ model, tools });
  const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
  await agent.whenIdle();
  return { agent, runtime };
}

/** Every event the agent logged is one the session loader accepts. */
function assertLoadable(agent: Agent): void {
  for (const event of agent.log.events) {
    const parsed = sessionEventSchema().safeParse(JSON.parse(JSON.stringify(event)));
    assert.ok(parsed.success, `the loader accepts ${JSON.stringify(event)}`);
  }
}

describe('model output is parsed at the provider boundary', () => {
  const track = disposeAfterEach();
  for (const [what, usage, field, got] of [
    ['a negative token count', { inputTokens: -5, outputTokens: 1 }, 'inputTokens', '-5'],
    ['a fractional token count', { inputTokens: 1, outputTokens: 1.5 }, 'outputTokens', '1.5'],
    ['a token count sent as text', { inputTokens: '12', outputTokens: 3 }, 'inputTokens', '"12"'],
  ] as const) {
    it(`a usage chunk with ${what} ends the turn with MODEL_BAD_OUTPUT and reaches neither the log nor the counters`, async () => {
      const model = rawModel({ type: 'text', text: 'partial' }, { type: 'usage', ...usage });
      const { agent, runtime } = await runOneTurn(model);
      track(runtime);
      const end = agent.lastTurnEnd!;
      assert.equal(end.reason, 'error');
      assert.equal(end.code, 'MODEL_BAD_OUTPUT');
      assert.match(end.message!, new RegExp(`usage chunk: '${field}' is invalid`));
      assert.ok(end.message!.includes(`got ${got}`), end.message);
      assert.match(end.message!, /Raw test model/);
      assert.deepEqual(agent.usage, { inputTokens: 0, outputTokens: 0 });
      assert.ok(!agent.log.events.some((e) => e.type === 'usage'), 'no usage event is written');
      assertLoadable(agent);
    });
  }

  it('string token counts are never added up as text', async () => {
    const model = rawModel({ type: 'usage', inputTokens: 0, outputTokens: 0 }, { type: 'usage', inputTokens: '12', outputTokens: '0' });
    const { agent, runtime } = await runOneTurn(model);
    track(runtime);
    assert.equal(agent.lastTurnEnd?.code, 'MODEL_BAD_OUTPUT');
    assert.strictEqual(agent.usage.inputTokens, 0);
    assert.strictEqual(typeof agent.usage.inputTokens, 'number');
    assertLoadable(agent);
  });

  for (const [what, call, field] of [
    ['an id that is a number', { id: 7, name: 'noop', arguments: '{}' }, 'call.id'],
    ['a name that is a number', { id: 'c1', name: 42, arguments: '{}' }, 'call.name'],
    ['arguments that are an object', { id: 'c1', name: 'noop', arguments: {} }, 'call.arguments'],
    ['an empty name', { id: 'c1', name: '', arguments: '{}' }, 'call.name'],
  ] as const) {
    it(`a tool call with ${what} ends the turn with MODEL_BAD_OUTPUT, is not logged and does not run`, async () => {
      let ran = 0;
      const noop: RuntimeTool = { name: 'noop', description: 'noop', schema: () => z.object({}), readOnly: true, run: () => (ran++, { content: 'ok' }) };
      const model = rawModel({ type: 'tool_call', call });
      const { agent, runtime } = await runOneTurn(model, [noop]);
      track(runtime);
      assert.equal(agent.lastTurnEnd?.reason, 'error');
      assert.equal(agent.lastTurnEnd?.code, 'MODEL_BAD_OUTPUT');
      assert.match(agent.lastTurnEnd.message!, new RegExp(`'${field.replace('.', '\\.')}' is invalid`));
      assert.equal(ran, 0);
      assert.ok(!agent.log.events.some((e) => e.type === 'tool_call'));
      assertLoadable(agent);
    });
  }

  it('an unknown chunk type or a non-object ends the turn with MODEL_BAD_OUTPUT and closes the stream', async () => {
    for (const bad of [{ type: 'thinking', text: 'hmm' }, null, 'text', 42]) {
      const model = rawModel({ type: 'text', text: 'a' }, bad, { type: 'text', text: 'never read' });
      const { agent, runtime } = await runOneTurn(model);
      assert.equal(agent.lastTurnEnd?.code, 'MODEL_BAD_OUTPUT', JSON.stringify(bad));
      assert.equal(model.closed, 1, 'the provider stream is closed');
      assert.ok(!agent.log.events.some((e) => e.type === 'assistant_text'));
      assertLoadable(agent);
      await runtime.dispose();
    }
  });

  it('valid chunks pass unchanged, without extra keys', async () => {
    const model = rawModel({ type: 'text', text: 'hi', extra: 1 }, { type: 'usage', inputTokens: 3, outputTokens: 2 });
    const { agent, runtime } = await runOneTurn(model);
    track(runtime);
    assert.equal(agent.lastTurnEnd?.reason, 'completed');
    assert.deepEqual(agent.usage, { inputTokens: 3, outputTokens: 2 });
    assertLoadable(agent);
  });

  it('parseModelChunk names the field and the value it got', () => {
    assert.throws(
      () => parseModelChunk({ type: 'usage', inputTokens: 1, outputTokens: 'x'.repeat(500) }, 'M'),
      (e: unknown) => isArborError(e, 'MODEL_BAD_OUTPUT') && e.details?.field === 'outputTokens' && e.message.length < 400,
    );
  });
});
