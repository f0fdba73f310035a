/**
 * Arbor's activation cost, each figure the median over fresh Node processes, against a
 * stand-in `vscode` module that answers every call at once:
 *  - activation as the editor counts it (Running Extensions: code loading + the activate()
 *    call): loading the production entry dist/extension.js and calling activate();
 *  - the start activate() resolves after (loading dist/arbor.js and starting Arbor), which the
 *    editor waits for before it runs the command, opens the view or follows the link that
 *    activated Arbor, but does not count as activation;
 *  - their sum: until Arbor's views can paint;
 *    each of a later start of an install, with the code cache the first start wrote into the
 *    extension's storage; beside them the first start, which compiles dist/arbor.js;
 *  - each part that loads on first use (dist/<part>.js, src/extension/parts.ts and
 *    src/core/parts.ts): its size and
 *    the CPU time of loading it after dist/arbor.js, the cost its first use adds.
 * VS Code's part (finding the extension, its host's bookkeeping) is not in these figures.
 *
 * Baseline in the same run: loading and calling a bundle that only registers one command.
 * Run: npm run bench:activation
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { activateInFreshProcess, loadInFreshProcess, type ActivationFigures } from '../test/support/activationHost';

const ROOT = path.resolve(__dirname, '..');
const ENTRY = path.join(ROOT, 'dist/extension.js');
const ARBOR = path.join(ROOT, 'dist/arbor.js');
const ROUNDS = Number(process.env.ROUNDS ?? 15);
/** What Arbor's activation (load + activate, as the editor counts it) should stay under. */
const TARGET_MS = 30;

const BASELINE_BUNDLE = `const vscode = require('vscode');
exports.activate = (context) => { context.subscriptions.push(vscode.commands.registerCommand('x.hello', () => 'hello')); };`;

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

type Figures = { activation: number; activationCpu: number; start: number; startCpu: number; total: number; totalCpu: number };

/** `storage`: the extension's global storage of every run (a later start of one install), else a fresh one each. */
function measure(bundle: string, dir: string, storage?: string): Figures {
  const runs: ActivationFigures[] = Array.from({ length: ROUNDS }, () => activateInFreshProcess(bundle, dir, { storage }));
  const of = (value: (run: ActivationFigures) => number) => median(runs.map(value));
  return {
    activation: of((run) => run.load + run.activate),
    activationCpu: of((run) => run.loadCpu + run.activateCpu),
    start: of((run) => run.start),
    startCpu: of((run) => run.startCpu),
    total: of((run) => run.load + run.activate + run.start),
    totalCpu: of((run) => run.loadCpu + run.activateCpu + run.startCpu),
  };
}

if (!fs.existsSync(ENTRY) || !fs.existsSync(ARBOR)) {
  console.error('dist/extension.js or dist/arbor.js is missing: run `npm run build -- --production` first.');
  process.exit(1);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-activation-'));
try {
  fs.writeFileSync(path.join(dir, 'baseline.js'), BASELINE_BUNDLE);
  const baseline = measure(path.join(dir, 'baseline.js'), dir);
  // The first start of an install compiles dist/arbor.js and writes V8's code cache into the
  // storage a moment later (src/extension/codeCache.ts); every later start loads that code.
  const first = measure(ENTRY, dir);
  const storage = fs.mkdtempSync(path.join(dir, 'installed-'));
  if (!activateInFreshProcess(ENTRY, dir, { storage, waitForCodeCacheMs: 20_000 }).codeCacheWritten) throw new Error('the first start wrote no code cache within 20 s');
  const arbor = measure(ENTRY, dir, storage);
  const kib = (file: string) => `${(fs.statSync(file).size / 1024).toFixed(1)} KiB`;
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(`activation (median of ${ROUNDS} fresh processes; entry dist/extension.js ${kib(ENTRY)}, dist/arbor.js ${kib(ARBOR)})`);
  console.log(`  baseline one-command extension: load + activate ${fmt(baseline.activation)} (CPU ${fmt(baseline.activationCpu)})`);
  // The editor's "activation time" (Running Extensions) counts loading the entry and the activate() call.
  console.log(`  Arbor activation (load + activate, as the editor counts it): ${fmt(arbor.activation)} (CPU ${fmt(arbor.activationCpu)})`);
  console.log(`  Arbor start right after (dist/arbor.js, until activate()'s promise resolves): ${fmt(arbor.start)} (CPU ${fmt(arbor.startCpu)})`);
  console.log(`  Arbor until its views can paint (activation + start): ${fmt(arbor.total)} (CPU ${fmt(arbor.totalCpu)}; baseline ${fmt(baseline.total)})`);
  console.log(`  the same at the first start of an install (no code cache yet): ${fmt(first.total)} (CPU ${fmt(first.totalCpu)}; later starts ${(arbor.totalCpu / first.totalCpu).toFixed(2)}x of it)`);
  // CPU time does not count the time the process waited for a core: on a busy machine it is the steadier figure.
  const verdict = (ms: number) => (ms < TARGET_MS ? 'PASS' : 'FAIL');
  console.log(`  ${verdict(arbor.activation)} activation under ${fmt(TARGET_MS)}: ${fmt(arbor.activation)} wall, ${fmt(arbor.activationCpu)} CPU (${verdict(arbor.activationCpu)} on CPU)`);
  // The parts: what the parts files require(), each built into dist/<module>.js (its folder for an index.ts).
  const parts = ['src/extension/parts.ts', 'src/core/parts.ts'].flatMap((file) =>
    [...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(/require\('\.\/([^']+)'\)/g)].map(([, module]) => path.join(ROOT, 'dist', `${path.basename(module)}.js`)),
  );
  console.log(`parts loaded on first use (CPU to load each after dist/arbor.js, median of ${ROUNDS} fresh processes)`);
  for (const part of parts) {
    const cpu = median(Array.from({ length: ROUNDS }, () => loadInFreshProcess([ARBOR, part], dir)[1]?.cpuMs ?? Number.NaN));
    console.log(`  ${path.relative(ROOT, part).padEnd(28)} ${kib(part).padStart(9)}  ${fmt(cpu)}`);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
