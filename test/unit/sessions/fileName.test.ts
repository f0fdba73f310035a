import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isArborError } from '../../../src/core/errors';
import { JsonlSessionStore, sessionFileName, sessionIdFromFileName } from '../../../src/core/sessions';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';
import { disposeAfterEach } from '../../support/disposeAfterEach';

const hostileIds = [
  '../x',
  '../../etc/passwd',
  'a/b',
  'a\\b',
  '.',
  '..',
  '.hidden',
  'con',
  'CON',
  'nul',
  'lpt1',
  'A',
  'a',
  '%41',
  'a%2Fb',
  ' spaced out ',
  'tab\tand\nnewline',
  'nul\u0000byte',
  '日本語の木🌳',
  'e\u0301', // decomposed é
  '\u00e9', // composed é
  'x'.repeat(5000),
  '🌳'.repeat(300),
  'lone \uD800 surrogate',
  'lone \uDC00 surrogate',
  's-0f3a9c1e-2b7d-4e5f-8a90-1c2d3e4f5a6b',
];

describe('durable sessions: session ids as file names', () => {
  it('never produces a separator, a leading dot or an over-long name', () => {
    for (const id of hostileIds) {
      const name = sessionFileName(id);
      assert.ok(!/[\\/]/.test(name) && !name.includes('\u0000'), `${JSON.stringify(id)} -> ${name}`);
      assert.ok(!name.startsWith('.'), name);
      assert.ok(Buffer.byteLength(name) <= 255, `${Buffer.byteLength(name)} bytes`);
      assert.equal(path.basename(name), name);
      assert.ok(name.endsWith('.jsonl'));
    }
  });

  it('decodes every name that is not hashed back to its id', () => {
    for (const id of hostileIds) {
      const name = sessionFileName(id);
      const decoded = sessionIdFromFileName(name);
      if (name.includes('~')) assert.equal(decoded, undefined, 'a hashed name is found through the header');
      else assert.equal(decoded, id);
    }
  });

  it('keeps distinct ids distinct, even on a case-insensitive file system', () => {
    const names = hostileIds.map((id) => sessionFileName(id).toLowerCase());
    assert.equal(new Set(names).size, hostileIds.length);
  });

  it('escapes Windows device names', () => {
    for (const id of ['con', 'nul', 'com1', 'lpt9', 'aux', 'prn']) assert.notEqual(sessionFileName(id), `${id}.jsonl`);
  });

  it('rejects names it did not make', () => {
    for (const name of ['notes.txt', '.jsonl', 'A.jsonl', '%2e%2e.jsonl', 'a%2Fb.json', 'bad%zz.jsonl', 'co%6e.jsonl', 'con.jsonl']) {
      assert.equal(sessionIdFromFileName(name), undefined, name);
    }
  });

  it('rejects an empty id', () => {
    assert.throws(() => sessionFileName(''), (e: unknown) => isArborError(e, 'INPUT_INVALID'));
  });

  describe('through the store', () => {
    const track = disposeAfterEach();
    let dir: string;
    let cleanup: () => void;
    beforeEach(() => ({ dir, cleanup } = makeTempDir()));
    afterEach(() => cleanup());

    it('writes, lists and loads every hostile id inside the root folder only', async () => {
      const root = path.join(dir, 'root');
      const store = new JsonlSessionStore(root);
      track(store);
      for (const id of hostileIds) store.create(header(id)).append({ type: 'user_message', at: tick(), text: `I am ${id}`, from: 'user' });
      await store.dispose();

      assert.deepEqual(fs.readdirSync(dir), ['root'], 'nothing is written outside the root');
      const files = fs.readdirSync(root, { withFileTypes: true });
      assert.equal(files.length, hostileIds.length);
      assert.ok(files.every((f) => f.isFile()));

      const fresh = new JsonlSessionStore(root);
      const { sessions, diagnostics } = await fresh.listSessions();
      assert.deepEqual(diagnostics, []);
      assert.deepEqual(sessions.map((s) => s.header.id).sort(), [...hostileIds].sort());
      for (const id of hostileIds) {
        const loaded = await fresh.loadSession(id);
        assert.equal(loaded.header.id, id);
        assert.equal(loaded.events[0].type === 'user_message' && loaded.events[0].text, `I am ${id}`);
      }
    });
  });
});
