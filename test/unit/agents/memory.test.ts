import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import type { ModelChunk, ModelProvider, ModelRequest } from '../../../src/core/models';
import { Runtime } from '../../../src/core/runtime';
import { disposeAfterEach } from '../../support/disposeAfterEach';

// A full collection on demand, so that what is still reachable can be told from garbage.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const macrotask = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('memory of the turn loop', () => {
  const track = disposeAfterEach();
  it('a streamed chunk is not kept reachable after the loop has read it, however many the turn streams', async () => {
    const refs: WeakRef<object>[] = [];
    let hanging = false;
    const model: ModelProvider = {
      id: 'many-chunks',
      label: 'many chunks',
      async *stream(request: ModelRequest): AsyncGenerator<ModelChunk> {
        for (let i = 0; i < 2000; i++) {
          const chunk: ModelChunk = { type: 'text', text: '' };
          refs.push(new WeakRef(chunk));
          yield chunk;
        }
        hanging = true;
        // Like a server that goes quiet: the turn is still running, waiting for more.
        await new Promise<never>((_, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }));
      },
    };
    const runtime = new Runtime({ model });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    while (!hanging) await macrotask();
    await macrotask();
    gc();
    await macrotask();
    gc();
    const alive = refs.filter((r) => r.deref() !== undefined).length;
    assert.ok(alive <= 2, `${alive} of 2000 chunks are still reachable while the turn waits for more`);
    runtime.stop(agent);
    await agent.whenIdle();
    assert.equal(agent.lastTurnEnd?.reason, 'aborted');
  });

  it('a reply streamed in many pieces is put back together in order', async () => {
    const pieces = Array.from({ length: 1000 }, (_, i) => (i % 7 === 0 ? '' : `${i},`));
    const model: ModelProvider = {
      id: 'pieces',
      label: 'pieces',
      async *stream(): AsyncGenerator<ModelChunk> {
        for (const text of pieces) yield { type: 'text', text };
      },
    };
    const runtime = new Runtime({ model });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    await agent.whenIdle();
    assert.equal(agent.lastTurnEnd?.finalText, pieces.join(''));
  });
});
