import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JsonlSessionStore, type SessionCatalog, type SessionEvent } from '../../../src/core/sessions';
import { everyEventType, header, makeTempDir, tick, writeSession as writeSessionIn } from '../../support/sessionFixtures';
import { forged, saveSessionIndexNow } from '../../support/forged';
import { disposeAfterEach } from '../../support/disposeAfterEach';

const SESSION_INDEX_FILE = 'session-index.json';

/** Counts how often `file` is opened or read whole while `run` runs. */
async function readsOf<T>(file: string, run: () => Promise<T>): Promise<{ result: T; reads: number }> {
  const promises = forged<Record<'open' | 'readFile', (...args: unknown[]) => Promise<unknown>>>(fs.promises);
  const original = { open: promises.open, readFile: promises.readFile };
  let reads = 0;
  const counted =
    (fn: (...args: unknown[]) => Promise<unknown>) =>
    (...args: unknown[]): Promise<unknown> => {
      if (String(args[0]) === file) reads++;
      return fn.apply(fs.promises, args);
    };
  promises.open = counted(original.open);
  promises.readFile = counted(original.readFile);
  try {
    return { result: await run(), reads };
  } finally {
    promises.open = original.open;
    promises.readFile = original.readFile;
  }
}

/** What History shows, without the parts that say where it came from. */
const shown = (catalog: SessionCatalog) => ({
  sessions: catalog.sessions.map((s) => ({ id: s.header.id, summary: s.summary, warning: s.warning })),
  diagnostics: catalog.diagnostics.map((d) => [path.basename(d.file), d.code]),
});

describe('durable sessions: the session index', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-index-')));
  afterEach(() => cleanup());

  const writeSession = (id: string, events: SessionEvent[]): Promise<string> => writeSessionIn(dir, id, events);

  /** A store as a new window makes it, whose index is saved before the next one starts. */
  async function listAndSave(): Promise<SessionCatalog> {
    const store = new JsonlSessionStore(dir);
    const catalog = await store.listSessions();
    await saveSessionIndexNow(store);
    return catalog;
  }

  it('lists an unchanged session from the index, without reading its file again', async () => {
    const big = await writeSession('big', Array.from({ length: 2000 }, (_, i) => ({ type: 'assistant_text', at: tick(), text: `line ${i} ${'x'.repeat(200)}` })));
    await writeSession('small', everyEventType());
    const first = await listAndSave();
    const { result: second, reads } = await readsOf(big, () => listAndSave());
    assert.equal(reads, 0, 'the big session file was read again');
    assert.deepEqual(shown(second), shown(first));
    assert.equal(second.sessions.find((s) => s.header.id === 'big')?.summary.eventCount, 2000);
  });

  it('keeps the index current as sessions grow, and reads only what a changed file needs', async () => {
    await writeSession('growing', everyEventType());
    await listAndSave();
    const store = new JsonlSessionStore(dir);
    track(store);
    const log = await store.reopenLog('growing');
    log.append({ type: 'turn_start', at: tick(), turn: 3 });
    log.append({ type: 'user_message', at: tick(), text: 'more', from: 'user' });
    log.append({ type: 'turn_end', at: tick(), turn: 3, reason: 'budget' });
    await store.dispose();
    const after = await listAndSave();
    const entry = after.sessions.find((s) => s.header.id === 'growing');
    assert.equal(entry?.summary.eventCount, everyEventType().length + 3);
    assert.equal(entry?.summary.turnCount, 3);
    assert.equal(entry?.summary.lastTurnEndReason, 'budget');
    // Exactly what a fresh read of every file gives.
    fs.rmSync(path.join(dir, SESSION_INDEX_FILE));
    assert.deepEqual(shown(await listAndSave()), shown(after));
  });

  it('rebuilds from the files when the index is missing, damaged or stale, and rescans a file rewritten in place', async () => {
    const file = await writeSession('rewritten', everyEventType());
    await writeSession('other', everyEventType().slice(0, 3));
    const truth = shown(await listAndSave());

    fs.writeFileSync(path.join(dir, SESSION_INDEX_FILE), '{"version":1,"entries":{"rewritten.jsonl":{"nonsense":true}}}');
    assert.deepEqual(shown(await listAndSave()), truth);
    fs.writeFileSync(path.join(dir, SESSION_INDEX_FILE), 'not json');
    assert.deepEqual(shown(await listAndSave()), truth);

    // Same file, same inode, rewritten longer with other content: the index's prefix no longer holds.
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const replaced = await (async () => {
      const tmp = makeTempDir('arbor-index-src-');
      const store = new JsonlSessionStore(tmp.dir);
      const log = store.create({ ...header('rewritten'), label: 'a different agent' });
      for (let i = 0; i < 30; i++) log.append({ type: 'assistant_text', at: tick(), text: `other ${i}` });
      await store.dispose();
      const text = fs.readFileSync(log.file, 'utf8');
      tmp.cleanup();
      return text;
    })();
    assert.ok(replaced.length > lines.join('\n').length);
    fs.writeFileSync(file, replaced);
    const after = await listAndSave();
    const entry = after.sessions.find((s) => s.header.id === 'rewritten');
    assert.equal(entry?.summary.eventCount, 30);
    fs.rmSync(path.join(dir, SESSION_INDEX_FILE));
    assert.deepEqual(shown(await listAndSave()), shown(after));
  });

  it('sees a byte changed in the middle of a listed file that kept its size, across reloads', async () => {
    const file = await writeSession('flipped', Array.from({ length: 40 }, (_, i) => ({ type: 'assistant_text', at: tick(), text: `line ${i} ${'x'.repeat(100)}` })));
    const before = await listAndSave();
    assert.equal(before.sessions[0]?.summary.eventCount, 40);
    const bytes = fs.readFileSync(file);
    const middle = bytes.indexOf('line 20 x') + 'line 20 '.length;
    bytes[middle] = 'y'.charCodeAt(0);
    const { mtime } = fs.statSync(file);
    fs.writeFileSync(file, bytes);
    fs.utimesSync(file, mtime, new Date(mtime.getTime() + 5_000));
    for (let reload = 0; reload < 2; reload++) {
      const listed = (await listAndSave()).sessions[0];
      assert.match(listed?.warning ?? '', /Line 22 is damaged/, 'History warns of the damage');
      assert.equal(listed?.summary.eventCount, 20, 'only what comes before the damaged line counts');
    }
    const loaded = await new JsonlSessionStore(dir).loadSession('flipped');
    assert.equal(loaded.repairs.damage?.line, 22);
    assert.equal(loaded.events.length, 20);
    const withIndex = shown(await listAndSave());
    fs.rmSync(path.join(dir, SESSION_INDEX_FILE));
    assert.deepEqual(withIndex, shown(await listAndSave()), 'the index shows what a listing without it shows');
  });

  it('drops files that are gone and lists new ones', async () => {
    const gone = await writeSession('gone', everyEventType());
    await listAndSave();
    fs.rmSync(gone);
    await writeSession('new', everyEventType());
    const catalog = await listAndSave();
    assert.deepEqual(catalog.sessions.map((s) => s.header.id), ['new']);
    const index = JSON.parse(fs.readFileSync(path.join(dir, SESSION_INDEX_FILE), 'utf8')) as { entries: Record<string, unknown> };
    assert.deepEqual(Object.keys(index.entries), ['new.jsonl']);
  });
});
