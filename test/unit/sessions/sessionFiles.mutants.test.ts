import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
// The module object itself (not an import namespace), so a test can observe fs calls.
import nodeFs = require('node:fs');
import { ArborError } from '../../../src/core/errors';
import { DEFAULT_WRITE_POLICY, describeDamage, JsonlSessionLog, JsonlSessionStore, type SessionEvent } from '../../../src/core/sessions';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';
import { countSyncFsyncs, holdOpenOf, watchHandles } from '../../support/fileHandles';
import { disposeAfterEach } from '../../support/disposeAfterEach';

// Session files as the store reads and writes them: what is tolerated, what is reported (with
// the exact line), and what every write leaves behind (no open handle, an fsync when asked).

async function corruptionOf(store: JsonlSessionStore, id: string): Promise<ArborError> {
  try {
    await store.loadSession(id);
  } catch (e) {
    if (e instanceof ArborError) return e;
    throw e;
  }
  throw new Error(`session ${id} loaded`);
}

describe('session files, pinned', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir()));
  afterEach(() => cleanup());

  const events: SessionEvent[] = [
    { type: 'turn_start', at: tick(), turn: 1 },
    { type: 'assistant_text', at: tick(), text: 'hello' },
    { type: 'turn_end', at: tick(), turn: 1, reason: 'completed' },
  ];
  const lines = (id: string) => [JSON.stringify(header(id)), ...events.map((e) => JSON.stringify(e))];
  const write = (id: string, body: string[]) => fs.writeFileSync(path.join(dir, `${id}.jsonl`), body.join('\n') + '\n');

  it('a blank or whitespace-only line inside a log is skipped, and every event around it loads', async () => {
    const [h, a, b, c] = lines('blank');
    write('blank', [h, a, '', b, '   ', c]);
    const loaded = await new JsonlSessionStore(dir).loadSession('blank');
    assert.deepEqual(loaded.events, events);
  });

  it('a damaged line is reported with its own 1-based line number and why, and the events before it still load', async () => {
    const [h, a, b, c] = lines('x');
    write('notjson', [h.replace('"x"', '"notjson"'), a, b, '{oops', c]);
    write('badevent', [h.replace('"x"', '"badevent"'), a, '{"type":"turn_start","at":"2026-01-01T00:00:00.000Z","turn":"one"}', c]);
    write('notobject', [h.replace('"x"', '"notobject"'), a, b, c, '42']);
    write('nested', [h.replace('"x"', '"nested"'), a, '{"type":"tool_call","at":"2026-01-01T00:00:00.000Z","call":{"id":"c1","name":7,"arguments":"{}"}}']);
    const store = new JsonlSessionStore(dir);
    const { sessions, diagnostics } = await store.listSessions();
    assert.deepEqual(diagnostics, [], 'a damaged line never hides a session');
    const damage = Object.fromEntries(sessions.map((s) => [s.header.id, s.damage]));
    assert.equal(damage.notjson?.line, 4);
    assert.equal(damage.badevent?.line, 3);
    assert.match(damage.badevent?.reason ?? '', /at turn: /, 'the path inside the event');
    assert.equal(damage.notobject?.line, 5);
    assert.equal(damage.nested?.line, 3);
    assert.match(damage.nested?.reason ?? '', /at call\.name: /, 'the path inside the event, dotted');
    const warning = sessions.find((s) => s.header.id === 'notjson')?.warning ?? '';
    assert.match(warning, /^Line 4 is damaged \(.+\); the session is shown up to the line before, and that line and the 1 after it \(\d+ bytes\) are left out\.$/);
    const before = (await store.loadSession('notjson')).events.filter((e) => e.type !== 'turn_end');
    assert.equal(before.length, 2, 'the two events before the damage load');
  });

  it('a damage counts the bytes it leaves out from the start of the damaged line, and says so word for word', async () => {
    const [h, a, b, c] = lines('x');
    write('two', [h.replace('"x"', '"two"'), a, b, '{oops', c]);
    write('one', [h.replace('"x"', '"one"'), a, b, '{oops']);
    const store = new JsonlSessionStore(dir);
    const two = (await store.loadSession('two')).repairs.damage;
    assert.ok(two);
    const twoBytes = Buffer.byteLength(`{oops\n${c}\n`);
    assert.deepEqual([two.line, two.droppedLines, two.droppedBytes], [4, 2, twoBytes]);
    assert.equal(
      describeDamage(two),
      `Line 4 is damaged (${two.reason}); the session is shown up to the line before, and that line and the 1 after it (${twoBytes} bytes) are left out.`,
    );
    const one = (await store.loadSession('one')).repairs.damage;
    assert.ok(one);
    assert.deepEqual([one.line, one.droppedLines, one.droppedBytes], [4, 1, 6]);
    assert.equal(describeDamage(one), `Line 4 is damaged (${one.reason}); the session is shown up to the line before, and that line (6 bytes) are left out.`);
  });

  it('a bad header is told apart: empty file, cut-off header, not JSON, not a header, an invalid header', async () => {
    fs.writeFileSync(path.join(dir, 'empty.jsonl'), '');
    fs.writeFileSync(path.join(dir, 'cut.jsonl'), '{"type":"hea');
    write('garbage', ['{nope']);
    write('other', ['{"type":"turn_start"}']);
    write('invalid', [JSON.stringify({ ...header('invalid'), kind: 'martian' })]);
    const store = new JsonlSessionStore(dir);
    assert.equal((await corruptionOf(store, 'empty')).message, 'The session file is empty: it was created but nothing was written to it.');
    assert.equal((await corruptionOf(store, 'cut')).message, 'The session file has no complete header line: it was cut off while being created.');
    const garbage = await corruptionOf(store, 'garbage');
    assert.equal(garbage.message, 'The header (line 1) is not JSON.');
    assert.equal(garbage.details?.line, 1);
    const other = await corruptionOf(store, 'other');
    assert.equal(other.message, 'Line 1 is not a session header.');
    assert.equal(other.details?.line, 1);
    const invalid = await corruptionOf(store, 'invalid');
    assert.match(invalid.message, /^The header \(line 1\) is invalid: .+\.$/);
    assert.equal(invalid.details?.line, 1);
  });

  it('every asynchronous write closes the file handle it opened', async () => {
    const watch = watchHandles({ under: dir });
    try {
      const store = new JsonlSessionStore(dir, { flushDelayMs: 1 });
      const log = store.create(header('handles'));
      for (let i = 0; i < 5; i++) {
        log.append({ type: 'assistant_text', at: tick(), text: `line ${i}` });
        await log.flush();
      }
      await store.dispose();
      assert.ok(watch.counts.opened >= 5);
      assert.equal(watch.counts.closed, watch.counts.opened, 'no handle is left open');
      assert.equal(watch.counts.synced, 0, 'no fsync unless asked for');
    } finally {
      watch.restore();
    }
  });

  it('the fsync option syncs every asynchronous write, and the synchronous flush too', async () => {
    const watch = watchHandles({ under: dir });
    const syncFsyncs = countSyncFsyncs();
    try {
      const store = new JsonlSessionStore(dir, { fsync: true });
      const log = store.create(header('synced'));
      log.append(events[0]);
      await log.flush();
      log.append(events[1]);
      await log.flush();
      assert.equal(watch.counts.synced, 2);
      assert.equal(watch.counts.closed, watch.counts.opened);
      log.append(events[2]);
      log.flushSync();
      assert.equal(syncFsyncs.count, 1);
      await store.dispose();
      const quiet = new JsonlSessionStore(dir, { fsync: false });
      const other = quiet.create(header('unsynced'));
      other.append(events[0]);
      other.flushSync();
      assert.equal(syncFsyncs.count, 1, 'no fsync when the option is off');
      await quiet.dispose();
      assert.deepEqual((await new JsonlSessionStore(dir).loadSession('synced')).events, events);
    } finally {
      syncFsyncs.restore();
      watch.restore();
    }
  });

  it('a log writes into a folder that does not exist yet, creating it', async () => {
    const store = new JsonlSessionStore(path.join(dir, 'a', 'b'));
    track(store);
    const log = store.create(header('deep'));
    log.append(events[0]);
    await log.flush();
    const sync = store.create(header('deep-sync'));
    fs.rmSync(path.join(dir, 'a'), { recursive: true });
    sync.flushSync();
    assert.ok(fs.existsSync(sync.file));
  });

  it('a failed write names the session, the file and the reason, and a later flush writes each line exactly once', async () => {
    const errors: ArborError[] = [];
    const store = new JsonlSessionStore(dir, { onError: (e) => errors.push(e) });
    track(store);
    const log = store.create(header('retry'));
    log.append(events[0]);
    await log.flush();
    // A directory where the file should be: every open fails until it is removed.
    const file = log.file;
    fs.renameSync(file, `${file}.moved`);
    fs.mkdirSync(file);
    log.append(events[1]);
    let failure: unknown;
    await log.flush().catch((e) => (failure = e));
    assert.ok(failure instanceof ArborError);
    assert.equal(failure.code, 'SESSION_WRITE_FAILED');
    assert.ok(failure.message.startsWith(`Could not write session retry to ${file}: `));
    assert.match(failure.message, /Arbor keeps them in memory and tries again at the next write and when the window closes\./);
    assert.equal(failure.details?.file, file);
    assert.equal(failure.details?.errno, 'EISDIR');
    assert.equal(log.dirty, true);
    assert.deepEqual(
      errors.map((e) => e.code),
      ['SESSION_WRITE_FAILED'],
      'reported once to the store too, so the agent shows it',
    );
    fs.rmdirSync(file);
    fs.renameSync(`${file}.moved`, file);
    log.append(events[2]);
    await log.flush();
    assert.equal(log.dirty, false);
    const text = fs.readFileSync(file, 'utf8');
    assert.equal(text.split('\n').length, 5, 'header, three events, and the final newline');
    await store.dispose();
    assert.deepEqual((await new JsonlSessionStore(dir).loadSession('retry')).events, events);
  });

  it('a background write that fails is reported through onError', async () => {
    const errors: ArborError[] = [];
    const store = new JsonlSessionStore(dir, { flushDelayMs: 1, onError: (e) => errors.push(e) });
    track(store);
    const log = store.create(header('background'));
    log.append(events[0]);
    await log.flush();
    // A directory where the file was: the next background write cannot open it.
    fs.renameSync(log.file, `${log.file}.moved`);
    fs.mkdirSync(log.file);
    log.append(events[1]);
    while (errors.length === 0) await new Promise((r) => setTimeout(r, 2));
    assert.equal(errors[0]?.code, 'SESSION_WRITE_FAILED');
    fs.rmdirSync(log.file);
  });

  it('appends queued after a write started go out with the next write, and flush waits for them', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 10_000, maxBufferedBytes: 1 });
    track(store);
    const log = store.create(header('chain'));
    for (const e of events) log.append(e);
    await log.flush();
    assert.equal(log.dirty, false);
    await store.dispose();
    assert.deepEqual((await new JsonlSessionStore(dir).loadSession('chain')).events, events);
    assert.ok(log instanceof JsonlSessionLog);
  });
});

