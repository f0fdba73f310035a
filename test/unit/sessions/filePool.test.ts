import * as assert from 'node:assert/strict';
import { FilePool, type FileLane } from '../../../src/core/sessions/filePool';

// The store's file pool keeps slots for the work someone waits for (a root's batch, a lock, a
// read for History): a fan-out's thousand one-shot sessions, filed in the background after their
// lines landed in the journal, never hold every slot, and a foreground operation queued behind
// them runs first.

/** All promise reactions already due have run. */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Operations that each run until the test finishes them; which have started, in order. */
function heldOperations(pool: FilePool) {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const done: string[] = [];
  const run = (name: string, lane?: FileLane): Promise<void> =>
    pool
      .run(
        () =>
          new Promise<void>((resolve) => {
            started.push(name);
            finishers.set(name, resolve);
          }),
        lane,
      )
      .then(() => void done.push(name));
  const finish = async (name: string): Promise<void> => {
    const end = finishers.get(name);
    assert.ok(end, `${name} has not started`);
    end();
    await settled();
  };
  return { run, finish, started, done };
}

describe('file pool lanes', () => {
  it('background operations never take the slots kept for the foreground: a foreground operation starts at once', async () => {
    const pool = new FilePool(16);
    const ops = heldOperations(pool);
    for (let i = 0; i < 40; i++) void ops.run(`b${i}`, 'background');
    await settled();
    assert.equal(ops.started.length, 12, 'a quarter of the slots stays free for the foreground');
    void ops.run('root batch');
    await settled();
    assert.equal(ops.started.at(-1), 'root batch');
  });

  it('a freed slot goes to the oldest waiting foreground operation before any waiting background one', async () => {
    const pool = new FilePool(4);
    const ops = heldOperations(pool);
    for (let i = 0; i < 3; i++) void ops.run(`b${i}`, 'background');
    void ops.run('f0');
    await settled();
    assert.deepEqual(ops.started, ['b0', 'b1', 'b2', 'f0']);
    void ops.run('b3', 'background');
    void ops.run('f1');
    void ops.run('f2');
    await settled();
    assert.equal(ops.started.length, 4, 'every slot is taken');
    await ops.finish('b0');
    assert.deepEqual(ops.started.slice(4), ['f1'], 'the foreground goes first, whichever lane freed the slot');
    await ops.finish('f0');
    assert.deepEqual(ops.started.slice(4), ['f1', 'f2']);
    await ops.finish('f1');
    assert.deepEqual(ops.started.slice(4), ['f1', 'f2', 'b3'], 'then the background, in the order it came');
  });

  it('never runs more than its limit at once, and every operation runs once, each lane in the order it came', async () => {
    const pool = new FilePool(5);
    const ops = heldOperations(pool);
    const names: string[] = [];
    for (let i = 0; i < 30; i++) {
      const name = i % 3 === 0 ? `f${i}` : `b${i}`;
      names.push(name);
      void ops.run(name, name.startsWith('b') ? 'background' : 'foreground');
    }
    await settled();
    while (ops.done.length < names.length) {
      assert.ok(ops.started.length - ops.done.length <= 5, 'more than the limit at once');
      const running = ops.started.filter((n) => !ops.done.includes(n));
      assert.ok(running.filter((n) => n.startsWith('b')).length <= 4, 'the background took the kept slot');
      await ops.finish(running[0]);
    }
    assert.deepEqual([...ops.done].sort(), [...names].sort());
    const inOrder = (lane: string): void => assert.deepEqual(ops.started.filter((n) => n.startsWith(lane)), names.filter((n) => n.startsWith(lane)));
    inOrder('f');
    inOrder('b');
  });

  it('a pool of one slot lets the background use it (nothing is kept)', async () => {
    const pool = new FilePool(1);
    const ops = heldOperations(pool);
    void ops.run('b0', 'background');
    await settled();
    assert.deepEqual(ops.started, ['b0']);
    void ops.run('f0');
    await settled();
    assert.deepEqual(ops.started, ['b0']);
    await ops.finish('b0');
    assert.deepEqual(ops.started, ['b0', 'f0']);
  });

  it('an operation that throws frees its slot for the next one', async () => {
    const pool = new FilePool(2, { attempts: 1, firstDelayMs: 0 });
    const ops = heldOperations(pool);
    const failed = pool.run(() => Promise.reject(new Error('disk gone')), 'background');
    await assert.rejects(failed, /disk gone/);
    void ops.run('b0', 'background');
    void ops.run('f0');
    await settled();
    assert.deepEqual(ops.started, ['b0', 'f0']);
  });
});
