import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isArborError } from '../../../src/core/errors';
import {
  JsonlSessionStore,
  SESSION_FORMAT_VERSION,
  ancestorsOf,
  childrenOf,
  sessionFileName,
  type SessionEvent,
} from '../../../src/core/sessions';
import { everyEventType, header, makeTempDir, tick } from '../../support/sessionFixtures';
import { forged } from '../../support/forged';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { until } from '../../support/until';

/** Lines of a session file as parsed JSON. */
function fileLines(file: string): unknown[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);
}

async function rejectsWithCode(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (e: unknown) => isArborError(e) && e.code === code);
}

describe('durable sessions: JsonlSessionStore', () => {
  let dir: string;
  let cleanup: () => void;
  let store: JsonlSessionStore;

  beforeEach(() => {
    ({ dir, cleanup } = makeTempDir());
    // A long delay, so that only flush() and the size threshold write, unless a test says otherwise.
    store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
  });
  afterEach(async () => {
    await store.dispose().catch(() => undefined);
    cleanup();
  });

  describe('writing and loading', () => {
    const track = disposeAfterEach();
    it('round-trips the header and every event type through the file', async () => {
      const h = header('s-roundtrip', { parentSession: 'p-1', delegationDepth: 2, kind: 'continuable', workspace: '/w', resumedFrom: 'old', interactionMode: 'autonomous' });
      const log = store.create(h);
      const events = everyEventType();
      for (const e of events) log.append(e);
      await log.flush();

      const fresh = new JsonlSessionStore(dir);
      const loaded = await fresh.loadSession('s-roundtrip');
      assert.deepEqual(loaded.header, h);
      assert.deepEqual(loaded.events, events);
      assert.deepEqual(loaded.repairs, { tornTailBytes: 0 });
      assert.equal(fileLines(store.fileOf('s-roundtrip')).length, 1 + events.length);
    });

    it('keeps the live log\'s events in memory in append order', () => {
      const log = store.create(header('s-mem'));
      const events = everyEventType();
      for (const e of events) log.append(e);
      assert.deepEqual(log.events, events);
    });

    it('batches appends: nothing reaches the disk before flush, everything after it', async () => {
      const log = store.create(header('s-batch'));
      const file = store.fileOf('s-batch');
      log.append({ type: 'turn_start', at: tick(), turn: 1 });
      log.append({ type: 'user_message', at: tick(), text: 'hi', from: 'user' });
      await new Promise((r) => setTimeout(r, 30));
      assert.equal(fs.existsSync(file), false, 'an append must not write synchronously');

      await log.flush(); // what the runtime does at every turn end
      assert.equal(fileLines(file).length, 3);
      log.append({ type: 'turn_end', at: tick(), turn: 1, reason: 'completed' });
      await log.flush();
      assert.equal(fileLines(file).length, 4);
      assert.equal(log.dirty, false);
    });

    it('flush resolves only once the events appended before it are on disk, even with a write in flight', async () => {
      const log = store.create(header('s-inflight'));
      const file = store.fileOf('s-inflight');
      log.append({ type: 'turn_start', at: tick(), turn: 1 });
      const first = log.flush(); // starts a write
      log.append({ type: 'user_message', at: tick(), text: 'queued behind the write', from: 'user' });
      const second = log.flush();
      await first;
      await second;
      assert.deepEqual(
        fileLines(file).map((l) => (l as { type: string }).type),
        ['header', 'turn_start', 'user_message'],
      );
    });

    it('writes on a short timer without an explicit flush', async () => {
      const timed = new JsonlSessionStore(dir, { flushDelayMs: 5 });
      track(timed);
      const log = timed.create(header('s-timer'));
      log.append({ type: 'turn_start', at: tick(), turn: 1 });
      const deadline = Date.now() + 2000;
      while (Date.now() < deadline && !(fs.existsSync(log.file) && fileLines(log.file).length === 2)) {
        await new Promise((r) => setTimeout(r, 5));
      }
      assert.equal(fileLines(log.file).length, 2);
    });

    it('starts a write at once when the buffered text passes the size threshold', async () => {
      const small = new JsonlSessionStore(dir, { flushDelayMs: 60_000, maxBufferedBytes: 256 });
      const log = small.create(header('s-threshold'));
      for (let i = 0; i < 20; i++) log.append({ type: 'assistant_text', at: tick(), text: 'x'.repeat(40) });
      await until(() => fs.existsSync(log.file), 'the threshold to start a write');
      assert.ok(fs.existsSync(log.file), 'the threshold should have started a write without the timer');
      await small.dispose();
      assert.equal(fileLines(log.file).length, 21);
    });

    it('flushAllSync writes every open log before returning, also while an async write is in flight', async () => {
      const a = store.create(header('s-sync-a'));
      const b = store.create(header('s-sync-b'));
      a.append({ type: 'turn_start', at: tick(), turn: 1 });
      const inFlight = a.flush(); // an async write is now running
      a.append({ type: 'user_message', at: tick(), text: 'after the async write started', from: 'user' });
      b.append({ type: 'turn_start', at: tick(), turn: 1 });

      assert.deepEqual(store.flushAllSync(), []);
      assert.equal(fileLines(a.file).length, 3);
      assert.equal(fileLines(b.file).length, 2);

      await inFlight; // the async write lands on the same bytes: nothing duplicated or reordered
      const fresh = await new JsonlSessionStore(dir).loadSession('s-sync-a');
      assert.deepEqual(fresh.events.slice(0, -1), a.events);
      assert.equal(fresh.repairs.interruptedTurn, 1);
      a.append({ type: 'turn_end', at: tick(), turn: 1, reason: 'completed' });
      await a.flush();
      assert.deepEqual((await new JsonlSessionStore(dir).loadSession('s-sync-a')).events, a.events);
    });

    it('reports a failed write to the flush, keeps the events, and writes them once the disk recovers', async () => {
      const blocker = path.join(dir, 'blocker');
      fs.writeFileSync(blocker, 'a file where the session folder should be');
      const broken = new JsonlSessionStore(path.join(blocker, 'sessions'), { flushDelayMs: 60_000 });
      track(broken);
      const log = broken.create(header('s-fail'));
      log.append({ type: 'turn_start', at: tick(), turn: 1 });
      await rejectsWithCode(log.flush(), 'SESSION_WRITE_FAILED');
      assert.equal(log.dirty, true);

      fs.rmSync(blocker);
      log.append({ type: 'turn_end', at: tick(), turn: 1, reason: 'completed' });
      await log.flush();
      const loaded = await new JsonlSessionStore(path.join(blocker, 'sessions')).loadSession('s-fail');
      assert.deepEqual(loaded.events, log.events);
      assert.equal(fileLines(log.file).length, 3);
    });

    it('reports background write failures through onError', async () => {
      const blocker = path.join(dir, 'blocker2');
      fs.writeFileSync(blocker, '');
      const errors: string[] = [];
      const broken = new JsonlSessionStore(path.join(blocker, 'sessions'), { flushDelayMs: 1, onError: (e) => errors.push(e.code) });
      broken.create(header('s-bg')).append({ type: 'turn_start', at: tick(), turn: 1 });
      await until(() => errors.length > 0, 'the background write to fail');
      assert.deepEqual(errors.slice(0, 1), ['SESSION_WRITE_FAILED']);
      assert.equal(broken.flushAllSync()[0]?.code, 'SESSION_WRITE_FAILED');
    });

    it('saves only the format\'s part of an appended event, so a cycle outside it cannot break the log', async () => {
      const log = store.create(header('s-cyclic'));
      const cyclic: Record<string, unknown> = { type: 'assistant_text', at: tick(), text: 'x' };
      cyclic.self = cyclic;
      log.append(forged<SessionEvent>(cyclic));
      log.append({ type: 'user_message', at: tick(), text: 'still writable', from: 'user' });
      await log.flush();
      assert.deepEqual((await new JsonlSessionStore(dir).loadSession('s-cyclic')).events, log.events);
      assert.deepEqual(log.events[0], { type: 'assistant_text', at: cyclic.at, text: 'x' });
      assert.equal(log.events.length, 2);
    });

    it('refuses an event the loader would reject without throwing, and the log stays writable', async () => {
      const problems: string[] = [];
      const log = new JsonlSessionStore(dir, { onError: (e) => problems.push(e.code) }).create(header('s-refused'));
      log.append({ type: 'usage', at: tick(), inputTokens: -5, outputTokens: 1 });
      log.append({ type: 'user_message', at: tick(), text: 'still writable', from: 'user' });
      await log.close();
      assert.deepEqual(problems, ['SESSION_EVENT_INVALID']);
      assert.deepEqual((await new JsonlSessionStore(dir).loadSession('s-refused')).events, log.events);
      assert.equal(log.events.length, 1);
    });

    it('refuses to create a session whose id already has a file or an open log', async () => {
      const log = store.create(header('s-dup'));
      assert.throws(() => store.create(header('s-dup')), (e: unknown) => isArborError(e, 'SESSION_EXISTS'));
      await log.close();
      assert.throws(() => new JsonlSessionStore(dir).create(header('s-dup')), (e: unknown) => isArborError(e, 'SESSION_EXISTS'));
    });

    it('refuses an invalid header and a header of another format version', () => {
      assert.throws(() => store.create({ ...header('s-bad'), delegationDepth: -1 }), (e: unknown) => isArborError(e, 'INPUT_INVALID'));
      assert.throws(() => store.create({ ...header('s-v2'), version: SESSION_FORMAT_VERSION + 1 }), (e: unknown) => isArborError(e, 'INPUT_INVALID'));
    });

    it('throws SESSION_NOT_FOUND for an unknown id', async () => {
      await rejectsWithCode(store.loadSession('nobody'), 'SESSION_NOT_FOUND');
      await rejectsWithCode(store.reopenLog('nobody'), 'SESSION_NOT_FOUND');
    });

    it('close flushes and releases the log; appends after close throw', async () => {
      const log = store.create(header('s-close'));
      log.append({ type: 'turn_start', at: tick(), turn: 1 });
      await log.close();
      assert.equal(fileLines(log.file).length, 2);
      assert.equal(store.openLogs().length, 0);
      assert.throws(() => log.append({ type: 'turn_end', at: tick(), turn: 1, reason: 'completed' }));
    });

    it('dispose flushes everything and the store creates nothing afterwards', async () => {
      const log = store.create(header('s-dispose'));
      log.append({ type: 'turn_start', at: tick(), turn: 1 });
      await store.dispose();
      assert.equal(fileLines(log.file).length, 2);
      assert.throws(() => store.create(header('s-after')), (e: unknown) => isArborError(e, 'INTERNAL'));
    });
  });

  describe('reopening a session for appending', () => {
    it('continues the same file after the existing events', async () => {
      const log = store.create(header('s-reopen'));
      const events = everyEventType();
      for (const e of events) log.append(e);
      await log.close();

      const reopened = await store.reopenLog('s-reopen');
      assert.deepEqual(reopened.events, events);
      const more: SessionEvent = { type: 'user_message', at: tick(), text: 'again', from: 'user' };
      reopened.append(more);
      await reopened.flush();
      assert.deepEqual((await new JsonlSessionStore(dir).loadSession('s-reopen')).events, [...events, more]);
    });

    it('refuses to reopen a session that is open for writing', async () => {
      store.create(header('s-busy'));
      await rejectsWithCode(store.reopenLog('s-busy'), 'SESSION_IN_USE');
    });
  });

  describe('catalog', () => {
    async function writeSession(id: string, events: SessionEvent[], extra = {}): Promise<void> {
      const log = store.create(header(id, extra));
      for (const e of events) log.append(e);
      await log.close();
    }

    it('lists sessions with summaries, most recent activity first', async () => {
      await writeSession('empty', []);
      await writeSession('older', [
        { type: 'turn_start', at: tick(), turn: 1 },
        { type: 'user_message', at: tick(), text: '  Fix\nthe   build ', from: 'user' },
        { type: 'turn_end', at: tick(), turn: 1, reason: 'completed' },
      ]);
      await writeSession('newer', [
        { type: 'turn_start', at: tick(), turn: 1 },
        { type: 'user_message', at: tick(), text: 'y'.repeat(500), from: 'user' },
        { type: 'turn_end', at: tick(), turn: 1, reason: 'error', message: 'boom' },
        { type: 'turn_start', at: tick(), turn: 2 },
        { type: 'turn_end', at: tick(), turn: 2, reason: 'blocked' },
      ]);

      const { sessions, diagnostics } = await new JsonlSessionStore(dir).listSessions();
      assert.deepEqual(diagnostics, []);
      assert.deepEqual(sessions.map((s) => s.header.id), ['newer', 'older', 'empty']);
      const [newer, older, empty] = sessions;
      assert.equal(older.summary.firstUserMessage, 'Fix the build');
      assert.equal(older.summary.eventCount, 3);
      assert.equal(older.summary.lastTurnEndReason, 'completed');
      assert.equal(newer.summary.lastTurnEndReason, 'blocked');
      assert.equal(newer.summary.turnCount, 2);
      assert.ok(newer.summary.firstUserMessage!.length <= 120 && newer.summary.firstUserMessage!.endsWith('…'));
      assert.equal(empty.summary.eventCount, 0);
      assert.equal(empty.summary.lastActivity, empty.header.createdAt);
      assert.equal(empty.summary.lastTurnEndReason, undefined);
      assert.equal(newer.file, path.join(dir, 'newer.jsonl'));
    });

    it('lists a session open in this store from memory, marked live', async () => {
      const log = store.create(header('live-one'));
      log.append({ type: 'turn_start', at: tick(), turn: 1 });
      await log.flush();
      const { sessions } = await store.listSessions();
      assert.equal(sessions.length, 1);
      assert.equal(sessions[0].live, true);
      assert.equal(sessions[0].summary.lastTurnEndReason, undefined, 'a running turn of a live session is not "interrupted"');

      store.create(header('live-unwritten')); // nothing on disk yet
      const again = await store.listSessions();
      assert.deepEqual(again.sessions.map((s) => [s.header.id, s.live]), [['live-unwritten', true], ['live-one', true]]);
    });

    it('reports corrupt, future-version and unreadable files as diagnostics while the rest still list', async () => {
      await writeSession('good', [{ type: 'turn_start', at: tick(), turn: 1 }, { type: 'turn_end', at: tick(), turn: 1, reason: 'completed' }]);
      const goodText = fs.readFileSync(path.join(dir, 'good.jsonl'), 'utf8');
      const [headerLine, ...eventLines] = goodText.split('\n');
      // A hand-made header for another id, without a checksum (as earlier builds wrote them).
      const headerOf = (id: string): string => JSON.stringify({ ...(JSON.parse(headerLine) as object), crc: undefined, id });

      fs.writeFileSync(path.join(dir, 'middle.jsonl'), [headerOf('middle'), '{not json', ...eventLines].join('\n'));
      fs.writeFileSync(path.join(dir, 'bad-event.jsonl'), [headerOf('bad-event'), '{"type":"turn_start","at":"yesterday","turn":1}', ''].join('\n'));
      fs.writeFileSync(path.join(dir, 'bad-header.jsonl'), '{"type":"header","version":1,"id":"bad-header"}\n');
      fs.writeFileSync(path.join(dir, 'no-header.jsonl'), eventLines.join('\n'));
      fs.writeFileSync(path.join(dir, 'future.jsonl'), JSON.stringify({ type: 'header', version: SESSION_FORMAT_VERSION + 1, id: 'future', shape: 'unknown' }) + '\n');
      fs.mkdirSync(path.join(dir, 'a-directory.jsonl'));
      fs.symlinkSync(path.join(dir, 'gone'), path.join(dir, 'dangling.jsonl'));
      fs.writeFileSync(path.join(dir, 'renamed.jsonl'), goodText);
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a session file: ignored');

      const { sessions, diagnostics } = await new JsonlSessionStore(dir).listSessions();
      // A damaged event line loses only what follows it: those sessions list with a warning.
      assert.deepEqual(sessions.map((s) => s.header.id).sort(), ['bad-event', 'good', 'middle']);
      const salvaged = new Map(sessions.map((s) => [s.header.id, s]));
      assert.equal(salvaged.get('middle')!.damage?.line, 2);
      assert.equal(salvaged.get('middle')!.summary.eventCount, 0);
      assert.match(salvaged.get('middle')!.warning ?? '', /Line 2 is damaged \(it is not JSON\).*the 2 after it/);
      assert.match(salvaged.get('bad-event')!.warning ?? '', /Line 2 is damaged \(it is not a valid session event at at/);
      assert.equal(salvaged.get('good')!.damage, undefined);
      const byName = new Map(diagnostics.map((d) => [path.basename(d.file), d]));
      assert.deepEqual(
        [...byName.keys()].sort(),
        ['a-directory.jsonl', 'bad-header.jsonl', 'dangling.jsonl', 'future.jsonl', 'no-header.jsonl', 'renamed.jsonl'],
      );
      assert.equal(byName.get('bad-header.jsonl')!.code, 'SESSION_CORRUPT');
      assert.equal(byName.get('bad-header.jsonl')!.line, 1);
      assert.equal(byName.get('no-header.jsonl')!.code, 'SESSION_CORRUPT');
      assert.equal(byName.get('future.jsonl')!.code, 'SESSION_VERSION');
      assert.equal(byName.get('future.jsonl')!.version, SESSION_FORMAT_VERSION + 1);
      assert.match(byName.get('future.jsonl')!.message, /Update Arbor/);
      assert.equal(byName.get('a-directory.jsonl')!.code, 'SESSION_UNREADABLE');
      assert.equal(byName.get('dangling.jsonl')!.code, 'SESSION_UNREADABLE');
      assert.equal(byName.get('renamed.jsonl')!.code, 'SESSION_CORRUPT');

      const fresh = new JsonlSessionStore(dir);
      assert.equal((await fresh.loadSession('middle')).repairs.damage?.line, 2);
      await rejectsWithCode(fresh.loadSession('future'), 'SESSION_VERSION');
      await rejectsWithCode(fresh.loadSession('a-directory'), 'SESSION_UNREADABLE');
      await rejectsWithCode(fresh.loadSession('dangling'), 'SESSION_UNREADABLE');
      await rejectsWithCode(fresh.reopenLog('future'), 'SESSION_VERSION');
    });

    it('lists nothing, without diagnostics, when the folder does not exist yet', async () => {
      assert.deepEqual(await new JsonlSessionStore(path.join(dir, 'not-yet')).listSessions(), { sessions: [], diagnostics: [] });
    });

    it('finds children and ancestors through parentSession', async () => {
      await writeSession('root', []);
      await writeSession('child-a', [], { parentSession: 'root', delegationDepth: 1, kind: 'one-shot' });
      await writeSession('child-b', [], { parentSession: 'root', delegationDepth: 1, kind: 'continuable' });
      await writeSession('grandchild', [], { parentSession: 'child-b', delegationDepth: 2, kind: 'one-shot' });

      assert.deepEqual((await store.listChildren('root')).map((e) => e.header.id).sort(), ['child-a', 'child-b']);
      assert.deepEqual(await store.listChildren('child-a'), []);
      const { sessions } = await store.listSessions();
      assert.deepEqual(childrenOf(sessions, 'child-b').map((e) => e.header.id), ['grandchild']);
      assert.deepEqual(ancestorsOf(sessions, 'grandchild').map((e) => e.header.id), ['child-b', 'root']);
      assert.deepEqual(ancestorsOf(sessions, 'root'), []);
    });

    it('stops an ancestor walk at a cycle from a hand-edited file', () => {
      const entries = [{ header: header('x', { parentSession: 'y' }) }, { header: header('y', { parentSession: 'x' }) }];
      assert.deepEqual(ancestorsOf(entries, 'x').map((e) => e.header.id), ['y']);
    });

    it('stores each session as one file named after its escaped id', async () => {
      await writeSession('a/b', []);
      assert.deepEqual(fs.readdirSync(dir), [sessionFileName('a/b')]);
    });
  });
});
