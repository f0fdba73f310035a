import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError } from '../../../src/core/errors';
import { JsonlSessionStore, SESSION_FORMAT_VERSION, type SessionEvent } from '../../../src/core/sessions';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';
import { disposeAfterEach } from '../../support/disposeAfterEach';

// The session store's catalog and its typed refusals, as the History view and resume see them.

async function arborError(promise: Promise<unknown> | (() => unknown)): Promise<ArborError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (e) {
    if (e instanceof ArborError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('session store, pinned', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir()));
  afterEach(() => cleanup());

  const ev = (text: string): SessionEvent => ({ type: 'assistant_text', at: tick(), text });

  it('diagnostics come sorted by file, and carry id, line and version only when they apply', async () => {
    fs.mkdirSync(path.join(dir, 'b-dir.jsonl'));
    fs.writeFileSync(path.join(dir, 'c-future.jsonl'), JSON.stringify({ type: 'header', version: SESSION_FORMAT_VERSION + 1, id: 'c-future' }) + '\n');
    fs.writeFileSync(path.join(dir, 'a-bad.jsonl'), '{nope\n');
    const { diagnostics } = await new JsonlSessionStore(dir).listSessions();
    assert.deepEqual(diagnostics.map((d) => path.basename(d.file)), ['a-bad.jsonl', 'b-dir.jsonl', 'c-future.jsonl']);
    assert.deepEqual(Object.keys(diagnostics[0]).sort(), ['code', 'file', 'id', 'line', 'message']);
    assert.deepEqual(Object.keys(diagnostics[1]).sort(), ['code', 'file', 'id', 'message']);
    assert.equal(diagnostics[1].code, 'SESSION_UNREADABLE');
    assert.deepEqual(Object.keys(diagnostics[2]).sort(), ['code', 'file', 'id', 'message', 'version']);
  });

  it('sessions read from disk are listed as not live', async () => {
    const store = new JsonlSessionStore(dir);
    track(store);
    const log = store.create(header('past'));
    log.append(ev('x'));
    await store.dispose();
    const { sessions } = await new JsonlSessionStore(dir).listSessions();
    assert.deepEqual(sessions.map((s) => [s.header.id, s.live]), [['past', false]]);
  });

  it('reopening a session with a long torn tail cuts it off before appending', async () => {
    const store = new JsonlSessionStore(dir);
    track(store);
    const log = store.create(header('torn'));
    log.append(ev('kept'));
    await store.dispose();
    fs.appendFileSync(log.file, '{"type":"assistant_text","at":"2026-01-01T00:00:00.000Z","text":"' + 'x'.repeat(300));
    const again = new JsonlSessionStore(dir);
    const reopened = await again.reopenLog('torn');
    reopened.append(ev('new'));
    await again.dispose();
    const loaded = await new JsonlSessionStore(dir).loadSession('torn');
    assert.equal(loaded.repairs.tornTailBytes, 0);
    assert.deepEqual(loaded.events.map((e) => (e.type === 'assistant_text' ? e.text : e.type)), ['kept', 'new']);
  });

  it('refusals name the session and say what to do', async () => {
    const store = new JsonlSessionStore(dir);
    track(store);
    store.create(header('one'));
    const exists = await arborError(() => store.create(header('one')));
    assert.equal(exists.code, 'SESSION_EXISTS');
    assert.equal(exists.message, 'Session one already exists; resume it with reopenLog or choose a new id.');
    assert.deepEqual(exists.details, { id: 'one' });
    const inUse = await arborError(store.reopenLog('one'));
    assert.equal(inUse.code, 'SESSION_IN_USE');
    assert.equal(inUse.message, 'Session one is already open for writing.');
    assert.deepEqual(inUse.details, { id: 'one' });
    const version = await arborError(() => store.create({ ...header('v'), version: 0 }));
    assert.equal(version.code, 'INPUT_INVALID');
    const missing = await arborError(store.loadSession('ghost'));
    assert.equal(missing.code, 'SESSION_NOT_FOUND');
    assert.equal(missing.message, 'There is no session ghost.');
    assert.deepEqual(missing.details, { id: 'ghost' });
    await store.dispose();
    const disposed = await arborError(() => store.create(header('late')));
    assert.equal(disposed.message, 'The session store has been disposed.');
  });

  it('a live session is read from memory, including events not yet written', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    track(store);
    const log = store.create(header('live'));
    log.append(ev('unwritten'));
    const loaded = await store.loadSession('live');
    assert.deepEqual(loaded.events.map((e) => (e.type === 'assistant_text' ? e.text : e.type)), ['unwritten']);
    assert.deepEqual(loaded.repairs, { tornTailBytes: 0 });
  });
});
