import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isArborError } from '../../../src/core/errors';
import { JsonlSessionStore, type SessionEvent } from '../../../src/core/sessions';
import { everyEventType, header, makeTempDir, tick, writeSession as writeSessionIn } from '../../support/sessionFixtures';
import { disposeAfterEach } from '../../support/disposeAfterEach';

describe('durable sessions: crash safety', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir()));
  afterEach(() => cleanup());

  const writeSession = (id: string, events: SessionEvent[]): Promise<string> => writeSessionIn(dir, id, events);

  it('loads a log cut at every byte offset of its last line, keeping every earlier event', async function () {
    // About seventy loads and listings: work, not waiting. The limit is a guard against a hang,
    // not a speed claim: on two cores shared with other jobs this work alone can take over 30 s.
    this.timeout(180_000);
    const events = everyEventType();
    // The last line carries multi-byte UTF-8, so some cuts fall inside a character.
    const last: SessionEvent = { type: 'assistant_text', at: tick(), text: 'Grüße aus dem Baum 🌳, 日本語 too' };
    const file = await writeSession('s-torn', [...events, last]);
    const full = fs.readFileSync(file);
    const lastLineStart = full.lastIndexOf(0x0a, full.length - 2) + 1;
    assert.ok(full.length - lastLineStart > 60);

    for (let cut = lastLineStart; cut <= full.length; cut++) {
      fs.writeFileSync(file, full.subarray(0, cut));
      const store = new JsonlSessionStore(dir);
      const loaded = await store.loadSession('s-torn');
      const complete = cut === full.length;
      // Every cut before the final newline leaves the last line incomplete: it is ignored.
      assert.deepEqual(loaded.events, complete ? [...events, last] : events, `cut at ${cut}`);
      assert.equal(loaded.repairs.tornTailBytes, complete ? 0 : cut - lastLineStart, `cut at ${cut}`);
      const { sessions, diagnostics } = await store.listSessions();
      assert.deepEqual(diagnostics, [], `cut at ${cut}`);
      assert.equal(sessions[0].summary.eventCount, complete ? events.length + 1 : events.length);
    }
  });

  it('reports a file cut inside its header as corrupt, never as a crash of the catalog', async () => {
    const file = await writeSession('s-header-cut', []);
    const full = fs.readFileSync(file);
    for (const cut of [0, 1, Math.floor(full.length / 2), full.length - 1]) {
      fs.writeFileSync(file, full.subarray(0, cut));
      const store = new JsonlSessionStore(dir);
      const { sessions, diagnostics } = await store.listSessions();
      assert.deepEqual(sessions, []);
      assert.equal(diagnostics.length, 1);
      assert.equal(diagnostics[0].code, 'SESSION_CORRUPT');
      await assert.rejects(store.loadSession('s-header-cut'), (e: unknown) => isArborError(e, 'SESSION_CORRUPT'));
    }
  });

  it('closes a turn left running by a crash with turn_end "interrupted", on every load, without writing', async () => {
    const before: SessionEvent[] = [
      { type: 'turn_start', at: tick(), turn: 1 },
      { type: 'user_message', at: tick(), text: 'first', from: 'user' },
      { type: 'turn_end', at: tick(), turn: 1, reason: 'completed' },
      { type: 'turn_start', at: tick(), turn: 2 },
      { type: 'user_message', at: tick(), text: 'second', from: 'user' },
    ];
    const lastAt = tick();
    const file = await writeSession('s-crash', [...before, { type: 'tool_call', at: lastAt, call: { id: 'c1', name: 'run', arguments: '{}' } }]);
    const bytesBefore = fs.readFileSync(file);

    const store = new JsonlSessionStore(dir);
    const first = await store.loadSession('s-crash');
    const second = await store.loadSession('s-crash');
    assert.deepEqual(first, second, 'the repair is the same on every load');
    assert.equal(first.repairs.interruptedTurn, 2);
    assert.deepEqual(first.events[first.events.length - 1], {
      type: 'turn_end',
      at: lastAt,
      turn: 2,
      reason: 'interrupted',
      message: 'Arbor stopped while this turn was running; the turn did not finish.',
    });
    const { sessions } = await store.listSessions();
    assert.equal(sessions[0].summary.lastTurnEndReason, 'interrupted');
    assert.deepEqual(fs.readFileSync(file), bytesBefore, 'loading and listing never write');
  });

  it('does not repair a log whose last turn ended', async () => {
    const events = everyEventType();
    await writeSession('s-clean', events);
    const loaded = await new JsonlSessionStore(dir).loadSession('s-clean');
    assert.equal(loaded.repairs.interruptedTurn, undefined);
    assert.deepEqual(loaded.events, events);
  });

  it('reopenLog makes the repairs durable: cuts the torn tail and appends the interrupted turn_end', async () => {
    const file = await writeSession('s-resume', [
      { type: 'turn_start', at: tick(), turn: 1 },
      { type: 'user_message', at: tick(), text: 'go', from: 'user' },
    ]);
    fs.appendFileSync(file, '{"type":"assistant_text","at":"2026-'); // a write the crash cut short

    const store = new JsonlSessionStore(dir);
    track(store);
    const log = await store.reopenLog('s-resume');
    assert.deepEqual(
      log.events.map((e) => e.type),
      ['turn_start', 'user_message', 'turn_end'],
    );
    log.append({ type: 'turn_start', at: tick(), turn: 2 });
    log.append({ type: 'turn_end', at: tick(), turn: 2, reason: 'completed' });
    await store.dispose();

    const text = fs.readFileSync(file, 'utf8');
    assert.ok(text.endsWith('\n'));
    assert.ok(!text.includes('"at":"2026-\n'), 'the torn bytes are gone');
    const reloaded = await new JsonlSessionStore(dir).loadSession('s-resume');
    assert.deepEqual(reloaded.repairs, { tornTailBytes: 0 });
    assert.deepEqual(reloaded.events, log.events);
    assert.equal(reloaded.events[2].type === 'turn_end' && reloaded.events[2].reason, 'interrupted');
  });

  it('keeps what flushAllSync wrote when the process dies right after (exit handler path)', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 60_000 });
    const log = store.create(header('s-exit'));
    log.append({ type: 'turn_start', at: tick(), turn: 1 });
    log.append({ type: 'assistant_text', at: tick(), text: 'half-way' });
    store.flushAllSync();
    // No dispose, no await: what a killed process leaves behind.
    const loaded = await new JsonlSessionStore(dir).loadSession('s-exit');
    assert.deepEqual(loaded.events.slice(0, 2), log.events);
    assert.equal(loaded.repairs.interruptedTurn, 1);
  });
});

