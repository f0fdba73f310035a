import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { isArborError } from '../../src/core/errors';
import { ScriptedModel } from '../../src/core/models/scriptedModel';
import { Runtime } from '../../src/core/runtime';
import { JsonlSessionStore } from '../../src/core/sessions';
import { header, makeTempDir, tick } from './sessions.fixtures';

describe('durable sessions: creating a session is exclusive', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-create-')));
  afterEach(() => cleanup());

  it('a second store on the same folder cannot create an id the first created a moment ago', async () => {
    // Two windows with no folder open share one session folder; nothing is flushed yet.
    const first = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const second = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const log = first.create(header('same-id'));
    log.append({ type: 'user_message', at: tick(), text: 'first window', from: 'user' });
    assert.throws(() => second.create(header('same-id')), (e: unknown) => isArborError(e, 'SESSION_EXISTS'));
    await first.dispose();
    const loaded = await new JsonlSessionStore(dir).loadSession('same-id');
    assert.equal(loaded.events.length, 1);
    assert.equal(loaded.header.label, 'agent same-id');
  });

  it('the file exists, with its header, as soon as the session is created', () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const log = store.create(header('at-once'));
    const lines = fs.readFileSync(log.file, 'utf8').split('\n');
    const { crc, ...written } = JSON.parse(lines[0]) as Record<string, unknown>;
    assert.match(String(crc), /^[0-9a-f]{8}$/);
    assert.deepEqual(written, JSON.parse(JSON.stringify(log.header)));
    assert.equal(lines.length, 2);
  });

  it('a runtime whose new id is taken in the folder starts the agent under another id', async () => {
    const other = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    other.create(header('worker-1'));
    const store = new JsonlSessionStore(dir, { flushDelayMs: 1 });
    let n = 0;
    const runtime = new Runtime({ model: new ScriptedModel({ version: 1, agents: { worker: { turns: [[{ text: 'ok' }]] } } }), sessions: store, newId: (label) => `${label}-${++n}` });
    try {
      const agent = runtime.startRoot({ prompt: 'go', label: 'worker' });
      assert.equal(agent.id, 'worker-2');
      await agent.whenIdle();
      await agent.log.flush();
      assert.equal((await new JsonlSessionStore(dir).loadSession('worker-1')).header.label, 'agent worker-1', 'the other session is untouched');
    } finally {
      await runtime.dispose();
      await store.dispose();
      await other.dispose();
    }
  });
});
