import * as assert from 'node:assert/strict';
import { COALESCE_MS, REPAINT_INTERVAL_MS, RepaintQueue } from '../../../src/extension/agents/repaintQueue';
import { FakeClock, HostTreeView } from '../../support/treeViewHost';
import { disposeAfterEach } from '../../support/disposeAfterEach';

/**
 * A steady load: `perMs` changes every millisecond for `ms`, spread over `nodes` rows, fed
 * through the queue, the extension host's debounce and its refresh chain to a workbench that
 * takes `refreshMs` to apply each repaint. Returns the longest a change waited until the view
 * showed its row repainted after it, what was fired, and how long the host's queue grew.
 */
function steadyLoad(options: { nodes: number; perMs: number; ms: number; refreshMs: number; settleMs: number }) {
  const clock = new FakeClock();
  const fired: number[][] = [];
  // The latest change of each row not yet shown: a repaint applied after it settles it.
  const waiting = new Map<number, number>();
  let worstLatency = 0;
  let queue: RepaintQueue<number> | undefined = undefined;
  const host = new HostTreeView<number>(
    clock,
    options.refreshMs,
    () => queue?.acknowledge(),
    (nodes) => {
      for (const node of nodes ?? [...waiting.keys()]) {
        const since = waiting.get(node);
        if (since === undefined) continue;
        worstLatency = Math.max(worstLatency, clock.now() - since);
        waiting.delete(node);
      }
    },
  );
  queue = new RepaintQueue<number>((nodes) => {
    fired.push(nodes ?? []);
    host.debounce.fire(nodes);
    return true;
  }, clock);
  let changes = 0;
  for (let t = 0; t < options.ms; t++) {
    for (let i = 0; i < options.perMs; i++) {
      const node = (changes++ * 7919) % options.nodes;
      // A row repainted while its change is in flight is still settled by the later repaint.
      if (!waiting.has(node)) waiting.set(node, clock.now());
      queue.mark(node);
    }
    clock.advance(1);
  }
  clock.advance(options.settleMs);
  const undelivered = [...waiting.values()].map((since) => clock.now() - since);
  queue.dispose();
  return { worstLatency: Math.max(worstLatency, ...undelivered, 0), undelivered: waiting.size, fired, maxQueued: host.maxQueued };
}

describe('repaints of the Agents view under load', () => {
  const track = disposeAfterEach();
  it('every row reaches the workbench within a second while 10,000 changes a second keep coming for 1,000 rows', () => {
    const run = steadyLoad({ nodes: 1000, perMs: 10, ms: 5000, refreshMs: 20, settleMs: 1000 });
    assert.equal(run.undelivered, 0, `${run.undelivered} rows never reached the view while the load lasted`);
    assert.ok(run.worstLatency <= 1000, `a change waited ${run.worstLatency} ms to be shown`);
  });

  it('a workbench slower than the repaints gets them one at a time, each with everything that changed meanwhile', () => {
    const run = steadyLoad({ nodes: 1000, perMs: 10, ms: 10_000, refreshMs: 700, settleMs: 3000 });
    assert.ok(run.maxQueued <= 1, `the host queued ${run.maxQueued} repaints behind a slow workbench`);
    assert.ok(run.worstLatency <= 2 * 700 + 250 + 50, `a change waited ${run.worstLatency} ms to be shown`);
  });

  it('coalesces: at most four repaints a second, each naming a row once', () => {
    const run = steadyLoad({ nodes: 1000, perMs: 10, ms: 5000, refreshMs: 20, settleMs: 1000 });
    assert.ok(run.fired.length <= 6 * (1000 / REPAINT_INTERVAL_MS) + 1, `${run.fired.length} repaints in 6 s`);
    for (const nodes of run.fired) assert.equal(new Set(nodes).size, nodes.length, 'a row named twice in one repaint');
  });

  it('a burst after a quiet spell costs one repaint, soon after it', () => {
    const clock = new FakeClock();
    const fired: Array<{ at: number; nodes: string[] | undefined }> = [];
    const queue = new RepaintQueue<string>((nodes) => fired.push({ at: clock.now(), nodes }) > 0, clock);
    track(queue);
    clock.advance(10_000);
    for (let i = 0; i < 500; i++) queue.mark(i % 2 ? 'a' : 'b');
    assert.equal(queue.pending, true);
    clock.advance(1000);
    assert.deepEqual(fired, [{ at: 10_000 + COALESCE_MS, nodes: ['b', 'a'] }]);
    assert.equal(queue.pending, false);
    queue.acknowledge();
    queue.mark('a');
    clock.advance(COALESCE_MS);
    queue.acknowledge();
    queue.markAll();
    clock.advance(1000);
    assert.equal(fired.length, 3);
    assert.deepEqual(fired[2], { at: fired[1].at + REPAINT_INTERVAL_MS, nodes: undefined }, 'a node coming or going repaints the whole tree, spaced like the rest');
  });
});
