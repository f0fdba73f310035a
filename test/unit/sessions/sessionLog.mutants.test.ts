import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
// The module object itself (not an import namespace), so a test can observe fs calls.
import nodeFs = require('node:fs');
import { ArborError } from '../../../src/core/errors';
import { JsonlSessionLog, sessionEventSchema, type JsonlWritePolicy, type SessionEvent, type SessionHeader } from '../../../src/core/sessions';
import type { FilePool } from '../../../src/core/sessions/filePool';
import type { FlushScheduler } from '../../../src/core/sessions/flushScheduler';
import type { SessionLock } from '../../../src/core/sessions/sessionLock';
import { forged } from '../../support/forged';
import { countSyncFsyncs, holdCloses, watchHandles } from '../../support/fileHandles';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';

// One session log's write pipeline, driven step by step: its timer, its file pool and its lock
// are stand-ins the test fires and releases, so every state is reached by waiting for it.

const AT = '2026-01-01T00:00:00.000Z';
const text = (t: string): SessionEvent => ({ type: 'assistant_text', at: tick(), text: t });

/** All the callbacks already due have run (promise reactions drain before the next macrotask). */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The store's timer, fired by hand. */
function manualTimer() {
  const due = new Set<{ writeDue(): void }>();
  const counts = { scheduled: 0, cancelled: 0 };
  const scheduler = forged<FlushScheduler>({
    schedule: (target: { writeDue(): void }) => {
      counts.scheduled++;
      due.add(target);
    },
    cancel: (target: { writeDue(): void }) => {
      counts.cancelled++;
      due.delete(target);
    },
  });
  const fire = (): void => {
    const all = [...due];
    due.clear();
    for (const target of all) target.writeDue();
  };
  return { scheduler, counts, due, fire };
}

/** A file pool where each write waits until the test starts it (or fails it). */
function heldPool() {
  const writes: { start(): Promise<void>; fail(error: unknown): void }[] = [];
  const pool = forged<FilePool>({
    run: <T>(operation: () => Promise<T>) =>
      new Promise<T>((resolve, reject) => {
        writes.push({
          start: async () => {
            const result = operation();
            result.then(resolve, reject);
            await result.then(
              () => undefined,
              () => undefined,
            );
            await settled();
          },
          fail: (error) => reject(error),
        });
      }),
  });
  return { pool, writes };
}

/** The cross-process lock of a session, counting what the log asks of it. */
function fakeLock(held = false) {
  const counts = { acquire: 0, acquireSync: 0, release: 0, releaseSync: 0 };
  const state = { held };
  const lock = forged<SessionLock>({
    get isHeld() {
      return state.held;
    },
    acquire: async () => {
      counts.acquire++;
      state.held = true;
    },
    acquireSync: () => {
      counts.acquireSync++;
      state.held = true;
    },
    release: async () => {
      counts.release++;
      state.held = false;
    },
    releaseSync: () => {
      counts.releaseSync++;
      state.held = false;
    },
  });
  return { lock, counts };
}

