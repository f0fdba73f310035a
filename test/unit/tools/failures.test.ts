import * as assert from 'node:assert/strict';
import * as z from 'zod';
import { ArborError, limitExceeded } from '../../../src/core/errors';
import { Runtime, type RuntimeTool } from '../../../src/core/runtime';
import { reasons, recordingModel, toolResults } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';

const tool = (name: string, run: RuntimeTool['run']): RuntimeTool => ({ name, description: name, schema: () => z.object({}), readOnly: true, run });

const tools: RuntimeTool[] = [
  tool('arbor_sync', () => {
    throw new ArborError('INPUT_INVALID', 'refused at once');
  }),
  tool('arbor_async', () => Promise.reject(new ArborError('INPUT_INVALID', 'refused later'))),
  tool('plain_sync', () => {
    throw new Error('broke at once');
  }),
  tool('plain_async', async () => {
    await Promise.resolve();
    throw new Error('broke later');
  }),
  tool('fine_sync', () => ({ content: 'fine' })),
];

describe('what a tool that fails gives the model', () => {
  const track = disposeAfterEach();
  it('an ArborError is its error result, anything else a TOOL_FAILED result, thrown at once or later alike, and the turn goes on', async () => {
    const calls = tools.map((t, i) => ({ name: t.name, arguments: {}, id: `c${i}` }));
    const script = { version: 1 as const, agents: { main: { turns: [[{ toolCalls: calls }, { text: 'went on' }]] } } };
    const runtime = new Runtime({ model: recordingModel(script).model, tools });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    await agent.whenIdle();
    assert.deepEqual(reasons(agent), ['completed']);
    const results = toolResults(agent).map((r) => ({ isError: r.isError === true, content: r.content }));
    const codes = results.map((r) => (r.isError ? (JSON.parse(r.content) as { code: string }).code : r.content));
    assert.deepEqual(codes, ['INPUT_INVALID', 'INPUT_INVALID', 'TOOL_FAILED', 'TOOL_FAILED', 'fine']);
    assert.match(results[0].content, /refused at once/);
    assert.match(results[1].content, /refused later/);
    assert.match(results[2].content, /broke at once/);
    assert.match(results[3].content, /broke later/);
  });

  it('a limit a tool throws, at once or later, ends the turn with reason budget', async () => {
    for (const run of [
      () => {
        throw limitExceeded('a test limit');
      },
      () => Promise.reject(limitExceeded('a test limit')),
    ] as RuntimeTool['run'][]) {
      const script = { version: 1 as const, agents: { main: { turns: [[{ toolCalls: [{ name: 'limited', arguments: {} }] }, { text: 'never' }]] } } };
      const runtime = new Runtime({ model: recordingModel(script).model, tools: [tool('limited', run)] });
      const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
      await agent.whenIdle();
      assert.equal(agent.lastTurnEnd?.reason, 'budget');
      assert.match(agent.lastTurnEnd?.message ?? '', /a test limit/);
      await runtime.dispose();
    }
  });
});
