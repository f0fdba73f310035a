import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { isArborError } from '../../../src/core/errors';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';
import { disposeAfterEach } from '../../support/disposeAfterEach';

/*
 * flushAll waits for every open log with one promise for all of them: it settles only once each
 * log's write has settled, resolves when all of them wrote, and rejects with the failure of the
 * first log (in the order they were opened) whose write failed, while the others are written.
 */
describe('durable sessions: flushAll over many logs', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-flush-all-')));
  afterEach(() => cleanup());

  it('resolves at once with nothing open, and once every log is written otherwise', async () => {
    const store = track(new JsonlSessionStore(dir, { flushDelayMs: 60_000 }));
    await store.flushAll();
    const logs = ['a', 'b', 'c'].map((id) => store.create(header(`all-${id}`)));
    for (const log of logs) log.append({ type: 'turn_start', at: tick(), turn: 1 });
    await store.flushAll();
    for (const log of logs) assert.equal(log.dirty, false);
  });

  it('rejects with the first failing log once every log has settled, and writes the others', async () => {
    const store = track(new JsonlSessionStore(dir, { flushDelayMs: 60_000 }));
    const good = store.create(header('all-good'));
    const bad = store.create(header('all-bad'));
    const last = store.create(header('all-last'));
    // Something else took the second session's file name before its first write.
    fs.mkdirSync(bad.file);
    for (const log of [good, bad, last]) log.append({ type: 'turn_start', at: tick(), turn: 1 });
    let failure: unknown;
    await store.flushAll().catch((e: unknown) => (failure = e));
    assert.ok(isArborError(failure), `flushAll rejected with ${String(failure)}`);
    assert.equal(failure, bad.problem, "the failure is the failing log's own");
    assert.equal(good.dirty, false);
    assert.equal(last.dirty, false, 'the log after the failing one was written before flushAll settled');
    assert.equal(bad.dirty, true);
    fs.rmdirSync(bad.file);
    await store.flushAll();
  });
});
