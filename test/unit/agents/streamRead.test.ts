import * as assert from 'node:assert/strict';
import type { ModelChunk, ModelProvider, ModelRequest } from '../../../src/core/models';
import { Runtime } from '../../../src/core/runtime';
import { disposeAfterEach } from '../../support/disposeAfterEach';

/** A provider that streams `chunks` and counts how often its stream was closed early. */
function streaming(chunks: ModelChunk[], fail?: Error): ModelProvider & { closed: number; pulled: number } {
  const model = {
    id: 'streaming',
    label: 'streaming',
    closed: 0,
    pulled: 0,
    stream(_request: ModelRequest): AsyncIterable<ModelChunk> {
      let i = 0;
      return {
        [Symbol.asyncIterator]: () => ({
          next: async (): Promise<IteratorResult<ModelChunk>> => {
            model.pulled++;
            if (i < chunks.length) return { done: false, value: chunks[i++] };
            if (fail) throw fail;
            return { done: true, value: undefined };
          },
          return: async (): Promise<IteratorResult<ModelChunk>> => {
            model.closed++;
            return { done: true, value: undefined };
          },
        }),
      };
    },
  };
  return model;
}

describe('reading a model stream', () => {
  const track = disposeAfterEach();
  it('a Stop made while a chunk is being taken ends the turn at once: nothing after it is read or recorded, and the stream is closed', async () => {
    const model = streaming([
      { type: 'text', text: 'one ' },
      { type: 'usage', inputTokens: 1, outputTokens: 1 },
      { type: 'text', text: 'two' },
      { type: 'tool_call', call: { id: 'c1', name: 'list_agents', arguments: '{}' } },
    ]);
    const runtime = new Runtime({ model });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    runtime.onEvent((e) => {
      if (e.type === 'agent_changed' && e.agent === agent && e.change.type === 'log' && e.change.event.type === 'usage') runtime.stop(agent);
    });
    await agent.whenIdle();
    assert.equal(agent.lastTurnEnd?.reason, 'aborted');
    assert.equal(model.pulled, 2, 'no chunk is asked for after the Stop');
    assert.equal(model.closed, 1);
    assert.ok(!agent.log.events.some((e) => e.type === 'assistant_text' || e.type === 'tool_call'), JSON.stringify(agent.log.events.map((e) => e.type)));
  });

  it('a stream that fails after some chunks ends the turn with its error, and one that ends is not closed again', async () => {
    const failing = streaming([{ type: 'text', text: 'partial' }], new Error('the connection broke'));
    const runtime = new Runtime({ model: failing });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    await agent.whenIdle();
    assert.equal(agent.lastTurnEnd?.reason, 'error');
    assert.match(agent.lastTurnEnd?.message ?? '', /the connection broke/);
    assert.equal(failing.closed, 1);
    await runtime.dispose();

    const whole = streaming([{ type: 'text', text: 'all ' }, { type: 'text', text: 'of it' }]);
    const second = new Runtime({ model: whole });
    track(second);
    const done = second.startRoot({ prompt: 'go', label: 'main' });
    await done.whenIdle();
    assert.equal(done.lastTurnEnd?.reason, 'completed');
    assert.equal(done.lastTurnEnd?.finalText, 'all of it');
    assert.equal(whole.closed, 0);
  });
});
