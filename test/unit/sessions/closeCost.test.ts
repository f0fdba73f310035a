import * as assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { EndedAgentLogs, type ClosableSessionLog } from '../../../src/core/agents/endedAgentLogs';
import type { Agent } from '../../../src/core/agents/agent';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { forged } from '../../support/forged';
import type { JsonlSessionLog } from '../../../src/core/sessions';
import { makeTempDir, oneShotHeader, tick } from '../../support/sessionFixtures';
import { disposeAfterEach } from '../../support/disposeAfterEach';

/*
 * A fan-out ends a thousand one-shot subagents at once: each turn's end flushes its log and each
 * ended agent closes it, and those waits stay open until the store's journal has written the
 * batches, and the close's until the session has its file. What a log's waits cost is counted
 * here as promises made, the one figure that does not depend on the machine: a turn end's flush
 * by callback makes none, and a close makes the one it returns, however many steps (the flush,
 * the journal, the file) it waits through.
 */

const N = 200;

/** How many promises `work` makes, synchronously and in what it waits for. */
async function promisesMadeBy(work: () => Promise<void>): Promise<number> {
  let made = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') made++;
    },
  });
  hook.enable();
  try {
    await work();
  } finally {
    hook.disable();
  }
  return made;
}

function endedTurn(log: JsonlSessionLog, i: number): void {
  log.append({ type: 'turn_start', at: tick(), turn: 1 });
  log.append({ type: 'user_message', at: tick(), text: `task ${i}`, from: 'parent' });
  log.append({ type: 'assistant_text', at: tick(), text: 'done' });
  log.append({ type: 'turn_end', at: tick(), turn: 1, reason: 'completed' });
}

describe('durable sessions: what closing a fan-out of one-shot logs costs', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-close-cost-')));
  afterEach(() => cleanup());

  /** A store whose journal part is loaded and folder read (one log closed), before anything is counted, and N new one-shot logs. */
  async function warmStoreWithLogs(prefix: string): Promise<{ store: JsonlSessionStore; logs: JsonlSessionLog[] }> {
    const store = track(new JsonlSessionStore(dir, { flushDelayMs: 60_000 }));
    const first = store.create(oneShotHeader(`${prefix}-warm`));
    endedTurn(first, 0);
    await first.close();
    return { store, logs: Array.from({ length: N }, (_, i) => store.create(oneShotHeader(`${prefix}-${i}`))) };
  }

  it("makes no promise for a turn end's flush by callback and one per close until the journal holds every batch, and each close settles once its file is written", async () => {
    const { store, logs } = await warmStoreWithLogs('cost');
    let closes: Promise<void>[] = [];
    let flushed = 0;
    const made = await promisesMadeBy(async () => {
      logs.forEach((log, i) => {
        endedTurn(log, i);
        log.whenFlushed((error) => {
          assert.equal(error, undefined);
          flushed++;
        });
      });
      closes = logs.map((log) => log.close());
      await store.flushAll();
    });
    assert.equal(flushed, N, 'every turn end heard its flush');
    // One per close, and a dozen or so for each of the journal's writes (one per slice of 128 logs) and for flushAll.
    assert.ok(made <= N * 1.5, `${made} promises for ${N} closed logs`);
    await Promise.all(closes);
    for (const log of logs) assert.equal(log.dirty, false);
  });

  it('closes by callback with no promise per log, each called back once its file is written', async () => {
    const { store, logs } = await warmStoreWithLogs('callback');
    let closed = 0;
    let allClosed: () => void = () => undefined;
    const everyClose = new Promise<void>((resolve) => (allClosed = resolve));
    const made = await promisesMadeBy(async () => {
      logs.forEach((log, i) => {
        endedTurn(log, i);
        log.closeThen((error) => {
          assert.equal(error, undefined);
          assert.equal(log.dirty, false);
          if (++closed === N) allClosed();
        });
      });
      await store.flushAll();
    });
    // A dozen or so for each of the journal's writes (one per slice of 128 logs) and for flushAll: none per close.
    assert.ok(made <= N * 0.5, `${made} promises for ${N} closed logs`);
    await everyClose;
    assert.deepEqual(store.openLogs(), [], 'every log let go once its file is written');
  });
});

describe('ended agents: closing their logs', () => {
  function endedAgent(id: string, log: Partial<ClosableSessionLog>): { agent: Agent; detached: () => boolean } {
    let detached = false;
    const agent = forged<Agent>({ id, status: 'idle', log, detachFromLog: () => (detached = true), whenIdle: () => Promise.resolve() });
    return { agent, detached: () => detached };
  }

  it('closes a log that takes a callback by the callback, and is waited for until it is called', async () => {
    let done: (error?: unknown) => void = () => undefined;
    let promiseCloses = 0;
    const { agent, detached } = endedAgent('a1', { closeThen: (d) => (done = d), close: () => (promiseCloses++, Promise.resolve()) });
    const problems: string[] = [];
    const ended = new EndedAgentLogs((message) => problems.push(message));
    ended.agentEnded(agent);
    assert.equal(detached(), true, 'the agent lets go of its log at once');
    assert.equal(promiseCloses, 0, 'no promise close');
    const waited = ended.whenClosed('a1');
    assert.ok(waited);
    assert.equal(ended.pending().length, 1);
    let settled = false;
    void waited.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'not over before the log calls back');
    done();
    await waited;
    assert.equal(ended.whenClosed('a1'), undefined);
    assert.deepEqual(ended.pending(), []);
    assert.deepEqual(problems, []);
  });

  it('reports a close that failed once, and waits no longer for it; a log without the callback is closed by its promise', async () => {
    const problems: string[] = [];
    const ended = new EndedAgentLogs((message) => problems.push(message));
    ended.agentEnded(endedAgent('bad', { closeThen: (d) => d(new Error('disk full')), close: () => Promise.reject(new Error('not this one')) }).agent);
    assert.deepEqual(problems, ['Arbor: could not save session bad']);
    assert.equal(ended.whenClosed('bad'), undefined);

    let closes = 0;
    ended.agentEnded(endedAgent('plain', { close: () => (closes++, Promise.reject(new Error('EIO'))) }).agent);
    assert.equal(closes, 1);
    await ended.whenClosed('plain');
    assert.deepEqual(problems, ['Arbor: could not save session bad', 'Arbor: could not save session plain']);
  });
});
