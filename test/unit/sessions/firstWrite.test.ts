import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import nodeFs = require('node:fs');
import * as path from 'node:path';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';
import { disposeAfterEach } from '../../support/disposeAfterEach';

// A busy root's first write: the size threshold starts it while the root's turn still runs, and
// it then waits for the window's lock file (made, written, renamed) before it may create the
// session's file. Each file call is counted or held where it happens, so no timing decides.

const isLockPath = (file: unknown): boolean => String(file).includes(`${path.sep}locks${path.sep}`);

describe('durable sessions: a new session\'s first write', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  const restores: (() => void)[] = [];
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-first-write-')));
  afterEach(() => {
    for (const restore of restores.splice(0)) restore();
    cleanup();
  });

  /** Counts the opens of `file`; the lock's writes wait for `release` while `held`. */
  function watchFiles(file: () => string) {
    const { open, writeFile } = nodeFs.promises;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen = { opens: 0, lockWritesFailed: [] as string[], held: true };
    nodeFs.promises.open = ((...args: Parameters<typeof open>) => {
      if (String(args[0]) === file()) seen.opens++;
      return open(...args);
    });
    nodeFs.promises.writeFile = (async (...args: Parameters<typeof writeFile>) => {
      if (isLockPath(args[0]) && seen.held) await gate;
      try {
        return await writeFile(...args);
      } catch (e) {
        if (isLockPath(args[0])) seen.lockWritesFailed.push((e as NodeJS.ErrnoException).code ?? 'unknown');
        throw e;
      }
    }) as typeof writeFile;
    restores.push(() => Object.assign(nodeFs.promises, { open, writeFile }));
    return {
      seen,
      release: () => {
        seen.held = false;
        release();
      },
    };
  }

  it('a first batch still waiting for its lock takes the lines appended meanwhile: one write creates the file with all of them', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000, maxBufferedBytes: 2048 });
    track(store);
    let file = '';
    const watch = watchFiles(() => file);
    const log = store.create(header('busy-root'));
    file = log.file;
    const content = 'x'.repeat(200);
    // Past the threshold after about ten: that write starts and waits for the lock; thirty more follow it.
    for (let i = 0; i < 40; i++) log.append({ type: 'tool_result', at: tick(), toolCallId: `call_${i}`, name: 'read_file', content });
    assert.equal(log.dirty, true);
    watch.release();
    await log.flush();

    assert.equal(watch.seen.opens, 1, 'one write of the file, not the first batch and a second one behind it');
    const lines = fs.readFileSync(log.file, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 41, 'the header and every event');
    assert.equal(log.dirty, false);
    const again = await new JsonlSessionStore(dir).loadSession('busy-root');
    assert.equal(again.events.length, 40);
  });

  it('a window\'s first claim makes the lock folder before it writes its file: no write fails for want of it', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    track(store);
    const watch = watchFiles(() => '');
    watch.release();
    const log = store.create(header('first'));
    log.append({ type: 'turn_start', at: tick(), turn: 1 });
    await log.flush();
    assert.deepEqual(watch.seen.lockWritesFailed, []);
    assert.equal(fs.readdirSync(path.join(dir, 'locks')).length, 1, 'the window\'s lock file');

    // Released, the folder goes with the file; the next claim makes it again, first.
    await log.close();
    assert.equal(fs.existsSync(path.join(dir, 'locks')), false);
    const next = store.create(header('second'));
    next.append({ type: 'turn_start', at: tick(), turn: 1 });
    await next.flush();
    assert.deepEqual(watch.seen.lockWritesFailed, []);
    assert.equal(fs.readdirSync(path.join(dir, 'locks')).length, 1);
  });

  it('a new session is held once the window\'s file lists it, without reading the other windows\' files; a resumed one is still checked against them', async () => {
    const earlier = new JsonlSessionStore(dir);
    await earlier.create(header('past')).close();
    const other = new JsonlSessionStore(dir, { owner: 'Window Two' });
    track(other);
    const theirs = other.create(header('theirs'));
    theirs.append({ type: 'turn_start', at: tick(), turn: 1 });
    await theirs.flush(); // the other window's lock file is in the folder

    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    track(store);
    const { readdir } = nodeFs.promises;
    const looks: string[] = [];
    nodeFs.promises.readdir = ((...args: Parameters<typeof readdir>) => {
      if (String(args[0]) === path.join(dir, 'locks')) looks.push(String(args[0]));
      return readdir(...args);
    }) as typeof readdir;
    restores.push(() => Object.assign(nodeFs.promises, { readdir }));
    const logs = ['new-1', 'new-2'].map((id) => store.create(header(id)));
    for (const log of logs) log.append({ type: 'turn_start', at: tick(), turn: 1 });
    await Promise.all(logs.map((log) => log.flush()));
    assert.deepEqual(looks, [], 'no look at the other windows for sessions this window creates');

    await store.reopenLog('past');
    assert.equal(looks.length, 1, 'a session found on disk is checked against the other windows');
  });

  it('a make of the lock folder that loses the race to another window removing it is tried again', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    track(store);
    const { mkdir } = nodeFs.promises;
    let failed = 0;
    // What a recursive make reports when the folder it found went before it could check it.
    nodeFs.promises.mkdir = ((...args: Parameters<typeof mkdir>) => {
      if (String(args[0]) === path.join(dir, 'locks') && failed++ === 0) return Promise.reject(Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${String(args[0])}'`), { code: 'ENOENT' }));
      return mkdir(...args);
    }) as typeof mkdir;
    restores.push(() => Object.assign(nodeFs.promises, { mkdir }));
    const log = store.create(header('raced'));
    log.append({ type: 'turn_start', at: tick(), turn: 1 });
    await log.flush();
    assert.equal(failed, 2, 'made again after the failed make');
    assert.equal(log.problem, undefined);
    assert.equal(fs.readdirSync(path.join(dir, 'locks')).length, 1);
  });
});
