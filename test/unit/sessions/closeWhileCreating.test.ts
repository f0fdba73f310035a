import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isArborError } from '../../../src/core/errors';
import { JsonlSessionLog, JsonlSessionStore, type SessionEvent } from '../../../src/core/sessions';
import { FilePool } from '../../../src/core/sessions/filePool';
import { SessionLock, WindowLock } from '../../../src/core/sessions/sessionLock';
import { holdOpenOf } from '../../support/fileHandles';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';

// A window closes a moment after an agent started: the asynchronous first write of the new
// session is still claiming its lock, or has made the file but not heard so yet, when
// deactivation closes every log synchronously. Each step is held at exactly that point, so the
// race is reached every time.

const types = (file: string): string[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { type: string }).type);

/** Holds the async writer's next open before it runs; `release` lets it run (and stops holding others). */
function holdBeforeOpen() {
  const original = fs.promises.open;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let markAsked: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (markAsked = resolve));
  const restore = (): void => {
    fs.promises.open = original;
  };
  fs.promises.open = async (...args: Parameters<typeof original>) => {
    markAsked();
    await released;
    return original(...args);
  };
  return {
    asked,
    release: () => {
      restore();
      release();
    },
    restore,
  };
}

describe('durable sessions: closing while a new session is being claimed and created', () => {
  let dir: string;
  let cleanup: () => void;
  let restore: () => void = () => undefined;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-creating-')));
  afterEach(() => {
    restore();
    cleanup();
  });

  it('closeAllSync writes the session whole and lets it go, and what the shutdown appends later never reaches the file', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const hold = holdOpenOf(store.fileOf('new-1'));
    restore = hold.restore;
    const log = store.create(header('new-1'));
    log.append({ type: 'turn_start', at: tick(), turn: 1 });
    log.append({ type: 'question', at: tick(), toolCallId: 'c1', questions: [{ id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }] }] });
    const writing = log.flush();
    await hold.opened; // the file exists; its writer has not been told

    assert.deepEqual(store.closeAllSync(), [], 'its own new file is not someone else\'s session');
    assert.deepEqual(store.openLogs(), [], 'released with its lock');
    assert.deepEqual(types(log.file), ['header', 'turn_start', 'question']);
    // The turn the shutdown aborted ends after the close, as the runtime's dispose records it.
    log.append({ type: 'turn_end', at: tick(), turn: 1, reason: 'aborted', cause: 'disposed' });
    await log.flush();
    hold.release();
    await writing;
    await hold.closed;

    assert.deepEqual(types(log.file), ['header', 'turn_start', 'question'], 'the late write lands on the same bytes and adds nothing');
    const next = await new JsonlSessionStore(dir).reopenLog('new-1');
    assert.deepEqual(
      next.events.map((e) => (e.type === 'turn_end' ? `${e.type}:${e.reason}` : e.type)),
      ['turn_start', 'question', 'turn_end:interrupted'],
      'the next window finds the turn open and closes it as interrupted',
    );
    await next.close();
  });

  it('the synchronous flush while the create is on its way, before the file exists, creates it, and the late create changes nothing', async () => {
    const log = new JsonlSessionLog({ file: `${dir}/early.jsonl`, header: header('early'), policy: { flushDelayMs: 60_000, maxBufferedBytes: 1 << 20, fsync: false } });
    log.append({ type: 'turn_start', at: tick(), turn: 1 });
    // Held before the open runs: the file does not exist yet when the synchronous flush comes.
    const hold = holdBeforeOpen();
    restore = hold.restore;
    const writing = log.flush();
    await hold.asked;
    log.flushSync();
    hold.release();
    await writing;
    assert.equal(log.problem, undefined, 'the late create finding the file is not reported');
    assert.deepEqual(types(log.file), ['header', 'turn_start']);
    log.append({ type: 'turn_end', at: tick(), turn: 1, reason: 'completed' });
    await log.close();
    assert.deepEqual(types(log.file), ['header', 'turn_start', 'turn_end']);
  });

  it('still refuses the file another log of this process is creating, even while it is empty, as SESSION_EXISTS', async () => {
    // Two stores of one folder in one process (their locks do not keep each other out), one id.
    const file = `${dir}/taken.jsonl`;
    const policy = { flushDelayMs: 60_000, maxBufferedBytes: 1 << 20, fsync: false };
    const theirs = new JsonlSessionLog({ file, header: { ...header('taken'), label: 'theirs' }, policy });
    const mine = new JsonlSessionLog({ file, header: header('taken'), policy });
    const hold = holdOpenOf(file);
    restore = hold.restore;
    const theirWrite = theirs.flush();
    await hold.opened; // their create made the file, empty
    assert.equal(fs.statSync(file).size, 0);
    mine.append({ type: 'turn_start', at: tick(), turn: 1 });
    assert.throws(() => mine.flushSync(), (e: unknown) => isArborError(e, 'SESSION_EXISTS'));
    hold.release();
    await theirWrite;
    await assert.rejects(mine.flush(), (e: unknown) => isArborError(e, 'SESSION_EXISTS'));
    assert.deepEqual(types(file), ['header']);
    assert.equal((JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]) as { label: string }).label, 'theirs');
    await theirs.close();
  });

  it('refuses a file that was there before and holds something else, while its own create is on its way', async () => {
    const file = `${dir}/before.jsonl`;
    const events: SessionEvent[] = [{ type: 'turn_start', at: tick(), turn: 1 }];
    fs.writeFileSync(file, 'x');
    const log = new JsonlSessionLog({ file, header: header('before'), policy: { flushDelayMs: 60_000, maxBufferedBytes: 1 << 20, fsync: false } });
    for (const event of events) log.append(event);
    const hold = holdBeforeOpen();
    restore = hold.restore;
    const writing = log.flush();
    await hold.asked;
    assert.throws(() => log.flushSync(), (e: unknown) => isArborError(e, 'SESSION_EXISTS'));
    hold.release();
    await assert.rejects(writing, (e: unknown) => isArborError(e, 'SESSION_EXISTS'));
    assert.equal(fs.readFileSync(file, 'utf8'), 'x');
  });

  describe('the claim of the first write', () => {
    const policy = { flushDelayMs: 60_000, maxBufferedBytes: 1 << 20, fsync: false };
    const lockFiles = (): string[] => (fs.existsSync(path.join(dir, 'locks')) ? fs.readdirSync(path.join(dir, 'locks')) : []);

    it('closeSync while the first write is still claiming the session leaves no claim behind, so another window may resume it at once', async () => {
      const window = new WindowLock(dir, { description: 'Window One' });
      const pool = new FilePool();
      const run = pool.run.bind(pool);
      let reached: () => void = () => undefined;
      const writeGoesOn = new Promise<void>((resolve) => (reached = resolve));
      pool.run = <T>(operation: () => Promise<T>): Promise<T> => {
        reached();
        return run(operation);
      };
      const log = new JsonlSessionLog({ file: path.join(dir, 's-1.jsonl'), header: header('s-1'), policy, pool, lock: new SessionLock(window, 's-1') });
      log.append({ type: 'turn_start', at: tick(), turn: 1 });
      const writing = log.flush(); // claims the session before it writes
      log.closeSync();
      await writing;
      await writeGoesOn; // its claim has been answered: the superseded write goes on
      assert.equal(window.holds('s-1'), false);
      assert.deepEqual(lockFiles(), [], 'no lock file lists the session');
    });

    it('a synchronous claim and release while an asynchronous claim is being checked leave the session let go', async () => {
      const window = new WindowLock(dir, { description: 'Window One' });
      const readdir = fs.promises.readdir;
      let checking: () => void = () => undefined;
      const inCheck = new Promise<void>((resolve) => (checking = resolve));
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      // The claim is listed in the window's file and the other windows' files are about to be read.
      fs.promises.readdir = (async (...args: Parameters<typeof readdir>) => {
        if (String(args[0]) === path.join(dir, 'locks')) {
          checking();
          await released;
        }
        return readdir(...args);
      }) as typeof readdir;
      restore = () => (fs.promises.readdir = readdir);
      const claimed = window.claim('s-1');
      await inCheck;
      window.claimSync('s-1');
      window.releaseSync('s-1');
      assert.deepEqual(lockFiles(), [], 'released on disk at once');
      release();
      await claimed;
      assert.equal(window.holds('s-1'), false, 'the claim checked afterwards does not take it again');
      await window.claim('s-2'); // written after anything the first claim still did
      const listed = lockFiles().map((name) => Object.keys((JSON.parse(fs.readFileSync(path.join(dir, 'locks', name), 'utf8')) as { sessions: object }).sessions));
      assert.deepEqual(listed, [['s-2']]);
      await window.release('s-2');
    });
  });
});
