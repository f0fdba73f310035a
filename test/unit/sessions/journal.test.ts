import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { header, makeTempDir, oneShotHeader, tick } from '../../support/sessionFixtures';

// A one-shot subagent's session is written first to its window's journal, many sessions in one
// write, and gets its own file a moment later (src/core/sessions/sessionJournal.ts); the journal
// of a window that crashed is written out by the next store that opens the folder
// (journalRecovery.ts).

/** A deadline against a hang, not a speed claim: each test starts node processes with tsx. */
const PROCESS_TEST_DEADLINE_MS = 120_000;

const journalFiles = (dir: string): string[] => (fs.existsSync(path.join(dir, 'journal')) ? fs.readdirSync(path.join(dir, 'journal')) : []);
const sessionFiles = (dir: string): string[] => fs.readdirSync(dir).filter((name) => name.endsWith('.jsonl')).sort();
const lockFiles = (dir: string): string[] => (fs.existsSync(path.join(dir, 'locks')) ? fs.readdirSync(path.join(dir, 'locks')) : []);

/** Runs test/support/journalChild.ts in its own process; resolves with its exit code and output. */
function child(dir: string, ...args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; pid: number }> {
  const script = path.join(__dirname, '..', '..', 'support', 'journalChild.ts');
  const proc = spawn(process.execPath, ['--require', 'tsx/cjs', script, dir, ...args], { cwd: path.join(__dirname, '..', '..', '..') });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal, out, pid: proc.pid ?? -1 })));
}

/** A journal file as a window with process `pid` would have left it, holding these sessions' files. */
function writeJournal(dir: string, pid: number, files: Record<string, Buffer[]>): string {
  const lines = [`${JSON.stringify({ pid, host: os.hostname(), owner: `window ${pid}` })}\n`];
  for (const [id, batches] of Object.entries(files)) {
    let at = 0;
    for (const batch of batches) {
      lines.push(`${JSON.stringify({ id, at, bytes: batch.length })}\n${batch.toString('utf8')}`);
      at += batch.length;
    }
  }
  fs.mkdirSync(path.join(dir, 'journal'), { recursive: true });
  const file = path.join(dir, 'journal', `window-${pid}-test-0.journal`);
  // A torn last record, as a crash in the middle of an append leaves it.
  fs.writeFileSync(file, `${lines.join('')}${JSON.stringify({ id: 'torn', at: 0, bytes: 500 })}\n{"crc"`);
  return file;
}

/** The bytes of a real session file, made by a store in a scratch folder. */
async function sessionBytes(id: string, texts: string[]): Promise<Buffer> {
  const { dir, cleanup } = makeTempDir('arbor-journal-source-');
  try {
    const store = new JsonlSessionStore(dir);
    const log = store.create(header(id));
    for (const text of texts) log.append({ type: 'user_message', at: tick(), text, from: 'user' });
    await store.dispose();
    return fs.readFileSync(path.join(dir, `${id}.jsonl`));
  } finally {
    cleanup();
  }
}

/** Hands each journal file's handle, as it opens, to `patch`; returns what puts fs.promises.open back. */
function patchJournalHandles(patch: (handle: fs.promises.FileHandle) => void): () => void {
  const open = fs.promises.open;
  fs.promises.open = (async (file: fs.PathLike, ...rest: unknown[]) => {
    const handle = await (open as (...args: unknown[]) => Promise<fs.promises.FileHandle>)(file, ...rest);
    if (String(file).endsWith('.journal')) patch(handle);
    return handle;
  });
  return () => void (fs.promises.open = open);
}

