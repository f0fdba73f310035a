import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
// The module object itself (not an import namespace), so a test can observe fs calls.
import nodeFs = require('node:fs');
import {
  close,
  exists,
  fstat,
  mkdir,
  open,
  readdir,
  readStart,
  readText,
  rename,
  rm,
  rmdir,
  runAsync,
  runSync,
  stat,
  statWhileWriting,
  writeAll,
  writeFile,
  type Steps,
} from '../../../src/core/sessions/fileSteps';
import { makeTempDir } from '../../support/sessionFixtures';
import { watchHandles } from '../../support/fileHandles';

// File steps are written once and run by two drivers: what one sequence does must not depend
// on which driver runs it, and each driver must reach only its own kind of fs call.

const SYNC_CALLS = ['openSync', 'closeSync', 'writeSync', 'fstatSync', 'fsyncSync', 'readSync', 'statSync', 'existsSync', 'mkdirSync', 'renameSync', 'rmSync', 'rmdirSync', 'writeFileSync', 'readFileSync', 'readdirSync'] as const;
const ASYNC_CALLS = ['open', 'stat', 'access', 'mkdir', 'rename', 'rm', 'rmdir', 'writeFile', 'readFile', 'readdir'] as const;

/** Counts the calls of the listed functions of `target` while `work` runs. */
async function counting<T>(target: object, names: readonly string[], work: () => T | Promise<T>): Promise<{ result: T; calls: string[] }> {
  const calls: string[] = [];
  const originals = names.map((name) => Reflect.get(target, name) as (...args: unknown[]) => unknown);
  names.forEach((name, i) =>
    Reflect.set(target, name, (...args: unknown[]) => {
      calls.push(name);
      return originals[i](...args);
    }),
  );
  try {
    return { result: await work(), calls };
  } finally {
    names.forEach((name, i) => Reflect.set(target, name, originals[i]));
  }
}

/** Makes a folder, writes a file in it, reads it back, moves it, and removes everything. */
function* roundTrip(root: string): Steps<unknown[]> {
  const folder = path.join(root, 'a', 'b');
  const file = path.join(folder, 'one.txt');
  const seen: unknown[] = [];
  yield* mkdir(folder);
  const handle = yield* open(file, 'wx+');
  try {
    yield* writeAll(handle, Buffer.from('hello, steps'), 0);
    seen.push(Number((yield* fstat(handle)).size));
    seen.push((yield* readStart(handle, 5)).toString(), (yield* readStart(handle, 64)).toString());
  } finally {
    yield* close(handle);
  }
  seen.push(yield* readText(file));
  yield* writeFile(path.join(folder, 'two.txt'), 'second');
  yield* rename(file, path.join(folder, 'moved.txt'));
  seen.push((yield* readdir(folder)).sort());
  seen.push(Number((yield* stat(path.join(folder, 'moved.txt'))).size));
  seen.push(yield* exists(file), yield* exists(path.join(folder, 'moved.txt')));
  yield* rm(path.join(folder, 'moved.txt'));
  yield* rm(path.join(folder, 'two.txt'));
  yield* rm(path.join(folder, 'never-there.txt'));
  yield* rmdir(folder);
  seen.push(yield* exists(folder));
  return seen;
}

