import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';
import { until } from '../../support/until';

// A write still on its way when the window's exit flush wrote the same lines synchronously is
// superseded: it changes nothing on disk. It used to take the file, grown by the exit flush, for
// one something else had written, and rewrite it beside it (a temporary file made after the
// window's last write, in a folder that may be gone by then).

describe('durable sessions: a write the exit flush overtook', () => {
  const open = fs.promises.open;
  afterEach(() => {
    fs.promises.open = open;
  });

  it('does nothing once it goes on: no temporary file, the file as the exit flush left it', async () => {
    const { dir, cleanup } = makeTempDir('arbor-superseded-');
    try {
      const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
      const log = store.create(header('overtaken'));
      log.append({ type: 'assistant_text', at: tick(), text: 'first' });
      await log.flush();

      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let held = 0;
      const temporaries: string[] = [];
      fs.promises.open = (async (file: fs.PathLike, ...rest: unknown[]) => {
        const name = String(file);
        if (name.endsWith('.tmp')) temporaries.push(name);
        if (name.endsWith('overtaken.jsonl')) {
          held++;
          await gate;
        }
        return (open as (...args: unknown[]) => Promise<fs.promises.FileHandle>)(file, ...rest);
      });

      log.append({ type: 'assistant_text', at: tick(), text: 'second' });
      const flushed = log.flush();
      await until(() => held > 0, 'the write to open the file');
      assert.deepEqual(store.closeAllSync(), []); // writes "second" synchronously
      const written = fs.readFileSync(`${dir}/overtaken.jsonl`);
      release();
      await flushed;
      // The overtaken write goes on through its steps (fstat, close): give it those turns.
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
      fs.promises.open = open;
      assert.deepEqual(temporaries, [], 'no rewrite was started');
      assert.deepEqual(fs.readFileSync(`${dir}/overtaken.jsonl`), written, 'the file is as the exit flush left it');
      const loaded = await new JsonlSessionStore(dir).loadSession('overtaken');
      assert.deepEqual(loaded.events.map((e) => (e as { text?: string }).text), ['first', 'second']);
    } finally {
      fs.promises.open = open;
      cleanup();
    }
  });
});
