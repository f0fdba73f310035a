import * as assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isArborError } from '../../../src/core/errors';
import { ScriptedModel } from '../../../src/core/models/scriptedModel';
import { Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { makeTempDir } from '../../support/sessionFixtures';
import { disposeAfterEach } from '../../support/disposeAfterEach';

/** The window whose lock file (in `<folder>/locks/`) lists session `id`, if any. */
function lockHolder(folder: string, id: string): { owner: string; pid: number } | undefined {
  const locks = path.join(folder, 'locks');
  const names = fs.existsSync(locks) ? fs.readdirSync(locks).filter((n) => n.endsWith('.lock')) : [];
  for (const name of names) {
    const window = JSON.parse(fs.readFileSync(path.join(locks, name), 'utf8')) as { owner: string; pid: number; sessions: Record<string, string> };
    if (id in window.sessions) return { owner: window.owner, pid: window.pid };
  }
  return undefined;
}

/** A second window: its own process holding a session of the shared folder. */
class OtherWindow {
  private readonly child: ChildProcessWithoutNullStreams;
  private output = '';
  private readonly waiters: (() => void)[] = [];
  readonly exited: Promise<number | null>;

  constructor(folder: string, id: string, owner: string, mode: 'create' | 'reopen') {
    const script = path.join(__dirname, '..', '..', 'support', 'sessionHolderChild.ts');
    this.child = spawn(process.execPath, ['--require', 'tsx/cjs', script, folder, id, owner, mode], { cwd: path.join(__dirname, '..', '..', '..') });
    this.child.stdout.on('data', (d: Buffer) => {
      this.output += d.toString();
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Resolves once the process printed `text` `times` times in all. */
  async printed(text: string, times = 1): Promise<void> {
    const count = (): number => this.output.split('\n').filter((l) => l === text).length;
    while (count() < times) {
      if (this.child.exitCode !== null) throw new Error(`the other window exited: ${this.output}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Whether the window got the session ("ready") or was refused (exit code 3). */
  async outcome(): Promise<'ready' | 'refused'> {
    while (!this.output.split('\n').includes('ready')) {
      if (this.child.exitCode !== null) {
        if (this.child.exitCode === 3) return 'refused';
        throw new Error(`the other window exited: ${this.output}`);
      }
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), this.exited]);
    }
    return 'ready';
  }

  send(line: string): void {
    this.child.stdin.write(line + '\n');
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

/**
 * A deadline against a hang, not a speed claim: each test starts node processes with tsx, which
 * takes many seconds apiece on a loaded two-core machine.
 */
const WINDOW_TEST_DEADLINE_MS = 120_000;

describe('durable sessions: two windows sharing a session folder', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  const windows: OtherWindow[] = [];
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-windows-')));
  afterEach(async () => {
    for (const w of windows.splice(0)) {
      w.kill();
      await w.exited;
    }
    cleanup();
  });

  it('the second window cannot reopen a session the first is writing, and is told which window has it', async function () {
    this.timeout(WINDOW_TEST_DEADLINE_MS);
    const first = new OtherWindow(dir, 'shared', 'Window One', 'create');
    windows.push(first);
    await first.printed('ready');

    const second = new JsonlSessionStore(dir, { owner: 'Window Two' });
    await assert.rejects(second.reopenLog('shared'), (e: unknown) => {
      assert.ok(isArborError(e, 'SESSION_IN_USE'), String(e));
      assert.match(e.message, /another window: Window One \(process \d+\)/);
      assert.equal(e.details?.pid, first.pid);
      return true;
    });

    // The first window keeps writing; the file stays whole.
    first.send('still mine');
    await first.printed('written');
    first.send('close');
    await first.printed('closed');
    assert.equal(await first.exited, 0);

    // Once the first window has let go, the second one may resume it.
    const log = await second.reopenLog('shared');
    log.append({ type: 'assistant_text', at: new Date().toISOString(), text: 'Window Two: mine now' });
    await second.dispose();
    const loaded = await new JsonlSessionStore(dir).loadSession('shared');
    assert.deepEqual(
      loaded.events.map((e) => (e as { text?: string }).text),
      ['Window One opened it', 'Window One: still mine', 'Window Two: mine now'],
    );
  });

  it("a crashed window's lock is taken over, and the session continues whole", async function () {
    this.timeout(WINDOW_TEST_DEADLINE_MS);
    const crashed = new OtherWindow(dir, 'orphan', 'Window One', 'create');
    windows.push(crashed);
    await crashed.printed('ready');
    assert.deepEqual(lockHolder(dir, 'orphan'), { owner: 'Window One', pid: crashed.pid });
    crashed.kill();
    await crashed.exited;

    const second = new JsonlSessionStore(dir, { owner: 'Window Two' });
    const log = await second.reopenLog('orphan');
    assert.deepEqual(lockHolder(dir, 'orphan'), { owner: 'Window Two', pid: process.pid });

    // And a third window is refused while the second holds it.
    const third = new OtherWindow(dir, 'orphan', 'Window Three', 'reopen');
    windows.push(third);
    assert.equal(await third.exited, 3);

    log.append({ type: 'assistant_text', at: new Date().toISOString(), text: 'after the crash' });
    await second.dispose();
    assert.equal(lockHolder(dir, 'orphan'), undefined, 'released when the log closes');
    const loaded = await new JsonlSessionStore(dir).loadSession('orphan');
    assert.deepEqual(
      loaded.events.map((e) => (e as { text?: string }).text),
      ['Window One opened it', 'after the crash'],
    );
  });

  it('two windows resuming one session at the same moment never both get it', async function () {
    this.timeout(WINDOW_TEST_DEADLINE_MS);
    const store = new JsonlSessionStore(dir);
    track(store);
    await store.create({ type: 'header', version: 1, id: 'contested', createdAt: new Date().toISOString(), delegationDepth: 0, kind: 'root', label: 'c', interactionMode: 'interactive' }).close();
    await store.dispose();
    for (let round = 0; round < 2; round++) {
      const pair = [new OtherWindow(dir, 'contested', `Window A${round}`, 'reopen'), new OtherWindow(dir, 'contested', `Window B${round}`, 'reopen')];
      windows.push(...pair);
      const outcomes = await Promise.all(pair.map((w) => w.outcome()));
      assert.ok(outcomes.filter((o) => o === 'ready').length <= 1, `round ${round}: ${outcomes.join(', ')}`);
      // A killed holder counts as crashed: the next round takes the session over.
      for (const w of pair) w.kill();
      await Promise.all(pair.map((w) => w.exited));
    }
  });

  it('resume in the second window reports the first window by name', async function () {
    this.timeout(WINDOW_TEST_DEADLINE_MS);
    const first = new OtherWindow(dir, 'busy', 'the VS Code window with no folder open', 'create');
    windows.push(first);
    await first.printed('ready');
    const store = new JsonlSessionStore(dir, { owner: 'Window Two' });
    track(store);
    const runtime = new Runtime({ model: new ScriptedModel({ version: 1, agents: {} }), sessions: store });
    track(runtime);
    await assert.rejects(runtime.resumeRoot('busy'), /SESSION_IN_USE|open for writing in another window: the VS Code window with no folder open/);
    assert.deepEqual(runtime.agents.all(), []);
  });

  it('closing the window writes every session, releases every lock, and a turn end after it does not throw', async () => {
    const store = new JsonlSessionStore(dir, { owner: 'Window One', flushDelayMs: 60_000 });
    const log = store.create({ type: 'header', version: 1, id: 'closing', createdAt: new Date().toISOString(), delegationDepth: 0, kind: 'root', label: 'c', interactionMode: 'interactive' });
    log.append({ type: 'turn_start', at: new Date().toISOString(), turn: 1 });
    await log.flush();
    assert.equal(lockHolder(dir, 'closing')?.owner, 'Window One');
    log.append({ type: 'user_message', at: new Date().toISOString(), text: 'written at close', from: 'user' });
    assert.deepEqual(store.closeAllSync(), []);
    assert.equal(lockHolder(dir, 'closing'), undefined);
    // The shutdown aborted the turn; its end arrives after the close and stays in memory.
    log.append({ type: 'turn_end', at: new Date().toISOString(), turn: 1, reason: 'aborted', cause: 'disposed' });
    const loaded = await new JsonlSessionStore(dir).loadSession('closing');
    assert.equal((loaded.events[1] as { text?: string }).text, 'written at close');
    assert.equal(loaded.repairs.interruptedTurn, 1);
  });
});
