import * as assert from 'assert';
import type { Agent } from '../../../src/core/agents/agent';
import type { ModelChunk, ModelProvider, ModelRequest } from '../../../src/core/models/types';
import { Runtime } from '../../../src/core/runtime';
import { tick, until, userMessages } from '../../support/runtimeFixture';

/** Small deterministic PRNG so a failing seed can be replayed. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A model that waits a random, abortable while and sometimes starts a grandchild. */
function randomModel(rand: () => number): ModelProvider {
  let ids = 0;
  return {
    id: 'random',
    label: 'random',
    async *stream(req: ModelRequest): AsyncGenerator<ModelChunk> {
      const ms = Math.floor(rand() * 4);
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, ms);
        req.signal.addEventListener('abort', () => (clearTimeout(t), reject(req.signal.reason)), { once: true });
      });
      if (req.step === 1 && req.agentLabel.startsWith('child') && rand() < 0.15) {
        yield { type: 'tool_call', call: { id: `c${++ids}`, name: 'start_subagent', arguments: JSON.stringify({ label: `grand-${ids}`, prompt: 'g' }) } };
        return;
      }
      yield { type: 'text', text: `ok ${req.turn}` };
    },
  };
}

async function runSeed(seed: number): Promise<void> {
  const rand = mulberry32(seed);
  const runtime = new Runtime({ model: randomModel(rand), limits: { maxLiveChildren: 100, maxTurns: 10_000 } });
  const root = runtime.startRoot({ prompt: 'root', label: 'root' });
  await root.whenIdle();
  // The test plays the root's part: it is the exact direct parent of every child.
  const sent = new Map<string, string[]>();
  const childIds: string[] = [];
  // A settled child resumed cold keeps writing to the same session log, so the log is the record.
  const logsById = new Map<string, Agent>();
  for (let i = 0; i < 8; i++) {
    const child = runtime.startContinuable(root, `child-${i}`, `first-${i}`);
    childIds.push(child.id);
    logsById.set(child.id, child);
    sent.set(child.id, [`first-${i}`]);
  }
  let msg = 0;
  for (let op = 0; op < 300; op++) {
    const id = childIds[Math.floor(rand() * childIds.length)];
    const r = rand();
    if (r < 0.55) {
      const text = `m${++msg}`;
      sent.get(id)!.push(text);
      await runtime.subagents.deliver(root, id, text);
    } else if (r < 0.85) {
      const live = runtime.agents.get(id);
      if (live) runtime.stop(live);
    } else {
      // Let turns complete (and idle children settle) for a moment.
      await tick(Math.floor(rand() * 3));
    }
    if (rand() < 0.3) await tick(0);
  }
  // Wake every stopped child so its parked queue drains, then wait for quiet.
  for (const id of childIds) {
    const text = `final-${id}`;
    sent.get(id)!.push(text);
    await runtime.subagents.deliver(root, id, text);
  }
  const quiet = (): boolean => runtime.agents.all().every((a: Agent) => a.status === 'idle' && a.pendingCount === 0);
  await until(quiet, `seed ${seed}: every agent to drain`, 10_000);
  await tick(5);
  await until(quiet, `seed ${seed}: every agent to drain (after settlement)`, 10_000);

  let stops = 0;
  for (const id of childIds) {
    const messages = userMessages(logsById.get(id)!);
    stops += logsById.get(id)!.log.events.filter((e) => e.type === 'turn_end' && e.reason === 'aborted').length;
    const fromParent = messages.filter((m) => !m.startsWith('[Report') && !m.startsWith('[Subagent'));
    assert.deepStrictEqual(fromParent, sent.get(id), `seed ${seed}: ${id} lost, duplicated or reordered a message`);
  }
  // The workload must have stopped turns, or the check above proved nothing about stops. How many
  // of its stops land inside a turn depends on how the machine's timers fall (the model waits 0-3
  // ms): 9 on a loaded CI machine where more than 10 were asked for. Any one is enough for the check.
  assert.ok(stops > 0, `seed ${seed}: the workload stopped no turn`);
  await runtime.dispose();
  assert.strictEqual(runtime.agents.size, 0, `seed ${seed}: an agent outlived dispose`);
  assert.strictEqual(runtime.subagents.liveContinuableCount(), 0, `seed ${seed}: an Activation was left behind`);
}

describe('runtime under random sends, stops, completions and settlements', () => {
  for (const seed of [1, 2, 3, 7, 42, 1234]) {
    it(`loses, duplicates and reorders no queued message, and leaves no Activation (seed ${seed})`, async function () {
      this.timeout(20_000);
      await runSeed(seed);
    });
  }
});
