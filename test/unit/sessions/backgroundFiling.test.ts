import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { holdOpensOf } from '../../support/fileHandles';
import { header, makeTempDir, oneShotHeader, tick } from '../../support/sessionFixtures';
import { until } from '../../support/until';

// A fan-out's one-shot sessions get their own files a moment after their lines landed in the
// journal, in the background. A second fan-out started right after the first used to wait for
// that: its root's batches queued in the store's file pool behind a thousand files being
// created, and reached the disk seconds later. The files of sessions nobody waits for never hold
// every slot of the pool now.

describe('durable sessions: one-shot sessions filed in the background', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-background-')));
  afterEach(() => cleanup());

  it("a root's batch reaches its file while a fan-out's one-shot sessions wait for theirs", async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 1 });
    const opens = holdOpensOf('worker-');
    try {
      const workers = Array.from({ length: 40 }, (_, i) => store.create(oneShotHeader(`worker-${i}`)));
      for (const [i, log] of workers.entries()) {
        log.append({ type: 'user_message', at: tick(), text: `task ${i}`, from: 'parent' });
        log.append({ type: 'turn_end', at: tick(), turn: 1, reason: 'completed' });
      }
      // Their lines are on disk, in the journal; then they leave it, and every file's creation waits.
      await store.flushAll();
      await until(() => opens.state.held >= 12, 'the one-shot sessions to wait for their files', 20_000);

      const root = store.create(header('root'));
      root.append({ type: 'user_message', at: tick(), text: 'fan out again', from: 'user' });
      await root.flush();
      const file = fs.readFileSync(path.join(dir, 'root.jsonl'), 'utf8');
      assert.match(file, /fan out again/);
      const filed = fs.readdirSync(dir).filter((name) => name.startsWith('worker-'));
      assert.deepEqual(filed, [], 'the one-shot sessions were still waiting for their files');
    } finally {
      opens.release();
      opens.restore();
    }
    await store.dispose();
    const reader = new JsonlSessionStore(dir);
    const { sessions, diagnostics } = await reader.listSessions();
    await reader.dispose();
    assert.deepEqual(diagnostics, []);
    assert.equal(sessions.length, 41);
    for (const s of sessions.filter((x) => x.header.kind === 'one-shot')) assert.equal(s.summary.lastTurnEndReason, 'completed', s.header.id);
  });
});