describe('session log writes, pinned', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir()));
  afterEach(() => cleanup());

  const event = (text: string): SessionEvent => ({ type: 'assistant_text', at: tick(), text });
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('the default policy batches for 100 ms or 64 KiB and does not fsync', () => {
    assert.deepEqual(DEFAULT_WRITE_POLICY, { flushDelayMs: 100, maxBufferedBytes: 64 * 1024, fsync: false });
  });

  it('a log made without store callbacks closes, and refuses appends afterwards naming the session', async () => {
    const log = new JsonlSessionLog({ file: path.join(dir, 'bare.jsonl'), header: header('bare'), policy: { ...DEFAULT_WRITE_POLICY } });
    log.append(event('one'));
    await log.close();
    await log.close();
    assert.throws(
      () => log.append(event('two')),
      (e: unknown) => e instanceof ArborError && e.code === 'INTERNAL' && e.message === 'The log of session bare is closed; reopen it to append.',
    );
    assert.equal(fs.readFileSync(log.file, 'utf8').split('\n').length, 3);
  });

  it('a header larger than the size threshold is written at once, without a flush or the timer', async () => {
    const h = header('exact');
    const size = JSON.stringify(h).length + 1;
    const log = new JsonlSessionLog({ file: path.join(dir, 'exact.jsonl'), header: h, policy: { flushDelayMs: 60_000, maxBufferedBytes: size, fsync: false } });
    const t0 = Date.now();
    while (log.dirty && Date.now() - t0 < 5000) await wait(2);
    assert.equal(log.dirty, false, 'the header alone filled the buffer: written without a flush or the timer');
    await log.close();
  });

  it('an async write that lands after a synchronous flush does not make the log dirty again', async () => {
    const log = new JsonlSessionLog({ file: path.join(dir, 'race.jsonl'), header: header('race'), policy: { flushDelayMs: 60_000, maxBufferedBytes: 1 << 20, fsync: false } });
    log.append(event('one'));
    const first = log.flush();
    log.append(event('two'));
    log.flushSync();
    assert.equal(log.dirty, false);
    await first;
    await wait(5);
    assert.equal(log.dirty, false, 'the late async write covers fewer lines than the sync one did');
    log.append(event('three'));
    await log.close();
    assert.deepEqual(
      fs.readFileSync(log.file, 'utf8').trim().split('\n').slice(1).map((l) => (JSON.parse(l) as { text: string }).text),
      ['one', 'two', 'three'],
    );
  });

  it('lines appended while a write is in flight wait for the timer when nobody flushes', async () => {
    const log = new JsonlSessionLog({ file: path.join(dir, 'later.jsonl'), header: header('later'), policy: { flushDelayMs: 60_000, maxBufferedBytes: 1 << 20, fsync: false } });
    const hold = holdOpenOf(log.file);
    const flushed = log.flush();
    // In flight: its lines are serialized and its file is open (before that, the write would take it).
    await hold.opened;
    hold.restore();
    log.append(event('later'));
    hold.release();
    await flushed;
    await wait(20);
    assert.equal(log.dirty, true, 'the second line waits to be batched with what comes next');
    await log.close();
    assert.equal(log.dirty, false);
  });

  it('the synchronous flush closes the file it opened', async () => {
    const openSync = nodeFs.openSync;
    const closeSync = nodeFs.closeSync;
    const fds = new Set<number>();
    nodeFs.openSync = ((...args: Parameters<typeof openSync>) => {
      const fd = openSync(...args);
      fds.add(fd);
      return fd;
    });
    nodeFs.closeSync = ((fd: number) => {
      fds.delete(fd);
      return closeSync(fd);
    });
    try {
      const log = new JsonlSessionLog({ file: path.join(dir, 'sync.jsonl'), header: header('sync'), policy: { ...DEFAULT_WRITE_POLICY } });
      log.append(event('one'));
      log.flushSync();
      assert.equal(fds.size, 0, 'no descriptor left open');
      await log.close();
    } finally {
      nodeFs.openSync = openSync;
      nodeFs.closeSync = closeSync;
    }
  });
});