describe('durable sessions: file steps run by either driver', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-steps-')));
  afterEach(() => cleanup());

  it('one sequence gives the same result under both drivers, and each driver makes only its own kind of call', async () => {
    const expected = [12, 'hello', 'hello, steps', 'hello, steps', ['moved.txt', 'two.txt'], 12, false, true, false];
    fs.mkdirSync(path.join(dir, 'sync'));
    fs.mkdirSync(path.join(dir, 'async'));
    const sync = await counting(nodeFs.promises, ASYNC_CALLS, () => counting(nodeFs, SYNC_CALLS, () => runSync(roundTrip(path.join(dir, 'sync')))));
    assert.deepEqual(sync.result.result, expected);
    assert.deepEqual(sync.calls, [], 'the synchronous driver never starts an asynchronous call');
    assert.ok(sync.result.calls.length >= 12);

    const watch = watchHandles({ under: dir });
    try {
      const async = await counting(nodeFs, SYNC_CALLS, () => counting(nodeFs.promises, ASYNC_CALLS, () => runAsync(roundTrip(path.join(dir, 'async')))));
      assert.deepEqual(async.result.result, expected);
      assert.deepEqual(async.calls, [], 'the asynchronous driver never blocks on a synchronous call');
      assert.ok(async.result.calls.length >= 12);
      assert.deepEqual([watch.counts.opened, watch.counts.closed], [1, 1]);
    } finally {
      watch.restore();
    }
  });

  it('a failed step is thrown into the sequence at that step: it can be caught there, and a finally still closes the file', async () => {
    function* failing(root: string): Steps<string> {
      const handle = yield* open(path.join(root, 'held.txt'), 'wx');
      try {
        try {
          yield* rename(path.join(root, 'absent'), path.join(root, 'elsewhere'));
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
        yield* readText(path.join(root, 'absent'));
        return 'not reached';
      } finally {
        yield* close(handle);
      }
    }
    const fds = await counting(nodeFs, ['closeSync'], () => assert.throws(() => runSync(failing(dir)), { code: 'ENOENT' }));
    assert.deepEqual(fds.calls, ['closeSync']);

    fs.rmSync(path.join(dir, 'held.txt'));
    const watch = watchHandles({ under: dir });
    try {
      await assert.rejects(runAsync(failing(dir)), { code: 'ENOENT' });
      assert.deepEqual([watch.counts.opened, watch.counts.closed], [1, 1]);
    } finally {
      watch.restore();
    }
  });

  it('the first write of a new file keeps the stat it read when the write fails, and a failed stat comes first, under both drivers', async () => {
    const eio = (what: string) => Object.assign(new Error(`EIO: i/o error, ${what}`), { code: 'EIO' });
    const attempt = (name: string) =>
      function* (): Steps<{ size?: number; error?: string }> {
        const handle = yield* open(path.join(dir, name), 'wx');
        try {
          const r = yield* statWhileWriting(handle, Buffer.from('data'), 0);
          return { size: r.stat && Number(r.stat.size), error: r.failed ? (r.error as Error).message : undefined };
        } finally {
          yield* close(handle);
        }
      };

    const writeSync = nodeFs.writeSync;
    nodeFs.writeSync = (() => {
      throw eio('write');
    });
    try {
      assert.deepEqual(runSync(attempt('sync-write')()), { size: 0, error: 'EIO: i/o error, write' });
    } finally {
      nodeFs.writeSync = writeSync;
    }
    const fstatSync = nodeFs.fstatSync;
    nodeFs.fstatSync = (() => {
      throw eio('fstat');
    });
    try {
      const wrote = await counting(nodeFs, ['writeSync'], () => runSync(attempt('sync-stat')()));
      assert.deepEqual(wrote.result, { size: undefined, error: 'EIO: i/o error, fstat' });
      assert.deepEqual(wrote.calls, [], 'nothing is written into a file that cannot be examined');
    } finally {
      nodeFs.fstatSync = fstatSync;
    }

    const failWrite = watchHandles({ under: dir, failWrite: eio('write') });
    try {
      const r = await runAsync(attempt('async-write')());
      assert.equal(r.error, 'EIO: i/o error, write');
      assert.equal(typeof r.size, 'number', 'the stat read meanwhile is kept');
    } finally {
      failWrite.restore();
    }
    const failStat = watchHandles({ under: dir, failStat: eio('fstat'), failWrite: eio('write') });
    try {
      assert.deepEqual(await runAsync(attempt('async-stat')()), { size: undefined, error: 'EIO: i/o error, fstat' });
    } finally {
      failStat.restore();
    }
  });
});
