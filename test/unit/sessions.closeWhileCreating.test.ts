import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { isArborError } from '../../src/core/errors';
import { JsonlSessionLog, JsonlSessionStore, type SessionEvent } from '../../src/core/sessions';
import { holdOpenOf } from './support/fileHandles';
import { header, makeTempDir, tick } from './sessions.fixtures';

// A window closes a moment after an agent started: the asynchronous write that creates the new
// session's file has made the file, but has not heard so yet, when deactivation closes every log
// synchronously. Each open is held at exactly that point, so the race is reached every time.

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

describe('durable sessions: closing while a new session file is being created', () => {
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
});
