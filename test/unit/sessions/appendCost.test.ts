import * as assert from 'node:assert/strict';
import { JsonlSessionStore, type SessionEvent } from '../../../src/core/sessions';
import { everyEventType, header, makeTempDir } from '../../support/sessionFixtures';
import { disposeAfterEach } from '../../support/disposeAfterEach';

/*
 * What a durable session costs the agent that appends: the check only. Serializing, the
 * checksum and the write happen in the background, each event serialized once, when its batch
 * is written. Counted in calls, never timed.
 */
describe('durable sessions: what an append costs the agent', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-append-cost-')));
  afterEach(() => cleanup());

  /**
   * Appends through `log` and counts, per event type, how many times each appended event is
   * serialized from then on: every serializer (JSON.stringify, or the hand-written lines of
   * eventLines.ts) reads its checked copy's `at` exactly once, so a getter on it counts the
   * reads made from inside one of them (the size estimate reads every key too, and is not a
   * serialization).
   */
  function countingAppends(log: { append(event: SessionEvent): void; readonly events: readonly SessionEvent[] }): { append: (event: SessionEvent) => void; counts: Map<string, number> } {
    const counts = new Map<string, number>();
    const append = (event: SessionEvent): void => {
      log.append(event);
      const copy = log.events[log.events.length - 1];
      const { type, at } = copy;
      Object.defineProperty(copy, 'at', {
        get: () => {
          if (/\b(eventLine|JSON\.stringify)\b/.test(new Error().stack ?? '')) counts.set(type, (counts.get(type) ?? 0) + 1);
          return at;
        },
        enumerable: true,
        configurable: true,
      });
    };
    return { append, counts };
  }

  it('an append serializes nothing; the write serializes each event exactly once, and the session loads whole', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    track(store);
    const log = store.create(header('cost'));
    const events: SessionEvent[] = everyEventType();
    const { append, counts } = countingAppends(log);
    for (const event of events) append(event);
    const afterAppends = [...counts.values()].reduce((a, b) => a + b, 0);
    await log.flush();
    assert.equal(afterAppends, 0, 'append() serialized events the agent then waited for');
    const perType = new Map<string, number>();
    for (const e of events) perType.set(e.type, (perType.get(e.type) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(counts), Object.fromEntries(perType), 'each event is serialized once, by the write');
    await store.dispose();
    assert.deepEqual((await new JsonlSessionStore(dir).loadSession('cost')).events, events);
  });

  it('an event changed by its caller after the append is written as it was appended', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    track(store);
    const log = store.create(header('later-change'));
    const event = { type: 'assistant_text' as const, at: '2026-01-02T03:04:05.000Z', text: 'as appended' };
    log.append(event);
    event.text = 'changed afterwards';
    await store.dispose();
    const loaded = await new JsonlSessionStore(dir).loadSession('later-change');
    assert.deepEqual(loaded.events, [{ type: 'assistant_text', at: '2026-01-02T03:04:05.000Z', text: 'as appended' }]);
  });

  it("a one-shot session's lines are serialized once, for the journal, and its file is written from those bytes", async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    track(store);
    const log = store.create(header('journaled', { kind: 'one-shot', parentSession: 'root', delegationDepth: 1 }));
    const first: SessionEvent[] = [
      { type: 'turn_start', at: '2026-01-02T03:04:05.000Z', turn: 1 },
      { type: 'assistant_text', at: '2026-01-02T03:04:06.000Z', text: 'in the journal' },
    ];
    const later: SessionEvent = { type: 'turn_end', at: '2026-01-02T03:04:07.000Z', turn: 1, reason: 'completed' };
    const { append, counts } = countingAppends(log);
    for (const event of first) append(event);
    await log.flush(); // into the journal
    append(later);
    await log.close(); // its file, with every line
    assert.deepEqual(Object.fromEntries(counts), { turn_start: 1, assistant_text: 1, turn_end: 1 }, 'each event serialized once, journal and file together');
    await store.dispose();
    assert.deepEqual((await new JsonlSessionStore(dir).loadSession('journaled')).events, [...first, later]);
  });

  it("one-shot sessions flushed at their turns' ends are serialized after that stretch of work, in the journal's write, not in the flush the agent calls", async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    track(store);
    const logs = ['a', 'b', 'c'].map((id) => store.create(header(`burst-${id}`, { kind: 'one-shot', parentSession: 'root', delegationDepth: 1 })));
    const counting = logs.map(countingAppends);
    const flushed = logs.map((log, i) => {
      counting[i].append({ type: 'turn_end', at: '2026-01-02T03:04:07.000Z', turn: 1, reason: 'completed' });
      return log.flush();
    });
    const total = (): number => counting.reduce((sum, c) => sum + (c.counts.get('turn_end') ?? 0), 0);
    const duringFlushes = total();
    await Promise.all(flushed);
    assert.equal(duringFlushes, 0, 'a turn-end flush serialized its batch while the agents were still running');
    assert.equal(total(), 3, 'each batch serialized once, by the journal');
  });
});
