/**
 * A command's start time, sandboxed against unsandboxed, in the same run: `true` run the way
 * run_command runs it (commandProcess.execute), from the call until its result, ARBOR_BENCH_RUNS
 * times each (default 20), the two kinds interleaved so the machine's load falls on both alike.
 * Run with `node --require tsx/cjs bench/sandbox.bench.ts` (or `npm run bench:sandbox`). Prints
 * figures, asserts nothing.
 *
 *   unsandboxed  /bin/sh -c true, as before the sandbox (and as `arbor.sandbox.mode: off` runs it)
 *   sandboxed    the same under bubblewrap: the network filter started and its socket bound in,
 *                socat waited for, the sandbox's own files removed after
 * Also the one-off probe of the machine's sandbox (done once per editor process).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { newProcessTag } from '../src/core/processTree';
import { CommandSandbox, DEFAULT_SANDBOX_SETTINGS, probeSandbox } from '../src/core/sandbox';
import { execute } from '../src/core/tools/commandProcess';

const RUNS = Number(process.env.ARBOR_BENCH_RUNS ?? 20);

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `median ${at(0.5).toFixed(1).padStart(6)} ms   p90 ${at(0.9).toFixed(1).padStart(6)} ms   min ${sorted[0].toFixed(1).padStart(6)} ms`;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const available = await probeSandbox();
  console.log(`probe: ${(performance.now() - t0).toFixed(0)} ms (${!available.ok ? available.missing : available.seatbelt !== undefined ? `Seatbelt at ${available.seatbelt}` : `bubblewrap at ${available.bwrap}`})`);
  if (!available.ok) return;
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-sandbox-')));
  const sandbox = new CommandSandbox({ settings: DEFAULT_SANDBOX_SETTINGS, availability: async () => available });
  const signal = new AbortController().signal;
  const plain: number[] = [];
  const boxed: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      let start = performance.now();
      const { tag, env } = newProcessTag();
      await execute({ program: 'true', args: [], shell: true, env: { ...(process.env as Record<string, string>), ...env }, tag }, folder, 60_000, signal);
      plain.push(performance.now() - start);

      start = performance.now();
      const tagged = newProcessTag();
      const plan = await sandbox.plan([folder]);
      const launch = await sandbox.launch(plan, '/bin/sh', ['-c', 'true'], folder, tagged.env);
      const outcome = await execute({ program: launch.program, args: launch.args, shell: false, env: launch.env, tag: tagged.tag }, folder, 60_000, signal);
      launch.dispose();
      boxed.push(performance.now() - start);
      if (outcome.exit_code !== 0) throw new Error(`the sandboxed command failed: ${outcome.output}`);
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
  console.log(`${RUNS} runs of \`true\` each, interleaved`);
  console.log(`unsandboxed  ${stats(plain)}`);
  console.log(`sandboxed    ${stats(boxed)}`);
}

void main();
