/**
 * An external agent's terminal that prints 16 MB while the agent asks for an outputByteLimit of
 * 1e12. Run with `node --expose-gc --require tsx/cjs bench/terminalOutput.bench.ts`. Prints
 * figures, asserts nothing.
 *
 *   TerminalSet   Arbor's terminal: the tail kept up to its own cap (1 MiB), chunks counted as
 *                 they come
 *   naive         the baseline, measured in the same run on the same output: every chunk decoded
 *                 and appended to one string, whose byte length is counted again after each chunk,
 *                 the limit honoured as the agent asked
 *
 * For each: the time until the process has exited and its output is read, the peak heap growth
 * over the heap before the start (sampled every millisecond and at the end), and the bytes kept.
 * ARBOR_BENCH_MB sets the output size (default 16).
 */
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { TerminalSet } from '../src/core/external';

const MB = Number(process.env.ARBOR_BENCH_MB ?? 16);
const SCRIPT = `const line = 'x'.repeat(1023) + '\\n'; let n = ${MB} * 1024; const more = () => { while (n > 0) { n--; if (!process.stdout.write(line)) return process.stdout.once('drain', more); } }; more();`;
const LIMIT = 1e12;

interface Figures {
  ms: number;
  peakHeapMb: number;
  keptBytes: number;
}

async function measure(run: () => Promise<number>): Promise<Figures> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 1);
  const t0 = performance.now();
  const keptBytes = await run();
  const ms = performance.now() - t0;
  clearInterval(sample);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return { ms, peakHeapMb: (peak - before) / 2 ** 20, keptBytes };
}

async function terminalSet(): Promise<number> {
  const terminals = new TerminalSet();
  const id = terminals.create(process.execPath, ['-e', SCRIPT], os.tmpdir(), {}, LIMIT);
  await terminals.waitForExit(id, new AbortController().signal);
  const kept = Buffer.byteLength(terminals.output(id).output);
  terminals.disposeAll();
  return kept;
}

function naive(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (Buffer.byteLength(output) > LIMIT) output = output.slice(-LIMIT);
    });
    child.once('close', () => resolve(Buffer.byteLength(output)));
  });
}

async function main(): Promise<void> {
  if (!(globalThis as { gc?: () => void }).gc) console.log('(run with --expose-gc for a steadier heap baseline)');
  console.log(`${MB} MB of output, outputByteLimit ${LIMIT}`);
  for (const [name, run] of [['TerminalSet', terminalSet], ['naive', naive]] as const) {
    const f = await measure(run);
    console.log(`${name.padEnd(12)} ${f.ms.toFixed(0).padStart(6)} ms   peak heap +${f.peakHeapMb.toFixed(1).padStart(6)} MB   kept ${(f.keptBytes / 2 ** 20).toFixed(2)} MiB`);
  }
}

void main();