describe('durable sessions: the journal of new one-shot sessions', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-journal-')));
  afterEach(() => cleanup());

  it('a burst of one-shot sessions is on disk after one append to the journal, before any lock entry or file of its own; each gets its file, whole, afterwards', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const logs = Array.from({ length: 40 }, (_, i) => store.create(oneShotHeader(`worker-${i}`)));
    for (const [i, log] of logs.entries()) log.append({ type: 'user_message', at: tick(), text: `task ${i}`, from: 'parent' });
    await store.flushAll();

    // On disk: every batch is in the window's one journal file, as records of the sessions' bytes.
    assert.deepEqual(sessionFiles(dir), [], 'no session file yet');
    assert.deepEqual(lockFiles(dir), [], 'no lock entry yet');
    const [journal, ...others] = journalFiles(dir);
    assert.equal(others.length, 0);
    const records = fs.readFileSync(path.join(dir, 'journal', journal), 'utf8').split('\n').filter((line) => line.startsWith('{"id"'));
    assert.deepEqual(records.map((r) => (JSON.parse(r) as { id: string }).id).sort(), logs.map((l) => l.header.id).sort());
    // History lists them meanwhile.
    assert.equal((await store.listSessions()).sessions.length, 40);

    await Promise.all(logs.map((log) => log.close()));
    assert.deepEqual(sessionFiles(dir), logs.map((l) => `${l.header.id}.jsonl`).sort());
    assert.deepEqual(store.openLogs(), [], 'each log let go once its file holds every line');
    await store.dispose();
    assert.deepEqual(journalFiles(dir), [], 'the journal goes once no session is only there');
    assert.deepEqual(lockFiles(dir), [], 'every lock released');
    const reader = new JsonlSessionStore(dir);
    for (const [i, log] of logs.entries()) assert.deepEqual((await reader.loadSession(log.header.id)).events, [{ type: 'user_message', at: log.events[0].at, text: `task ${i}`, from: 'parent' }]);
  });

  it("a journal's first write holds the window's line and the batches, in one write; written again after a failed write, the file still starts with one window line", async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const writes: string[] = [];
    const handles = { opened: 0, closed: 0 };
    let failNext = false;
    // Every write call on a journal's handle, and one injected failure that writes nothing.
    const restore = patchJournalHandles((handle) => {
      const count = (name: string, real: (...args: never[]) => Promise<unknown>) => (...args: never[]) => {
        writes.push(name);
        if (failNext) {
          failNext = false;
          return Promise.reject(Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }));
        }
        return real.apply(handle, args);
      };
      handles.opened++;
      const close = handle.close;
      handle.close = () => {
        handles.closed++;
        return close.call(handle);
      };
      handle.write = count('write', handle.write) as typeof handle.write;
      handle.writev = count('writev', handle.writev) as typeof handle.writev;
    });
    try {
      const first = ['a', 'b', 'c'].map((id) => store.create(oneShotHeader(`first-${id}`)));
      for (const log of first) log.append({ type: 'assistant_text', at: tick(), text: `from ${log.header.id}` });
      await store.flushAll();
      assert.deepEqual(writes, ['writev'], 'one write for the window line and three sessions');
      const [journal] = journalFiles(dir);
      const lines = fs.readFileSync(path.join(dir, 'journal', journal), 'utf8').split('\n');
      assert.deepEqual(Object.keys(JSON.parse(lines[0]) as object).sort(), ['host', 'owner', 'pid']);
      assert.equal(lines.filter((line) => line.startsWith('{"pid"')).length, 1);

      // A write that fails: its sessions are written into their own files instead.
      writes.length = 0;
      failNext = true;
      const failed = store.create(oneShotHeader('failed'));
      failed.append({ type: 'assistant_text', at: tick(), text: 'lost write' });
      await assert.rejects(failed.flush(), (e: { code?: string }) => e.code === 'SESSION_WRITE_FAILED');
      await failed.flush();
      const later = store.create(oneShotHeader('later'));
      later.append({ type: 'assistant_text', at: tick(), text: 'after the failure' });
      await later.flush();
      const after = fs.readFileSync(path.join(dir, 'journal', journalFiles(dir)[0]), 'utf8');
      assert.equal(after.split('\n').filter((line) => line.startsWith('{"pid"')).length, 1, 'one window line');
      assert.ok(after.startsWith(lines[0]), 'still first');
      assert.match(after, /"id":"later"/);
      await store.dispose();
    } finally {
      restore();
    }
    assert.deepEqual(handles, { opened: 2, closed: 2 }, 'the handle of the failed write is closed, not left to the garbage collector');
    const reader = new JsonlSessionStore(dir);
    for (const id of ['first-a', 'failed', 'later']) assert.equal((await reader.loadSession(id)).events.length, 1, id);
  });

  it('a burst larger than a slice goes into the journal in slices of at most 128 records, in order, each session whole', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const slices: string[][] = [];
    // The records of each write call on the journal's handle.
    const restore = patchJournalHandles((handle) => {
      const writev = handle.writev;
      handle.writev = ((buffers: NodeJS.ArrayBufferView[], ...more: unknown[]) => {
        const text = buffers.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8')).join('');
        slices.push(text.split('\n').filter((line) => line.startsWith('{"id"')).map((line) => (JSON.parse(line) as { id: string }).id));
        return (writev as (...args: unknown[]) => Promise<fs.WriteVResult>).call(handle, buffers, ...more);
      }) as typeof handle.writev;
    });
    try {
      const logs = Array.from({ length: 300 }, (_, i) => store.create(oneShotHeader(`burst-${i}`)));
      for (const [i, log] of logs.entries()) {
        log.append({ type: 'user_message', at: tick(), text: `task ${i}`, from: 'parent' });
        log.append({ type: 'assistant_text', at: tick(), text: `done ${i}` });
      }
      await store.flushAll();
      assert.deepEqual(slices.map((ids) => ids.length), [128, 128, 44], 'three slices');
      assert.deepEqual(slices.flat(), logs.map((l) => l.header.id), 'in the order the batches came');
      await store.dispose();
    } finally {
      restore();
    }
    const reader = new JsonlSessionStore(dir);
    for (const [i, id] of [0, 127, 128, 299].map((i) => [i, `burst-${i}`] as const)) {
      assert.deepEqual((await reader.loadSession(id)).events.map((e) => (e as { text?: string }).text), [`task ${i}`, `done ${i}`], id);
    }
    await reader.dispose();
  });

  it('a root session is not journaled: its first batch creates its file under its lock, as before', async () => {
    const store = new JsonlSessionStore(dir);
    const log = store.create(header('root'));
    log.append({ type: 'turn_start', at: tick(), turn: 1 });
    await log.flush();
    assert.deepEqual(sessionFiles(dir), ['root.jsonl']);
    assert.deepEqual(journalFiles(dir), []);
    await store.dispose();
  });

  it('a journal batch still waiting when the exit flush ran is written nowhere afterwards: no journal is left behind', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const logs = ['a', 'b'].map((id) => store.create(oneShotHeader(`late-${id}`)));
    // The turns end and the window closes in one stretch: the journal's write was due just after.
    const flushed = logs.map((log) => {
      log.append({ type: 'assistant_text', at: tick(), text: `from ${log.header.id}` });
      return log.flush();
    });
    const open = fs.promises.open;
    const journalOpens: string[] = [];
    fs.promises.open = ((file: fs.PathLike, ...rest: unknown[]) => {
      if (String(file).endsWith('.journal')) journalOpens.push(String(file));
      return (open as (...args: unknown[]) => Promise<fs.promises.FileHandle>)(file, ...rest);
    });
    try {
      assert.deepEqual(store.closeAllSync(), []);
      await Promise.all(flushed);
      // The journal's write would start within these turns of the event loop.
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      fs.promises.open = open;
    }
    assert.deepEqual(journalOpens, [], 'no journal opened after the exit flush');
    assert.deepEqual(journalFiles(dir), [], 'no journal left');
    const reader = new JsonlSessionStore(dir);
    for (const log of logs) assert.deepEqual((await reader.loadSession(log.header.id)).events.map((e) => (e as { text?: string }).text), [`from ${log.header.id}`]);
    await reader.dispose();
  });

  it('the exit flush writes a journaled session into its file at once, and leaves no journal behind', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const log = store.create(oneShotHeader('leaving'));
    log.append({ type: 'user_message', at: tick(), text: 'first', from: 'parent' });
    await log.flush();
    log.append({ type: 'assistant_text', at: tick(), text: 'second' });
    assert.deepEqual(store.closeAllSync(), []);
    assert.deepEqual(journalFiles(dir), []);
    assert.deepEqual(lockFiles(dir), []);
    const loaded = await new JsonlSessionStore(dir).loadSession('leaving');
    assert.deepEqual(loaded.events.map((e) => (e as { text?: string }).text), ['first', 'second']);
  });

  it('a window killed right after its first batches were on disk loses none of them: the next store writes them out, lists them and drops the journal', async function () {
    this.timeout(PROCESS_TEST_DEADLINE_MS);
    const crashed = await child(dir, 'crash', '5');
    assert.equal(crashed.signal, 'SIGKILL', crashed.out);
    assert.deepEqual(sessionFiles(dir), [], 'it died before any session had its own file');
    assert.equal(journalFiles(dir).length, 1);

    const store = new JsonlSessionStore(dir);
    const { sessions, diagnostics } = await store.listSessions();
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(sessions.map((s) => s.header.id).sort(), ['worker-0', 'worker-1', 'worker-2', 'worker-3', 'worker-4']);
    for (let i = 0; i < 5; i++) assert.equal(((await store.loadSession(`worker-${i}`)).events[0] as { text: string }).text, `task ${i}`);
    assert.deepEqual(journalFiles(dir), []);
    assert.deepEqual(lockFiles(dir), [], 'the sessions taken to write them out are let go');
    await store.dispose();
  });

  it("two windows opening the folder at once write a crashed window's sessions once, each whole", async function () {
    this.timeout(PROCESS_TEST_DEADLINE_MS);
    const gone = await child(dir, 'list');
    const first = await sessionBytes('kept', ['one', 'two']);
    const second = await sessionBytes('other', ['three']);
    writeJournal(dir, gone.pid, { kept: [first.subarray(0, 150), first.subarray(150)], other: [second] });

    const [a, b] = await Promise.all([child(dir, 'list'), child(dir, 'list')]);
    for (const run of [a, b]) assert.equal(run.code, 0, run.out);
    // Each lists both (one wrote them, the other found them written or wrote the rest under the lock).
    assert.deepEqual(JSON.parse(a.out.trim().split('\n').pop() ?? ''), ['kept', 'other']);
    assert.deepEqual(JSON.parse(b.out.trim().split('\n').pop() ?? ''), ['kept', 'other']);
    assert.ok(fs.readFileSync(path.join(dir, 'kept.jsonl')).equals(first), 'written once, byte for byte');
    assert.ok(fs.readFileSync(path.join(dir, 'other.jsonl')).equals(second));
    assert.deepEqual(journalFiles(dir), []);
  });

  it("a live window's journal is left alone, and a crashed window's file that holds only a start of its session is completed", async function () {
    this.timeout(PROCESS_TEST_DEADLINE_MS);
    const bytes = await sessionBytes('started', ['one', 'two']);
    // The parent of this test process is alive: its journal is its own.
    const live = writeJournal(dir, process.ppid, { started: [bytes] });
    const store = new JsonlSessionStore(dir);
    assert.deepEqual((await store.listSessions()).sessions, []);
    assert.ok(fs.existsSync(live));
    await store.dispose();
    fs.rmSync(live);

    const gone = await child(dir, 'list');
    writeJournal(dir, gone.pid, { started: [bytes] });
    fs.writeFileSync(path.join(dir, 'started.jsonl'), bytes.subarray(0, 100));
    const next = new JsonlSessionStore(dir);
    assert.deepEqual((await next.listSessions()).sessions.map((s) => s.header.id), ['started']);
    assert.ok(fs.readFileSync(path.join(dir, 'started.jsonl')).equals(bytes));
    await next.dispose();
  });
});
