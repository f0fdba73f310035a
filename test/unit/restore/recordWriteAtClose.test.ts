import * as assert from 'assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { LIVE_RECORD_FOLDER } from '../../../src/core/restore';
import { Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { makeTempDir } from '../../support/sessionFixtures';
import { recordingModel, until } from '../../support/runtimeFixture';

// A live-state record being written when the window closes is finished (or dropped) before the
// runtime's shutdown resolves: nothing of it reaches the disk afterwards (seen in CI: the
// sessions folder could not be removed after a shutdown, a temporary record had appeared in it).

const script: ModelScript = { version: 1, agents: { Lead: { turns: [[{ hang: true }]], afterLastTurn: 'repeat-last' } } };

describe('live-state records at shutdown', () => {
  const original = fs.promises.writeFile;
  afterEach(() => {
    fs.promises.writeFile = original;
  });

  /** Holds every temporary record file's write until `release()`; `writing()` counts those started. */
  function holdRecordWrites(): { writing: () => number; release: () => void } {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let writing = 0;
    fs.promises.writeFile = (async (file: fs.PathLike | fs.promises.FileHandle, ...rest: unknown[]) => {
      if (typeof file === 'string' && file.endsWith('.tmp')) {
        writing++;
        await held;
      }
      return (original as (...args: unknown[]) => Promise<void>)(file, ...rest);
    }) as typeof fs.promises.writeFile;
    return { writing: () => writing, release };
  }

  it('a record write under way when the window closes ends before the shutdown resolves, leaving no file behind', async () => {
    const { dir, cleanup } = makeTempDir('arbor-record-close-');
    const gate = holdRecordWrites();
    const store = new JsonlSessionStore(dir, { flushDelayMs: 1 });
    const runtime = new Runtime({ model: recordingModel(script).model, sessions: store, liveRecordsFolder: dir, liveRecordDelayMs: 1 });
    try {
      const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
      await until(() => gate.writing() > 0, 'a record write to start');
      let flushed = false;
      const flush = lead.log.flush.bind(lead.log);
      lead.log.flush = () => flush().finally(() => (flushed = true));
      let closed = false;
      const shutdown = runtime.dispose().then(() => (closed = true));
      await until(() => flushed, "the lead's log to be written");
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      assert.strictEqual(closed, false, 'the shutdown resolved while a record write was still under way');
      gate.release();
      await shutdown;
      const live = path.join(dir, LIVE_RECORD_FOLDER);
      const left = fs.existsSync(live) ? fs.readdirSync(live).filter((f) => f.endsWith('.tmp')) : [];
      assert.deepStrictEqual(left, [], 'no temporary record is left');
    } finally {
      gate.release();
      store.closeAllSync();
      fs.promises.writeFile = original;
      cleanup();
    }
  });

  it('a record write that never ends does not keep the shutdown from settling: it waits as long as a turn is waited for', async () => {
    const { dir, cleanup } = makeTempDir('arbor-record-stuck-');
    const gate = holdRecordWrites();
    const store = new JsonlSessionStore(dir, { flushDelayMs: 1 });
    const runtime = new Runtime({ model: recordingModel(script).model, sessions: store, liveRecordsFolder: dir, liveRecordDelayMs: 1, shutdownWaitMs: 50 });
    try {
      runtime.startRoot({ prompt: 'go', label: 'Lead' });
      await until(() => gate.writing() > 0, 'a record write to start');
      await runtime.dispose(); // settles, though the write is still held
    } finally {
      gate.release();
      store.closeAllSync();
      fs.promises.writeFile = original;
      cleanup();
    }
  });
});