describe('durable sessions: a real process that dies', function () {
  // A deadline against a hang, not a speed claim: a node process with tsx takes many seconds to
  // start on a loaded two-core machine.
  this.timeout(120_000);
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir()));
  afterEach(() => cleanup());

  /** Runs a script in a child Node process that can require the TypeScript sources. */
  function runChild(body: string, untilStdout?: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const script = path.join(dir, 'child.js');
    const sessions = path.resolve(__dirname, '../../../src/core/sessions');
    fs.writeFileSync(script, `const { JsonlSessionStore } = require(${JSON.stringify(sessions)});\n${body}`);
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--require', 'tsx/cjs', script], { cwd: path.resolve(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (untilStdout && out.includes(untilStdout)) child.kill('SIGKILL');
      });
      child.on('error', reject);
      child.on('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  it('keeps every event of completed turns when the process is killed mid-turn', async () => {
    const root = path.join(dir, 'sessions');
    const result = await runChild(
      `(async () => {
        const store = new JsonlSessionStore(${JSON.stringify(root)}, { flushDelayMs: 10 });
        const log = store.create({ type: 'header', version: 1, id: 'killed', createdAt: new Date().toISOString(), delegationDepth: 0, kind: 'root', label: 'k', interactionMode: 'interactive' });
        const at = () => new Date().toISOString();
        for (let turn = 1; turn <= 3; turn++) {
          log.append({ type: 'turn_start', at: at(), turn });
          for (let i = 0; i < 200; i++) log.append({ type: 'assistant_text', at: at(), text: 'chunk ' + i });
          log.append({ type: 'turn_end', at: at(), turn, reason: 'completed' });
          await log.flush();
        }
        log.append({ type: 'turn_start', at: at(), turn: 4 });
        // Turn 4 has begun on disk before the parent hears TURNS-DONE: what the kill cuts is the
        // turn's unflushed tail, however late a loaded machine runs the timed flush.
        await log.flush();
        // Keep appending, unflushed, until killed.
        let i = 0;
        setInterval(() => { for (let k = 0; k < 50; k++) log.append({ type: 'assistant_text', at: at(), text: 'late ' + i++ }); }, 1);
        setTimeout(() => process.stdout.write('TURNS-DONE\\n'), 50);
      })();`,
      'TURNS-DONE',
    );
    assert.equal(result.signal, 'SIGKILL');
    const loaded = await new JsonlSessionStore(root).loadSession('killed');
    const turnEnds = loaded.events.filter((e) => e.type === 'turn_end');
    assert.deepEqual(turnEnds.map((e) => e.type === 'turn_end' && [e.turn, e.reason]), [[1, 'completed'], [2, 'completed'], [3, 'completed'], [4, 'interrupted']]);
    assert.equal(loaded.events.filter((e) => e.type === 'assistant_text' && e.text.startsWith('chunk')).length, 600);
  });

  it('writes everything from a process "exit" handler with flushAllSync', async () => {
    const root = path.join(dir, 'sessions');
    const result = await runChild(`
      const store = new JsonlSessionStore(${JSON.stringify(root)}, { flushDelayMs: 60000 });
      process.on('exit', () => store.flushAllSync());
      const log = store.create({ type: 'header', version: 1, id: 'exiting', createdAt: new Date().toISOString(), delegationDepth: 0, kind: 'root', label: 'e', interactionMode: 'interactive' });
      log.append({ type: 'turn_start', at: new Date().toISOString(), turn: 1 });
      log.flush(); // an async write is in flight when the process exits
      for (let i = 0; i < 1000; i++) log.append({ type: 'assistant_text', at: new Date().toISOString(), text: 'line ' + i });
      log.append({ type: 'turn_end', at: new Date().toISOString(), turn: 1, reason: 'completed' });
      process.exit(0);
    `);
    assert.equal(result.code, 0);
    const loaded = await new JsonlSessionStore(root).loadSession('exiting');
    assert.equal(loaded.events.length, 1002);
    assert.equal(loaded.repairs.interruptedTurn, undefined);
  });
});
