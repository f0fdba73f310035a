import * as assert from 'node:assert/strict';
import { COALESCE_MS, REPAINT_INTERVAL_MS, RepaintQueue } from '../../src/extension/agents/repaintQueue';
import { FakeClock, HostTreeDebounce } from '../support/treeViewHost';

/**
 * A steady load: `perMs` changes every millisecond for `ms`, spread over `nodes` rows, fed
 * through the queue and the extension host's debounce. Returns, per change, how long until a
 * repaint naming its row reached the workbench (Infinity if none did), and what was delivered.
 */
function steadyLoad(options: { nodes: number; perMs: number; ms: number; settleMs?: number }) {
  const clock = new FakeClock();
  const deliveries: Array<{ at: number; nodes: number[] | undefined }> = [];
  const host = new HostTreeDebounce<number>(clock, (nodes) => deliveries.push({ at: clock.now(), nodes }));
  const fired: number[][] = [];
  const queue = new RepaintQueue<number>((nodes) => {
    fired.push(nodes ?? []);
    host.fire(nodes);
  }, clock);
  // The latest change of each row not yet delivered: a delivery naming the row settles it.
  const waiting = new Map<number, number>();
  const worst = { latency: 0 };
  let changes = 0;
  const settle = (nodes: number[] | undefined): void => {
    for (const node of nodes ?? [...waiting.keys()]) {
      const since = waiting.get(node);
      if (since === undefined) continue;
      worst.latency = Math.max(worst.latency, clock.now() - since);
      waiting.delete(node);
    }
  };
  deliveries.push = function (...items) {
    for (const item of items) settle(item.nodes);
    return Array.prototype.push.apply(this, items);
  };
  for (let t = 0; t < options.ms; t++) {
    for (let i = 0; i < options.perMs; i++) {
      const node = (changes++ * 7919) % options.nodes;
      if (!waiting.has(node)) waiting.set(node, clock.now());
      queue.mark(node);
    }
    clock.advance(1);
  }
  clock.advance(options.settleMs ?? 2000);
  const undelivered = [...waiting.values()].map((since) => clock.now() - since);
  queue.dispose();
  return { worstLatency: Math.max(worst.latency, ...undelivered, 0), undelivered: waiting.size, fired, deliveries, changes };
}

describe('repaints of the Agents view under load', () => {
  it('every row reaches the workbench within a second while 10,000 changes a second keep coming for 1,000 rows', () => {
    const run = steadyLoad({ nodes: 1000, perMs: 10, ms: 5000, settleMs: 1000 });
    assert.equal(run.undelivered, 0, `${run.undelivered} rows never reached the view while the load lasted`);
    assert.ok(run.worstLatency <= 1000, `a change waited ${run.worstLatency} ms for its repaint`);
  });

  it('coalesces: at most four repaints a second, each naming a row once', () => {
    const run = steadyLoad({ nodes: 1000, perMs: 10, ms: 5000 });
    assert.ok(run.fired.length <= 5 * (1000 / REPAINT_INTERVAL_MS) + 1, `${run.fired.length} repaints in 5 s`);
    for (const nodes of run.fired) assert.equal(new Set(nodes).size, nodes.length, 'a row named twice in one repaint');
    assert.equal(run.deliveries.length, run.fired.length, 'every repaint passed the host on its leading edge');
  });

  it('a burst after a quiet spell costs one repaint, soon after it', () => {
    const clock = new FakeClock();
    const fired: Array<{ at: number; nodes: string[] | undefined }> = [];
    const queue = new RepaintQueue<string>((nodes) => fired.push({ at: clock.now(), nodes }), clock);
    clock.advance(10_000);
    for (let i = 0; i < 500; i++) queue.mark(i % 2 ? 'a' : 'b');
    assert.equal(queue.pending, true);
    clock.advance(1000);
    assert.deepEqual(fired, [{ at: 10_000 + COALESCE_MS, nodes: ['b', 'a'] }]);
    assert.equal(queue.pending, false);
    queue.mark('a');
    clock.advance(COALESCE_MS);
    queue.markAll();
    clock.advance(1000);
    assert.equal(fired.length, 3);
    assert.deepEqual(fired[2], { at: fired[1].at + REPAINT_INTERVAL_MS, nodes: undefined }, 'a node coming or going repaints the whole tree, spaced like the rest');
    queue.dispose();
  });
});
