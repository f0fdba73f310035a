import * as assert from 'assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { TerminalSet } from '../../../src/core/external';
import { OutputTail } from '../../../src/core/external/outputTail';
import { MAX_TERMINAL_OUTPUT } from '../../../src/core/external/terminals';
import { newProcessTag, signalProcesses } from '../../../src/core/processTree';
import { isRunning, killQuietly, pidsWritten, untilDead } from '../../support/processes';

/** Runs `script` in node in a terminal with the agent's `limit` and returns what the terminal kept once it exited. */
async function outputOf(script: string, limit: number | undefined) {
  const terminals = new TerminalSet();
  try {
    const id = terminals.create(process.execPath, ['-e', script], os.tmpdir(), {}, limit);
    const exit = await terminals.waitForExit(id, new AbortController().signal);
    assert.strictEqual(exit.exitCode, 0);
    return terminals.output(id);
  } finally {
    terminals.disposeAll();
  }
}

describe('terminal output (TerminalSet)', function () {
  this.timeout(30_000);

  it('keeps at most Arbor\'s own cap, the tail, whatever outputByteLimit the agent names', async () => {
    // 4 MiB of lines, then a last line that must survive: the kept text is the end of the output.
    const { output, truncated } = await outputOf("const l = 'x'.repeat(1023) + '\\n'; for (let i = 0; i < 4096; i++) process.stdout.write(l); process.stdout.write('the end\\n');", 1e12);
    assert.strictEqual(truncated, true);
    assert.ok(Buffer.byteLength(output) <= MAX_TERMINAL_OUTPUT, `${Buffer.byteLength(output)} bytes kept`);
    assert.ok(Buffer.byteLength(output) > MAX_TERMINAL_OUTPUT - 1024, 'the cap is used, not a smaller figure');
    assert.ok(output.endsWith('x\nthe end\n'));
  });

  it('keeps characters whole when a character arrives split across two chunks', async () => {
    // 900,000 bytes of three-byte characters: the pipe delivers it in chunks that split characters.
    const { output, truncated } = await outputOf("process.stdout.write('€'.repeat(300000))", 1e12);
    assert.strictEqual(truncated, false);
    assert.ok(!output.includes('\uFFFD'), 'no character was broken');
    assert.strictEqual(output, '€'.repeat(300_000));
  });

  it('cuts the front at a character boundary, keeping slightly less than the limit rather than half a character', async () => {
    const { output, truncated } = await outputOf("process.stdout.write('é€'.repeat(50000))", 100_000);
    assert.strictEqual(truncated, true);
    const bytes = Buffer.byteLength(output);
    assert.ok(bytes <= 100_000 && bytes > 100_000 - 3, `${bytes}`);
    assert.ok(!output.includes('\uFFFD'));
    assert.ok('é€'.repeat(50_000).endsWith(output));
  });

  it('the agent\'s limit applies when it is below the cap, the default when it names none', async () => {
    const script = "process.stdout.write('y'.repeat(600000))";
    assert.strictEqual((await outputOf(script, 1000)).output.length, 1000);
    assert.strictEqual((await outputOf(script, undefined)).output.length, 256 * 1024);
  });
});

describe('OutputTail', () => {
  it('is the longest suffix that starts at a character boundary and fits the limit, however the bytes are cut into chunks (property)', () => {
    const text = fc.string({ unit: fc.constantFrom('a', '\n', 'é', '€', '😀'), maxLength: 200 });
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 20 }), fc.nat({ max: 400 }), (full, cuts, limit) => {
        const bytes = Buffer.from(full);
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const tail = new OutputTail(limit);
        let from = 0;
        for (const at of [...points, bytes.length]) {
          tail.push(bytes.subarray(from, at));
          from = at;
        }
        let expected = full;
        while (Buffer.byteLength(expected) > limit) expected = expected.slice(expected.codePointAt(0)! > 0xffff ? 2 : 1);
        assert.strictEqual(tail.text(), expected);
        assert.strictEqual(tail.truncated, bytes.length > limit);
        return true;
      }),
      { numRuns: 500 },
    );
  });

  it('leaves a character still arriving for the next read', () => {
    const tail = new OutputTail(100);
    const euro = Buffer.from('a€');
    tail.push(euro.subarray(0, 2));
    assert.strictEqual(tail.text(), 'a');
    tail.push(euro.subarray(2));
    assert.strictEqual(tail.text(), 'a€');
  });
});

describe('ending a terminal (TerminalSet)', function () {
  // Generous bounds: these wait for states, never for a duration.
  this.timeout(40_000);
  let folder: string;
  beforeEach(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-terminal-'));
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('release ends a process the command moved to a session of its own (setsid), even after the command exited', async () => {
    const terminals = new TerminalSet();
    // The subshell exits at once: the setsid'd process is in no group, session or tree of the command's.
    const id = terminals.create('sh', ['-c', "(setsid sh -c 'echo $$ >> pids; exec sleep 987' &); echo started"], folder, {});
    const pids = await pidsWritten(folder, 1);
    try {
      assert.strictEqual((await terminals.waitForExit(id, new AbortController().signal)).exitCode, 0);
      assert.ok(isRunning(pids[0]), 'the setsid process outlives the command until the terminal is released');
      terminals.release(id);
      await untilDead(pids);
    } finally {
      killQuietly(pids);
      terminals.disposeAll();
    }
  });

  it('never signals a process whose pid the command had once, when its start time says it is another process', async () => {
    const bystander = spawn('sleep', ['987'], { detached: true, stdio: 'ignore' });
    const ended = new Promise<NodeJS.Signals | null>((resolve) => bystander.once('exit', (_code, signal) => resolve(signal)));
    // A root recorded with another start time: its pid was reused by the bystander.
    signalProcesses({ pid: bystander.pid, tag: newProcessTag().tag, start: 'another process' }, 'SIGKILL');
    bystander.kill('SIGTERM');
    assert.strictEqual(await ended, 'SIGTERM', 'the bystander was ended by the test, not by the search');
  });
});
