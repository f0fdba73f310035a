import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import nodeFs = require('node:fs');
import * as path from 'node:path';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';
import { disposeAfterEach } from '../../support/disposeAfterEach';

/* What locking and creating sessions cost: one lock file per window, no look at the disk per session. */
describe('durable sessions: the window lock and exclusive ids at scale', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-window-lock-')));
  afterEach(() => cleanup());

  it('a burst of sessions is locked by one file of the window, written once for all of them', async () => {
    const store = new JsonlSessionStore(dir, { owner: 'Window One', flushDelayMs: 60_000 });
    track(store);
    const rename = nodeFs.promises.rename;
    const lockWrites: string[] = [];
    nodeFs.promises.rename = ((from: fs.PathLike, to: fs.PathLike) => {
      if (String(to).endsWith('.lock')) lockWrites.push(String(to));
      return rename(from, to);
    });
    const ids = Array.from({ length: 200 }, (_, i) => `burst-${i}`);
    try {
      const logs = ids.map((id) => store.create(header(id)));
      for (const log of logs) log.append({ type: 'turn_start', at: tick(), turn: 1 });
      await Promise.all(logs.map((log) => log.flush()));
    } finally {
      nodeFs.promises.rename = rename;
    }
    assert.equal(lockWrites.length, 1, 'the claims made together are written together');

    const names = fs.readdirSync(dir).sort();
    assert.deepEqual(names, ['locks', ...ids.map((id) => `${id}.jsonl`)].sort(), 'no lock file per session');
    const locks = fs.readdirSync(path.join(dir, 'locks'));
    assert.equal(locks.length, 1);
    const lock = JSON.parse(fs.readFileSync(path.join(dir, 'locks', locks[0]), 'utf8')) as { owner: string; pid: number; sessions: Record<string, string> };
    assert.equal(lock.owner, 'Window One');
    assert.equal(lock.pid, process.pid);
    assert.deepEqual(Object.keys(lock.sessions).sort(), [...ids].sort());

    await store.dispose();
    assert.equal(fs.existsSync(path.join(dir, 'locks')), false, 'the lock file goes with the last session it held');
  });

  it('creating a session asks the disk nothing once the folder was read, and still refuses a known id at once', async () => {
    const earlier = new JsonlSessionStore(dir);
    await earlier.create(header('on-disk')).close();

    const store = new JsonlSessionStore(dir);
    track(store);
    await store.listSessions();
    const looks: string[] = [];
    const spied = ['existsSync', 'statSync', 'lstatSync', 'accessSync', 'openSync'] as const;
    const originals = spied.map((name) => nodeFs[name]);
    spied.forEach((name, i) => {
      Reflect.set(nodeFs, name, (...args: unknown[]) => {
        looks.push(name);
        return (originals[i] as (...a: unknown[]) => unknown)(...args);
      });
    });
    try {
      for (let i = 0; i < 50; i++) store.create(header(`new-${i}`));
      assert.throws(() => store.create(header('on-disk')), /SESSION_EXISTS|already exists/);
      assert.throws(() => store.create(header('new-3')), /already exists/);
    } finally {
      spied.forEach((name, i) => Reflect.set(nodeFs, name, originals[i]));
    }
    assert.deepEqual(looks, []);
  });

  it('a burst of sessions waiting to be written arms one timer for the store, and the timer writes every one of them', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 5 });
    track(store);
    const armed = { count: 0 };
    const setTimer = globalThis.setTimeout;
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      armed.count++;
      return setTimer(...args);
    }) as typeof setTimeout;
    const ids = Array.from({ length: 100 }, (_, i) => `timed-${i}`);
    try {
      // Synchronous: nothing else in the process arms a timer meanwhile.
      for (const id of ids) store.create(header(id)).append({ type: 'turn_start', at: tick(), turn: 1 });
    } finally {
      globalThis.setTimeout = setTimer;
    }
    assert.equal(armed.count, 1, 'one timer for the whole store, not one per log');
    // No flush is asked for: only the timer writes them.
    for (;;) {
      const written = ids.filter((id) => {
        try {
          return fs.readFileSync(path.join(dir, `${id}.jsonl`), 'utf8').split('\n').length === 3;
        } catch {
          return false;
        }
      });
      if (written.length === ids.length) break;
      await new Promise((r) => setTimer(r, 5));
    }
    const loaded = await store.loadSession('timed-42');
    assert.deepEqual(loaded.events.map((e) => e.type), ['turn_start']);
  });
});
