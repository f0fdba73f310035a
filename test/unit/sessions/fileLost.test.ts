import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { ArborError } from '../../../src/core/errors';
import { JsonlSessionStore, type SessionEvent } from '../../../src/core/sessions';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';

/* A session file deleted, cut or replaced while its agent runs is written again whole. */
describe('durable sessions: a file that changes under a running agent', () => {
  let dir: string;
  let cleanup: () => void;
  let problems: ArborError[];
  let store: JsonlSessionStore;
  beforeEach(() => {
    ({ dir, cleanup } = makeTempDir('arbor-lost-'));
    problems = [];
    store = new JsonlSessionStore(dir, { flushDelayMs: 60_000, onError: (e) => problems.push(e) });
  });
  afterEach(async () => {
    await store.dispose();
    cleanup();
  });

  const message = (text: string): SessionEvent => ({ type: 'user_message', at: tick(), text, from: 'user' });

  async function startedLog(id: string) {
    const log = store.create(header(id));
    log.append({ type: 'turn_start', at: tick(), turn: 1 });
    log.append(message('before'));
    await log.flush();
    return log;
  }

  async function assertWholeOnDisk(id: string, events: readonly SessionEvent[]): Promise<void> {
    const bytes = fs.readFileSync(store.fileOf(id));
    assert.equal(bytes.indexOf(0), -1, 'no NUL bytes');
    const loaded = await new JsonlSessionStore(dir).loadSession(id);
    assert.deepEqual(loaded.events.slice(0, events.length), events);
  }

  it('rewrites a deleted file with its header and every event, and says so in the log', async () => {
    const log = await startedLog('deleted');
    fs.rmSync(log.file);
    log.append(message('after the delete'));
    await log.flush();
    await assertWholeOnDisk('deleted', log.events);
    assert.deepEqual(problems.map((p) => p.code), ['SESSION_FILE_LOST']);
    assert.match(problems[0].message, /deleted.*nothing is lost/);
    // And it goes on appending at the right place.
    log.append(message('later'));
    await log.flush();
    await assertWholeOnDisk('deleted', log.events);
  });

  it('rewrites a file another program cut short or replaced', async () => {
    const cut = await startedLog('cut');
    fs.truncateSync(cut.file, 10);
    cut.append(message('after the cut'));
    await cut.flush();
    await assertWholeOnDisk('cut', cut.events);

    const replaced = await startedLog('replaced');
    fs.rmSync(replaced.file);
    fs.writeFileSync(replaced.file, 'x'.repeat(10_000));
    replaced.append(message('after the replacement'));
    await replaced.flush();
    await assertWholeOnDisk('replaced', replaced.events);
    assert.deepEqual(problems.map((p) => p.code), ['SESSION_FILE_LOST', 'SESSION_FILE_LOST']);
  });

  it('rewrites a deleted file on the synchronous flush at exit too, and when its folder is gone', async () => {
    const log = await startedLog('exit');
    fs.rmSync(dir, { recursive: true });
    log.append(message('at exit'));
    assert.deepEqual(store.flushAllSync(), []);
    await assertWholeOnDisk('exit', log.events);
  });
});
