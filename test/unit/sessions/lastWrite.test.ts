import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { holdOpenOf } from '../../support/fileHandles';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';

// A one-shot subagent's session is created, written once and closed: its first batch is its
// last. Reading the new file's identity is only needed by a later write (to tell the file from
// another put at its path), so the last write does without it; a write that follows after all
// takes the file at its size.

const types = (file: string): string[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { type: string }).type);

/** Wraps the handles the async writer opens on `file`: counts their stats, and runs `onWrite` before the first write. */
function watchFile(file: string, onWrite: () => void = () => undefined) {
  const original = fs.promises.open;
  const seen = { opens: [] as (string | number | undefined)[], stats: 0 };
  let wrote = false;
  fs.promises.open = (async (...args: Parameters<typeof original>) => {
    const handle = await original(...args);
    if (String(args[0]) !== file) return handle;
    seen.opens.push(args[1]);
    const stat = handle.stat.bind(handle);
    handle.stat = ((...a: Parameters<typeof stat>) => {
      seen.stats++;
      return stat(...a);
    }) as typeof handle.stat;
    const write = handle.write.bind(handle) as (b: Buffer, o: number, l: number, p: number) => Promise<{ bytesWritten: number; buffer: Buffer }>;
    handle.write = ((buffer: Buffer, offset: number, length: number, position: number) => {
      if (!wrote) {
        wrote = true;
        onWrite();
      }
      return write(buffer, offset, length, position);
    }) as typeof handle.write;
    return handle;
  });
  return { seen, restore: () => (fs.promises.open = original) };
}

describe('durable sessions: the last write of a closing log', () => {
  let dir: string;
  let cleanup: () => void;
  let restore: () => void = () => undefined;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-last-write-')));
  afterEach(() => {
    restore();
    cleanup();
  });

  it('a session closed before its first write is created and written whole without reading the new file’s identity', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const watch = watchFile(store.fileOf('one-shot'));
    restore = watch.restore;
    const log = store.create(header('one-shot', { kind: 'one-shot', parentSession: 'root', delegationDepth: 1 }));
    log.append({ type: 'turn_start', at: tick(), turn: 1 });
    log.append({ type: 'turn_end', at: tick(), turn: 1, reason: 'completed' });
    await log.close();

    assert.equal(watch.seen.opens.length, 1, 'one open: the exclusive create');
    assert.equal(watch.seen.stats, 0, 'no stat of the file: nothing writes it after this batch');
    assert.deepEqual(types(log.file), ['header', 'turn_start', 'turn_end']);
    assert.deepEqual(store.openLogs(), [], 'released');
    const loaded = await new JsonlSessionStore(dir).loadSession('one-shot');
    assert.equal(loaded.events.length, 2);
  });

  it('a write that comes after such a last write all the same appends to the file at its size and reads its identity', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const file = store.fileOf('late');
    const log = store.create(header('late'));
    let late: Promise<void> | undefined;
    // While the closing write runs (its identity not read), one more event comes and is flushed.
    const watch = watchFile(file, () => {
      log.append({ type: 'turn_end', at: tick(), turn: 1, reason: 'completed' });
      late = log.flush();
    });
    restore = watch.restore;
    log.append({ type: 'turn_start', at: tick(), turn: 1 });
    const closing = log.close();
    await closing;
    assert.ok(late, 'the late event was appended while the closing write ran');
    await late;

    assert.deepEqual(types(file), ['header', 'turn_start', 'turn_end'], 'appended after the first batch, nothing written twice');
    assert.equal(watch.seen.opens.length, 2, 'created, then reopened for the late batch');
    assert.equal(watch.seen.opens[1], fs.constants.O_WRONLY, 'the late batch reopens the file it made, without creating one');
    assert.equal(watch.seen.stats, 1, 'the late batch reads the identity it did not have');
    const loaded = await new JsonlSessionStore(dir).loadSession('late');
    assert.deepEqual(loaded.events.map((e) => e.type), ['turn_start', 'turn_end']);
  });

  it('a write after such a last write finds a file that something else changed and writes the session again whole', async () => {
    const problems: string[] = [];
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000, onError: (e) => problems.push(e.code) });
    const file = store.fileOf('changed');
    const log = store.create(header('changed'));
    let late: Promise<void> | undefined;
    const watch = watchFile(file, () => {
      log.append({ type: 'assistant_text', at: tick(), text: 'one more line' });
      late = log.flush();
    });
    restore = watch.restore;
    log.append({ type: 'turn_start', at: tick(), turn: 1 });
    const closing = log.close();
    // Something else writes to the file between the closing write and the late one.
    const original = fs.promises.open;
    let grown = false;
    fs.promises.open = (async (...args: Parameters<typeof original>) => {
      if (!grown && String(args[0]) === file && args[1] === fs.constants.O_WRONLY) {
        grown = true;
        fs.appendFileSync(file, 'not a session line\n');
      }
      return original(...args);
    });
    const unwrap = restore;
    restore = () => {
      fs.promises.open = original;
      unwrap();
    };
    await closing;
    await late;

    assert.ok(grown, 'the file was changed before the late write');
    assert.deepEqual(types(file), ['header', 'turn_start', 'assistant_text'], 'written again whole from memory');
    assert.ok(problems.includes('SESSION_FILE_LOST'), 'and reported');
  });

  it('the window closing while such a last write has made the file but not heard so writes the session whole once and lets it go', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const hold = holdOpenOf(store.fileOf('closing'));
    restore = hold.restore;
    const log = store.create(header('closing', { kind: 'one-shot', parentSession: 'root', delegationDepth: 1 }));
    log.append({ type: 'turn_start', at: tick(), turn: 1 });
    log.append({ type: 'turn_end', at: tick(), turn: 1, reason: 'completed' });
    const closing = log.close();
    await hold.opened; // the file exists; the closing write has not been told

    assert.deepEqual(store.closeAllSync(), [], 'its own new file is taken as its own');
    assert.deepEqual(types(log.file), ['header', 'turn_start', 'turn_end']);
    assert.deepEqual(store.openLogs(), [], 'released with its lock');
    hold.release();
    await closing;
    await hold.closed;

    assert.deepEqual(types(log.file), ['header', 'turn_start', 'turn_end'], 'the late write adds nothing');
    const loaded = await new JsonlSessionStore(dir).loadSession('closing');
    assert.deepEqual(loaded.events.map((e) => e.type), ['turn_start', 'turn_end']);
  });
});
