import * as assert from 'node:assert/strict';
import type { ModelChunk, ModelProvider, ModelRequest } from '../../../src/core/models';
import { Runtime } from '../../../src/core/runtime';

/** A model that records each request's signal and answers at once, or hangs when asked to. */
function signalModel(options: { hangOn?: number; leaveListenerOn?: number } = {}): ModelProvider & { signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  return {
    id: 'signals',
    label: 'signals',
    signals,
    async *stream(request: ModelRequest): AsyncGenerator<ModelChunk> {
      signals.push(request.signal);
      if (signals.length === options.leaveListenerOn) request.signal.addEventListener('abort', () => undefined);
      if (signals.length === options.hangOn) {
        await new Promise<never>((_, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }));
      }
      yield { type: 'text', text: `answer ${signals.length}` };
    },
  };
}

async function turns(model: ModelProvider, n: number, onStart?: (runtime: Runtime, turn: number) => void): Promise<void> {
  const runtime = new Runtime({ model });
  const agent = runtime.startRoot({ prompt: 'turn 1', label: 'main' });
  onStart?.(runtime, 1);
  await agent.whenIdle();
  for (let i = 2; i <= n; i++) {
    runtime.sendFromUser(agent, `turn ${i}`);
    onStart?.(runtime, i);
    await agent.whenIdle();
  }
  await runtime.dispose();
}

describe('the turn signal', () => {
  it('consecutive turns that end cleanly share one AbortSignal instead of creating one per turn', async () => {
    const model = signalModel();
    await turns(model, 4);
    assert.equal(model.signals.length, 4);
    assert.ok(model.signals.every((s) => s === model.signals[0]));
    assert.ok(!model.signals[0].aborted);
  });

  it('a stopped turn\'s signal is never handed to a later turn', async () => {
    const model = signalModel({ hangOn: 2 });
    await turns(model, 3, (runtime, turn) => {
      if (turn !== 2) return;
      void (async () => {
        while (model.signals.length < 2) await new Promise((r) => setImmediate(r));
        runtime.stop(runtime.agents.all()[0]);
      })();
    });
    assert.equal(model.signals.length, 3);
    assert.ok(model.signals[1].aborted);
    assert.notEqual(model.signals[2], model.signals[1]);
    assert.ok(!model.signals[2].aborted);
  });

  it('a turn that left a listener on its signal gives the next turn a fresh one', async () => {
    const model = signalModel({ leaveListenerOn: 1 });
    await turns(model, 2);
    assert.notEqual(model.signals[1], model.signals[0]);
  });
});