/** Timers of 5 s (the retries after a failed close), captured to be fired by hand. */
function captureRetryTimers() {
  const setTimer = globalThis.setTimeout;
  const clearTimer = globalThis.clearTimeout;
  const armed: { fire: () => void; delay: number }[] = [];
  const cleared: unknown[] = [];
  globalThis.setTimeout = ((callback: () => void, delay?: number, ...rest: unknown[]) => {
    if (delay !== 5_000) return setTimer(callback, delay, ...rest);
    const fake = { fire: callback, delay, unref: () => fake };
    armed.push(fake);
    return fake;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((timer: unknown) => {
    if (armed.includes(timer as (typeof armed)[number])) cleared.push(timer);
    else clearTimer(timer as NodeJS.Timeout);
  });
  return {
    armed,
    cleared,
    restore: () => {
      globalThis.setTimeout = setTimer;
      globalThis.clearTimeout = clearTimer;
    },
  };
}

/** The log's problem now (read through a call: a test's earlier assertion narrows nothing). */
const problemOf = (log: JsonlSessionLog): ArborError | undefined => log.problem;
const lines = (file: string): string[] => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
const textsIn = (file: string): string[] => lines(file).slice(1).map((l) => (JSON.parse(l) as { text?: string }).text ?? '');

describe('session log, pinned', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-log-')));
  afterEach(() => cleanup());

  const temporaryFiles = (): string[] => fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'));
  const policy = (extra: Partial<JsonlWritePolicy> = {}): JsonlWritePolicy => ({ flushDelayMs: 60_000, maxBufferedBytes: 1 << 20, fsync: false, ...extra });

  describe('the size threshold', () => {
    /** Whether a write starts at once (without the timer or a flush) once `events` are appended. */
    function startsAtOnce(h: SessionHeader, maxBufferedBytes: number, events: SessionEvent[]): boolean {
      const { pool, writes } = heldPool();
      const log = new JsonlSessionLog({ file: path.join(dir, 'sized.jsonl'), header: h, policy: policy({ maxBufferedBytes }), pool, scheduler: manualTimer().scheduler });
      for (const e of events) log.append(e);
      return writes.length > 0;
    }
    /** The largest threshold that `events` (after the header) still reach. */
    function reach(h: SessionHeader, events: SessionEvent[]): number {
      let max = 1;
      while (startsAtOnce(h, max + 1, events)) max++;
      return max;
    }

    it('counts the header and a waiting event at about their lines, and starts a write when the waiting lines reach the threshold exactly', () => {
      const h: SessionHeader = { ...header('sized'), createdAt: AT };
      const headerBytes = reach(h, []);
      // A new log's header is counted as an event is (it is serialized only when its batch is
      // written): about its line, the checksum prefix and the newline included, here a little above.
      const headerLine = Buffer.byteLength(JSON.stringify(h)) + 18;
      assert.ok(headerBytes >= headerLine && headerBytes <= headerLine + 8 * Object.keys(h).length, `the header counted ${headerBytes} bytes for a line of ${headerLine}`);
      const events: SessionEvent[] = [
        { type: 'assistant_text', at: AT, text: 'hello' },
        { type: 'usage', at: AT, inputTokens: 1200, outputTokens: 85 },
        { type: 'queue_dropped', at: AT, ids: [1, 2, 3] },
        { type: 'question', at: AT, questions: [{ id: 'q1', question: 'Which?', options: [{ label: 'A' }, { label: 'B', description: 'bee' }] }] },
      ];
      const counted = events.map((e) => reach(h, [e]) - headerBytes);
      const written = events.map((e) => Buffer.byteLength(JSON.stringify(e)) + 18);
      // Strings by their length and quotes, keys with their punctuation, numbers 8 bytes, each
      // object or array 20: never less than the line written, never far above it.
      assert.deepEqual(counted, [91, 114, 129, 271]);
      assert.deepEqual(written, [90, 103, 88, 175]);
      assert.equal(startsAtOnce(h, headerBytes + counted[0], [events[0]]), true);
      assert.equal(startsAtOnce(h, headerBytes + counted[0] + 1, [events[0]]), false);
    });

    it('counts the lines of a failed write again, so the next append reaches the threshold as before', async () => {
      const h: SessionHeader = { ...header('again'), createdAt: AT };
      const small = { type: 'assistant_text', at: AT, text: 'hi' } satisfies SessionEvent;
      const next = { type: 'assistant_text', at: AT, text: 'x'.repeat(300) } satisfies SessionEvent;
      const headerBytes = reach(h, []);
      const total = reach(h, [small, next]);
      assert.ok(reach(h, [small]) - headerBytes < headerBytes, 'the first event counts less than the header');
      for (const [max, starts] of [
        [total, true],
        [total + 1, false],
      ] as const) {
        const { pool, writes } = heldPool();
        const log = new JsonlSessionLog({ file: path.join(dir, `again-${max}.jsonl`), header: h, policy: policy({ maxBufferedBytes: max }), pool, scheduler: manualTimer().scheduler });
        log.append(small);
        const flushed = log.flush().then(
          () => 'written',
          (e: unknown) => (e as ArborError).code,
        );
        assert.equal(writes.length, 1);
        writes[0].fail(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
        assert.equal(await flushed, 'SESSION_WRITE_FAILED');
        log.append(next);
        assert.equal(writes.length > 1, starts, `threshold ${max}: the header, the failed event and the new one count ${total}`);
      }
    });

    it('lines appended while a write waits for its slot are written with it: one write, and the flush before them is answered by it', async () => {
      const timer = manualTimer();
      const { pool, writes } = heldPool();
      const log = new JsonlSessionLog({ file: path.join(dir, 'joined.jsonl'), header: header('joined'), policy: policy(), pool, scheduler: timer.scheduler });
      const headerWritten = log.flush();
      log.append(text('one'));
      log.append(text('two'));
      assert.equal(writes.length, 1);
      await writes[0].start();
      await headerWritten;
      assert.equal(writes.length, 1, 'nothing left for a second write');
      assert.equal(timer.due.size, 0, 'nor for the timer');
      assert.equal(log.dirty, false);
      assert.deepEqual(textsIn(log.file), ['one', 'two']);
    });

    it('after a write, lines that reached the threshold meanwhile start the next write at once, and lines a flush waits for too', async () => {
      const h: SessionHeader = { ...header('chained'), createdAt: AT };
      const big = { type: 'assistant_text', at: AT, text: 'y'.repeat(600) } satisfies SessionEvent;
      const headerBytes = reach(h, []);
      const bigBytes = reach(h, [big]) - headerBytes;
      assert.ok(bigBytes > headerBytes);

      // The threshold exactly: the event waiting behind the header's write starts its own.
      const timer = manualTimer();
      const { pool, writes } = heldPool();
      const log = new JsonlSessionLog({ file: path.join(dir, 'full.jsonl'), header: h, policy: policy({ maxBufferedBytes: bigBytes }), pool, scheduler: timer.scheduler });
      const first = log.flush();
      // Started: its lines are serialized, so what is appended now waits for the next write.
      const started = writes[0].start();
      log.append(big);
      assert.equal(writes.length, 1, 'one write at a time');
      await started;
      await first;
      assert.equal(writes.length, 2, 'the waiting event is written without the timer');
      await writes[1].start();
      assert.equal(log.dirty, false);

      // Under the threshold, with a flush waiting: written at once too.
      const slow = heldPool();
      const waited = new JsonlSessionLog({ file: path.join(dir, 'waited.jsonl'), header: h, policy: policy(), pool: slow.pool, scheduler: manualTimer().scheduler });
      const headerWritten = waited.flush();
      const headerStarted = slow.writes[0].start();
      waited.append(text('small'));
      const all = waited.flush();
      await headerStarted;
      await headerWritten;
      assert.equal(slow.writes.length, 2, 'the flush waiting for the small event starts its write');
      await slow.writes[1].start();
      await all;
      assert.deepEqual(textsIn(waited.file), ['small']);

      // Under the threshold, nobody waiting: left to the timer.
      const later = manualTimer();
      const idle = heldPool();
      const quiet = new JsonlSessionLog({ file: path.join(dir, 'quiet.jsonl'), header: h, policy: policy(), pool: idle.pool, scheduler: later.scheduler });
      const headerOnly = quiet.flush();
      const quietStarted = idle.writes[0].start();
      quiet.append(text('later'));
      assert.equal(later.due.size, 0, 'no timer while a write is in flight');
      await quietStarted;
      await headerOnly;
      assert.equal(idle.writes.length, 1);
      assert.equal(later.due.size, 1, 'the rest waits for the timer');
      later.fire();
      assert.equal(idle.writes.length, 2);
      const scheduled = later.counts.scheduled;
      await idle.writes[1].start();
      assert.equal(quiet.dirty, false);
      assert.equal(later.counts.scheduled, scheduled, 'a write that leaves nothing waiting asks the timer for nothing');
    });
  });

  describe('problems', () => {
    it('a refused event stays the problem, a write failure goes before it until a write succeeds, and each is reported once to each listener', async () => {
      const reportedA: (string | undefined)[] = [];
      const reportedB: (string | undefined)[] = [];
      const errors: ArborError[] = [];
      const file = path.join(dir, 'problems.jsonl');
      const log = new JsonlSessionLog({ file, header: header('problems'), policy: policy(), onError: (e) => errors.push(e) });
      const stopA = log.onProblem((p) => reportedA.push(p?.code));
      log.onProblem((p) => reportedB.push(p?.code));
      assert.equal(log.problem, undefined);

      const bad = { type: 'tool_call', at: tick(), call: { id: 'c1', name: 42, arguments: '{}' } };
      log.append(forged<SessionEvent>(bad));
      const refused = problemOf(log);
      assert.ok(refused instanceof ArborError);
      const issue = sessionEventSchema().safeParse(bad).error?.issues[0];
      assert.equal(
        refused.message,
        `Session problems: a tool_call event was not saved because it does not match the session format at call.name (${issue?.message}). The rest of the session is saved and stays loadable; the transcript lacks this event.`,
      );
      assert.deepEqual(refused.details, { id: 'problems', file, eventType: 'tool_call', path: ['call', 'name'] });
      log.append(forged<SessionEvent>({ type: 'usage', at: tick(), inputTokens: -1, outputTokens: 1 }));
      assert.equal(log.problem, refused, 'the first refused event stays the problem');

      stopA();
      stopA();
      await log.flush();
      fs.rmSync(file);
      fs.mkdirSync(file);
      log.append(text('one'));
      log.append(text('two'));
      const failure = await log.flush().then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(failure instanceof ArborError);
      assert.equal(log.problem, failure, 'a write failure goes first');
      assert.match(failure.message, new RegExp(`^Could not write session problems to ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: .+\\. 2 line\\(s\\) are not saved yet; Arbor keeps them in memory and tries again at the next write and when the window closes\\. Check that the disk has free space and the folder is writable\\.$`));
      assert.deepEqual(temporaryFiles(), [], 'a folder in the way is no deleted file: nothing is written beside it');
      assert.throws(() => log.flushSync(), (e: unknown) => e instanceof ArborError && e.details?.errno === 'EISDIR');
      assert.deepEqual(temporaryFiles(), []);
      fs.rmdirSync(file);
      await log.flush();
      assert.equal(log.problem, refused, 'the refused event is reported again once the write succeeded');
      assert.deepEqual(reportedA, ['SESSION_EVENT_INVALID', 'SESSION_EVENT_INVALID'], 'none after its listener stopped');
      assert.deepEqual(reportedB, ['SESSION_EVENT_INVALID', 'SESSION_EVENT_INVALID', 'SESSION_WRITE_FAILED', 'SESSION_WRITE_FAILED', 'SESSION_EVENT_INVALID']);
      await log.close();
    });

    it('an event that is not an object, or whose type is not a string, is refused as a malformed event, with the reason and no path', () => {
      const errors: ArborError[] = [];
      const file = path.join(dir, 'malformed.jsonl');
      const log = new JsonlSessionLog({ file, header: header('malformed'), policy: policy(), scheduler: manualTimer().scheduler, onError: (e) => errors.push(e) });
      log.append(forged<SessionEvent>(null));
      log.append(forged<SessionEvent>({ type: 7, at: AT }));
      log.append(forged<SessionEvent>(Object.assign(() => undefined, { type: 'usage' })));
      const reasons = [null, { type: 7, at: AT }].map((e) => sessionEventSchema().safeParse(e).error?.issues[0]);
      assert.equal(
        errors[0]?.message,
        `Session malformed: a malformed event was not saved because it does not match the session format (${reasons[0]?.message}). The rest of the session is saved and stays loadable; the transcript lacks this event.`,
      );
      assert.deepEqual(errors[0]?.details, { id: 'malformed', file, eventType: undefined, path: [] });
      assert.match(errors[1]?.message ?? '', /^Session malformed: a malformed event was not saved /);
      assert.match(errors[2]?.message ?? '', /^Session malformed: a malformed event was not saved /, 'a function is no event, whatever its type says');
      assert.equal(log.events.length, 0);
    });

    it('a write that fails with something other than an Error is reported with its text', async () => {
      const { pool, writes } = heldPool();
      const log = new JsonlSessionLog({ file: path.join(dir, 'odd.jsonl'), header: header('odd'), policy: policy(), pool, scheduler: manualTimer().scheduler });
      const flushed: Promise<unknown> = log.flush().then(
        () => undefined,
        (e: unknown) => e,
      );
      writes[0].fail(undefined);
      const failure = await flushed;
      assert.ok(failure instanceof ArborError);
      assert.equal(failure.code, 'SESSION_WRITE_FAILED');
      assert.match(failure.message, /: undefined\. 1 line\(s\) are not saved yet;/);
      assert.equal(failure.details?.errno, undefined);
    });
  });

  describe('a file changed under the log', () => {
    it('says how the file changed: deleted, cut, written to, or replaced, and rewrites it once', async () => {
      const errors: ArborError[] = [];
      const make = async (id: string) => {
        const log = new JsonlSessionLog({ file: path.join(dir, `${id}.jsonl`), header: header(id), policy: policy(), onError: (e) => errors.push(e) });
        log.append(text('before'));
        await log.flush();
        return log;
      };
      const why = async (log: JsonlSessionLog, change: () => void, flush: 'async' | 'sync'): Promise<string> => {
        change();
        log.append(text('after'));
        if (flush === 'async') await log.flush();
        else log.flushSync();
        const lost = errors.splice(0);
        assert.deepEqual(lost.map((e) => e.code), ['SESSION_FILE_LOST']);
        assert.deepEqual(lost[0].details, { id: log.header.id, file: log.file });
        assert.deepEqual(textsIn(log.file), ['before', 'after']);
        // Written again whole: the next write appends to the new file without another report.
        log.append(text('later'));
        await log.flush();
        assert.deepEqual(errors, []);
        assert.deepEqual(textsIn(log.file), ['before', 'after', 'later']);
        await log.close();
        const prefix = `The file of session ${log.header.id} (${log.file}) changed under Arbor while its agent ran: `;
        const message = lost[0].message;
        assert.ok(message.startsWith(prefix), message);
        assert.ok(message.endsWith('. Arbor wrote it again from the session in memory, so nothing is lost; keep other programs away from the session folder.'), message);
        return message.slice(prefix.length, message.indexOf('. Arbor wrote'));
      };
      const replace = (log: JsonlSessionLog) => () => {
        // The same bytes in another file: the old one is kept aside so its inode is not reused.
        const bytes = fs.readFileSync(log.file);
        fs.renameSync(log.file, `${log.file}.old`);
        fs.writeFileSync(log.file, bytes);
      };
      for (const flush of ['async', 'sync'] as const) {
        const deleted = await make(`deleted-${flush}`);
        assert.equal(await why(deleted, () => fs.rmSync(deleted.file), flush), 'it was deleted');
        const cut = await make(`cut-${flush}`);
        assert.equal(await why(cut, () => fs.truncateSync(cut.file, 10), flush), 'it was cut to 10 bytes');
        const grown = await make(`grown-${flush}`);
        const size = fs.statSync(grown.file).size;
        assert.equal(await why(grown, () => fs.appendFileSync(grown.file, 'xyz'), flush), `something else wrote to it (${size + 3} bytes where ${size} were expected)`);
        const replaced = await make(`replaced-${flush}`);
        assert.equal(await why(replaced, replace(replaced), flush), 'it was replaced by another file');
      }
    });
  });
  describe('creating the file', () => {
    const exists = (id: string, file: string) => (e: unknown) =>
      e instanceof ArborError &&
      e.code === 'SESSION_EXISTS' &&
      e.message === `Session ${id} already exists; resume it or choose a new id.` &&
      JSON.stringify(e.details) === JSON.stringify({ id }) &&
      !file.includes('\n');

    it('creates the missing folders of a new session, by the async write and by the synchronous flush', async () => {
      const early = new JsonlSessionLog({ file: path.join(dir, 'a', 'b', 'async.jsonl'), header: header('async'), policy: policy() });
      await early.flush();
      const errors: ArborError[] = [];
      const sync = new JsonlSessionLog({ file: path.join(dir, 'c', 'd', 'sync.jsonl'), header: header('sync'), policy: policy(), onError: (e) => errors.push(e) });
      sync.flushSync();
      assert.deepEqual(errors, [], 'a new file is no lost file');
      assert.equal(lines(early.file).length, 1);
      assert.equal(lines(sync.file).length, 1);
      await early.close();
      await sync.close();
    });

    it('refuses a file that exists already as SESSION_EXISTS, by the async write and by the synchronous flush', async () => {
      for (const id of ['taken', 'taken-sync']) fs.writeFileSync(path.join(dir, `${id}.jsonl`), 'theirs\n');
      const log = new JsonlSessionLog({ file: path.join(dir, 'taken.jsonl'), header: header('taken'), policy: policy() });
      await assert.rejects(log.flush(), exists('taken', log.file));
      const sync = new JsonlSessionLog({ file: path.join(dir, 'taken-sync.jsonl'), header: header('taken-sync'), policy: policy() });
      assert.throws(() => sync.flushSync(), exists('taken-sync', sync.file));
      assert.equal(fs.readFileSync(log.file, 'utf8'), 'theirs\n');
      assert.equal(fs.readFileSync(sync.file, 'utf8'), 'theirs\n');
    });

    it('a folder that is a file fails with the real reason, never as an existing session', async () => {
      fs.writeFileSync(path.join(dir, 'plain'), 'not a folder');
      const log = new JsonlSessionLog({ file: path.join(dir, 'plain', 'x.jsonl'), header: header('x'), policy: policy() });
      await assert.rejects(log.flush(), (e: unknown) => e instanceof ArborError && e.code === 'SESSION_WRITE_FAILED' && e.details?.errno === 'ENOTDIR');
      const sync = new JsonlSessionLog({ file: path.join(dir, 'plain', 'y.jsonl'), header: header('y'), policy: policy() });
      assert.throws(() => sync.flushSync(), (e: unknown) => e instanceof ArborError && e.code === 'SESSION_WRITE_FAILED' && e.details?.errno === 'ENOTDIR');
    });

    it('a first write that fails after the file was created is reported, not taken as written', async () => {
      const watch = watchHandles({ under: dir, failWrite: Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }) });
      const log = new JsonlSessionLog({ file: path.join(dir, 'eio.jsonl'), header: header('eio'), policy: policy() });
      try {
        await assert.rejects(log.flush(), (e: unknown) => e instanceof ArborError && e.code === 'SESSION_WRITE_FAILED' && e.details?.errno === 'EIO');
        assert.equal(log.dirty, true);
      } finally {
        watch.restore();
      }
    });

    it('a first write whose file cannot be examined is reported with the reason, not taken as written', async () => {
      const watch = watchHandles({ under: dir, failStat: Object.assign(new Error('EIO: i/o error, fstat'), { code: 'EIO' }) });
      const log = new JsonlSessionLog({ file: path.join(dir, 'nostat.jsonl'), header: header('nostat'), policy: policy() });
      try {
        await assert.rejects(log.flush(), (e: unknown) => e instanceof ArborError && e.code === 'SESSION_WRITE_FAILED' && e.details?.errno === 'EIO');
        assert.equal(log.dirty, true);
      } finally {
        watch.restore();
      }
    });

    it('the header is written as it was when the log was made', async () => {
      const h = header('frozen');
      const log = new JsonlSessionLog({ file: path.join(dir, 'frozen.jsonl'), header: h, policy: policy() });
      const before = JSON.stringify(h);
      h.label = 'changed afterwards';
      await log.close();
      assert.equal(JSON.stringify(JSON.parse(lines(log.file)[0]) as object).replace(/"crc":"[0-9a-f]{8}",/, ''), before);
    });
  });

  describe('writes', () => {
    it('a write the disk takes in pieces still lands whole, by the async write, the synchronous flush and the rewrite of a lost file', async () => {
      const watch = watchHandles({ under: dir, chunk: 7 });
      const writeSync = nodeFs.writeSync;
      const openSync = nodeFs.openSync;
      const closeSync = nodeFs.closeSync;
      const fds = new Set<number>();
      nodeFs.writeSync = ((fd: number, buffer: Buffer, offset: number, length: number, position: number) => {
        if (offset + length > buffer.length) throw new RangeError(`offset ${offset} and length ${length} outside a buffer of ${buffer.length}`);
        return writeSync(fd, buffer, offset, Math.min(length, 7), position);
      }) as typeof nodeFs.writeSync;
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
        const errors: ArborError[] = [];
        const log = new JsonlSessionLog({ file: path.join(dir, 'pieces.jsonl'), header: header('pieces'), policy: policy(), onError: (e) => errors.push(e) });
        log.append(text('first'));
        await log.flush();
        assert.deepEqual(textsIn(log.file), ['first']);
        log.append(text('second'));
        log.flushSync();
        assert.deepEqual(textsIn(log.file), ['first', 'second']);
        fs.rmSync(log.file);
        log.append(text('third'));
        await log.flush();
        assert.deepEqual(textsIn(log.file), ['first', 'second', 'third']);
        fs.rmSync(log.file);
        log.append(text('fourth'));
        log.flushSync();
        assert.deepEqual(textsIn(log.file), ['first', 'second', 'third', 'fourth']);
        log.append(text('fifth'));
        await log.close();
        assert.deepEqual(textsIn(log.file), ['first', 'second', 'third', 'fourth', 'fifth']);
        assert.ok(watch.counts.writes > 10);
        assert.equal(watch.counts.closed, watch.counts.opened, 'every handle closed, the rewritten file\'s too');
        assert.equal(fds.size, 0, 'every descriptor closed, the rewritten file\'s too');
        assert.deepEqual(errors.map((e) => e.code), ['SESSION_FILE_LOST', 'SESSION_FILE_LOST'], 'only the two deletions, whichever flush wrote before');
      } finally {
        nodeFs.writeSync = writeSync;
        nodeFs.openSync = openSync;
        nodeFs.closeSync = closeSync;
        watch.restore();
      }
    });

    it('fsyncAtFlush syncs the writes a flush waits for and not those of the timer; fsync also syncs a rewritten file', async () => {
      const watch = watchHandles({ under: dir });
      const syncFsyncs = countSyncFsyncs();
      try {
        const timer = manualTimer();
        const log = new JsonlSessionLog({ file: path.join(dir, 'atflush.jsonl'), header: header('atflush'), policy: policy({ fsyncAtFlush: true }), scheduler: timer.scheduler });
        await log.flush();
        assert.equal(watch.counts.synced, 1, 'the flush waited for it');
        log.append(text('timer'));
        timer.fire();
        // Wait for the timer's write to land.
        while (log.dirty) await settled();
        assert.equal(watch.counts.synced, 1, 'nobody waited for the timer write');
        await log.close();

        const synced = new JsonlSessionLog({ file: path.join(dir, 'synced.jsonl'), header: header('synced'), policy: policy({ fsync: true }) });
        await synced.flush();
        const before = watch.counts.synced;
        fs.rmSync(synced.file);
        synced.append(text('rewritten'));
        await synced.flush();
        assert.equal(watch.counts.synced, before + 1, 'the rewritten file is synced');
        fs.rmSync(synced.file);
        synced.append(text('rewritten at exit'));
        synced.flushSync();
        assert.equal(syncFsyncs.count, 1, 'the file rewritten at exit is synced');
        await synced.close();

        const plain = new JsonlSessionLog({ file: path.join(dir, 'plain.jsonl'), header: header('plain'), policy: policy() });
        await plain.flush();
        const plainBefore = watch.counts.synced;
        fs.rmSync(plain.file);
        plain.append(text('rewritten'));
        await plain.flush();
        fs.rmSync(plain.file);
        plain.append(text('rewritten at exit'));
        plain.flushSync();
        assert.equal(watch.counts.synced, plainBefore, 'no fsync unless asked');
        assert.equal(syncFsyncs.count, 1);
        await plain.close();
      } finally {
        syncFsyncs.restore();
        watch.restore();
      }
    });

    it('the synchronous flush with nothing waiting touches no file', async () => {
      const errors: ArborError[] = [];
      const log = new JsonlSessionLog({ file: path.join(dir, 'clean.jsonl'), header: header('clean'), policy: policy(), onError: (e) => errors.push(e) });
      await log.flush();
      fs.rmSync(log.file);
      log.flushSync();
      assert.equal(fs.existsSync(log.file), false);
      assert.deepEqual(errors, []);
    });

    it('an async write that the synchronous flush overtook changes nothing when it lands, whether it wrote or failed', async () => {
      for (const outcome of ['written', 'failed'] as const) {
        const { pool, writes } = heldPool();
        const problems: (string | undefined)[] = [];
        const log = new JsonlSessionLog({ file: path.join(dir, `overtaken-${outcome}.jsonl`), header: header(`overtaken-${outcome}`), policy: policy(), pool, scheduler: manualTimer().scheduler });
        log.onProblem((p) => problems.push(p?.code));
        log.append(text('one'));
        const first = log.flush();
        log.append(text('two'));
        log.flushSync();
        await first;
        if (outcome === 'written') await writes[0].start();
        else {
          writes[0].fail(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
          await settled();
        }
        assert.equal(log.dirty, false);
        assert.equal(log.problem, undefined);
        assert.deepEqual(problems, []);
        log.append(text('three'));
        const last = log.flush();
        await writes[1].start();
        await last;
        assert.deepEqual(textsIn(log.file), ['one', 'two', 'three']);
      }
    });

    it('an async write that finished writing as the synchronous flush overtook it leaves the log clean', async () => {
      const held = holdCloses();
      try {
        const log = new JsonlSessionLog({ file: path.join(dir, 'late.jsonl'), header: header('late'), policy: policy(), scheduler: manualTimer().scheduler });
        log.append(text('one'));
        const first = log.flush();
        await held.asked;
        held.restore();
        log.append(text('two'));
        log.flushSync();
        held.release();
        await first;
        await settled();
        assert.equal(log.dirty, false, 'the late write covers fewer lines than the synchronous one');
        log.append(text('three'));
        await log.close();
        assert.deepEqual(textsIn(log.file), ['one', 'two', 'three']);
      } finally {
        held.restore();
      }
    });

    it('a lost file is written again with the lines of its write only; lines appended meanwhile follow once', async () => {
      const { pool, writes } = heldPool();
      const log = new JsonlSessionLog({ file: path.join(dir, 'meanwhile.jsonl'), header: header('meanwhile'), policy: policy(), pool, scheduler: manualTimer().scheduler });
      log.append(text('one'));
      const first = log.flush();
      await writes[0].start();
      await first;
      fs.rmSync(log.file);
      log.append(text('two'));
      const second = log.flush();
      const rewriting = writes[1].start();
      log.append(text('three'));
      await rewriting;
      await second;
      const third = log.flush();
      await writes[2].start();
      await third;
      assert.deepEqual(textsIn(log.file), ['one', 'two', 'three']);
    });

    it('a rewrite of a lost file that the synchronous flush overtook is dropped, and its temporary file removed', async () => {
      let held: ReturnType<typeof holdCloses> | undefined;
      try {
        const log = new JsonlSessionLog({ file: path.join(dir, 'race.jsonl'), header: header('race'), policy: policy(), scheduler: manualTimer().scheduler });
        log.append(text('one'));
        await log.flush();
        fs.rmSync(log.file);
        held = holdCloses();
        log.append(text('two'));
        const rewriting = log.flush();
        await held.asked;
        held.restore();
        log.append(text('three'));
        log.flushSync();
        held.release();
        await rewriting;
        // The dropped rewrite ends by removing its temporary file.
        while (temporaryFiles().length > 0) await settled();
        assert.deepEqual(textsIn(log.file), ['one', 'two', 'three']);
        log.append(text('four'));
        await log.close();
        assert.deepEqual(textsIn(log.file), ['one', 'two', 'three', 'four']);
      } finally {
        held?.restore();
      }
    });

    it('a log starting its own write withdraws from the timer, and asks it only when no write is in flight', async () => {
      const timer = manualTimer();
      const { pool, writes } = heldPool();
      const log = new JsonlSessionLog({ file: path.join(dir, 'timer.jsonl'), header: header('timer'), policy: policy(), pool, scheduler: timer.scheduler });
      assert.equal(timer.due.size, 1, 'the header waits for the timer');
      const flushed = log.flush();
      assert.equal(timer.due.size, 0, 'the flush took it off the timer');
      const started = writes[0].start();
      log.append(text('meanwhile'));
      assert.equal(timer.due.size, 0);
      await started;
      await flushed;
      assert.equal(timer.due.size, 1);
      log.flushSync();
      assert.equal(timer.due.size, 0, 'the synchronous flush took it off too');
      await log.close();
    });
  });

  describe('closing', () => {
    it('appends after the exit flush stay in memory, and the log with no lock closes at exit', async () => {
      const closed: JsonlSessionLog[] = [];
      const log = new JsonlSessionLog({ file: path.join(dir, 'exit.jsonl'), header: header('exit'), policy: policy(), onClose: (l) => closed.push(l) });
      log.append(text('before'));
      log.closeSync();
      log.append(text('after the exit flush'));
      assert.equal(log.dirty, false);
      await log.flush();
      log.flushSync();
      assert.deepEqual(textsIn(log.file), ['before']);
      assert.equal(log.events.length, 2);
      assert.equal(closed.length, 1);
    });

    it('the lock is taken before the first synchronous write, released synchronously at exit and asynchronously by close', async () => {
      const atExit = fakeLock();
      const log = new JsonlSessionLog({ file: path.join(dir, 'locked.jsonl'), header: header('locked'), policy: policy(), lock: atExit.lock });
      log.append(text('one'));
      log.flushSync();
      assert.deepEqual(atExit.counts, { acquire: 0, acquireSync: 1, release: 0, releaseSync: 0 });
      log.closeSync();
      assert.deepEqual(atExit.counts, { acquire: 0, acquireSync: 1, release: 0, releaseSync: 1 });

      const closing = fakeLock(true);
      const closedLog = new JsonlSessionLog({ file: path.join(dir, 'closing.jsonl'), header: header('closing'), policy: policy(), lock: closing.lock });
      closedLog.append(text('one'));
      await closedLog.close();
      assert.equal(closing.counts.releaseSync, 0);
      assert.ok(closing.counts.release >= 1);
      assert.equal(closing.counts.acquire + closing.counts.acquireSync, 0, 'held already');

      // A close that failed, then the exit flush: released synchronously.
      const failed = fakeLock(true);
      const kept = new JsonlSessionLog({ file: path.join(dir, 'kept.jsonl'), header: header('kept'), policy: policy(), lock: failed.lock });
      await kept.flush();
      fs.rmSync(kept.file);
      fs.mkdirSync(kept.file);
      kept.append(text('one'));
      const timers = captureRetryTimers();
      try {
        await assert.rejects(kept.close());
      } finally {
        timers.restore();
      }
      fs.rmdirSync(kept.file);
      kept.flushSync();
      assert.deepEqual([failed.counts.release, failed.counts.releaseSync], [0, 1]);
    });

    it('a failed close is retried every 5 s, twelve times, then left to the exit flush; a second close does not add tries', async () => {
      const timers = captureRetryTimers();
      const errors: ArborError[] = [];
      const closed: JsonlSessionLog[] = [];
      try {
        const log = new JsonlSessionLog({ file: path.join(dir, 'retry.jsonl'), header: header('retry'), policy: policy(), onError: (e) => errors.push(e), onClose: (l) => closed.push(l) });
        await log.flush();
        fs.rmSync(log.file);
        fs.mkdirSync(log.file);
        log.append(text('one'));
        const failure = await log.close().then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(failure instanceof ArborError);
        await log.close();
        assert.equal(timers.armed.length, 1);
        assert.equal(timers.armed[0].delay, 5_000);
        for (let fired = 0; fired < timers.armed.length; fired++) {
          const reported = errors.length;
          timers.armed[fired].fire();
          while (errors.length === reported) await settled();
          await settled();
        }
        assert.equal(timers.armed.length, 12);
        assert.equal(errors.length, 13);
        assert.match(errors[12].message, /; Arbor keeps them in memory and tries again every few seconds for a minute, and once more when the window closes\./);
        assert.equal(closed.length, 0, 'kept while its lines are not written');
        fs.rmdirSync(log.file);
        log.closeSync();
        assert.equal(closed.length, 1);
        assert.deepEqual(textsIn(log.file), ['one']);
      } finally {
        timers.restore();
      }
    });

    it('a retry after a failed close that writes releases the log once; the exit flush of a closed log clears the retry', async () => {
      const timers = captureRetryTimers();
      const closed: JsonlSessionLog[] = [];
      try {
        const log = new JsonlSessionLog({ file: path.join(dir, 'healed.jsonl'), header: header('healed'), policy: policy(), onClose: (l) => closed.push(l) });
        await log.flush();
        fs.rmSync(log.file);
        fs.mkdirSync(log.file);
        log.append(text('one'));
        await assert.rejects(log.close());
        fs.rmdirSync(log.file);
        timers.armed[0].fire();
        while (closed.length === 0) await settled();
        assert.deepEqual(textsIn(log.file), ['one']);
        log.closeSync();
        assert.equal(closed.length, 1, 'released once');

        const exit = new JsonlSessionLog({ file: path.join(dir, 'exit.jsonl'), header: header('exit'), policy: policy(), onClose: (l) => closed.push(l) });
        await exit.flush();
        fs.rmSync(exit.file);
        fs.mkdirSync(exit.file);
        exit.append(text('one'));
        await assert.rejects(exit.close());
        fs.rmdirSync(exit.file);
        exit.flushSync();
        assert.equal(closed.length, 2, 'the exit flush of a closed log releases it');
        assert.deepEqual(timers.cleared, [timers.armed[1]], 'and its retry is cleared');
      } finally {
        timers.restore();
      }
    });

    it('a synchronous flush of an open log keeps it open', () => {
      const closed: JsonlSessionLog[] = [];
      const errors: ArborError[] = [];
      const log = new JsonlSessionLog({ file: path.join(dir, 'open.jsonl'), header: header('open'), policy: policy(), onClose: (l) => closed.push(l), onError: (e) => errors.push(e) });
      log.append(text('one'));
      log.flushSync();
      assert.equal(closed.length, 0);
      log.append(text('two'));
      log.flushSync();
      log.append(text('three'));
      log.closeSync();
      assert.deepEqual(textsIn(log.file), ['one', 'two', 'three']);
      assert.deepEqual(errors, [], 'each synchronous write continues where the one before ended');
    });
  });
});
