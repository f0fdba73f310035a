import * as assert from 'node:assert/strict';
import { isArborError } from '../../../src/core/errors';
import { ScriptedModel } from '../../../src/core/models/scriptedModel';
import { Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';
import { disposeAfterEach } from '../../support/disposeAfterEach';

describe('durable sessions: creating a session is exclusive', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-create-')));
  afterEach(() => cleanup());

  it('two stores creating the same id within the write delay never write one file: the second gets SESSION_EXISTS', async () => {
    // Two windows with no folder open share one session folder; neither has written yet.
    const problems: string[] = [];
    const first = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const second = new JsonlSessionStore(dir, { flushDelayMs: 60_000, onError: (e) => problems.push(e.code) });
    const mine = first.create(header('same-id'));
    const theirs = second.create({ ...header('same-id'), label: 'the other window' });
    mine.append({ type: 'user_message', at: tick(), text: 'first window', from: 'user' });
    theirs.append({ type: 'user_message', at: tick(), text: 'second window', from: 'user' });
    await mine.flush();
    await assert.rejects(theirs.flush(), (e: unknown) => isArborError(e, 'SESSION_EXISTS'));
    assert.deepEqual(problems, ['SESSION_EXISTS']);
    await first.dispose();
    const loaded = await new JsonlSessionStore(dir).loadSession('same-id');
    assert.equal(loaded.header.label, 'agent same-id');
    assert.deepEqual(loaded.events.map((e) => (e as { text?: string }).text), ['first window']);
    await second.dispose().catch(() => undefined);
  });

  it('refuses at once an id whose file is already on disk', async () => {
    const store = new JsonlSessionStore(dir);
    const log = store.create(header('on-disk'));
    await log.close();
    assert.throws(() => new JsonlSessionStore(dir).create(header('on-disk')), (e: unknown) => isArborError(e, 'SESSION_EXISTS'));
  });

  it('a runtime whose new id is taken in the folder starts the agent under another id', async () => {
    const other = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    track(other);
    await other.create(header('worker-1')).flush();
    const store = new JsonlSessionStore(dir, { flushDelayMs: 1 });
    track(store);
    let n = 0;
    const runtime = new Runtime({ model: new ScriptedModel({ version: 1, agents: { worker: { turns: [[{ text: 'ok' }]] } } }), sessions: store, newId: (label) => `${label}-${++n}` });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'worker' });
    assert.equal(agent.id, 'worker-2');
    await agent.whenIdle();
    await agent.log.flush();
    assert.equal((await new JsonlSessionStore(dir).loadSession('worker-1')).header.label, 'agent worker-1', 'the other session is untouched');
  });
});
