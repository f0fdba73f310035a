/**
 * Arbor's own activation cost: loading the production bundle (dist/extension.js) and running
 * activate(), each in a fresh Node process, against a stand-in `vscode` module that answers
 * every call at once. VS Code's part (finding the extension, its host's bookkeeping) is not in
 * these figures; what Arbor's code does before the first paint of its views is.
 *
 * Baseline in the same run: loading and calling a bundle that only registers one command.
 * Run: npm run bench:activation
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { activateInFreshProcess } from '../test/support/activationHost';

const ROOT = path.resolve(__dirname, '..');
const BUNDLE = path.join(ROOT, 'dist/extension.js');
const ROUNDS = Number(process.env.ROUNDS ?? 15);
/** What Arbor's activation (load + activate) should stay under. */
const TARGET_MS = 30;

const BASELINE_BUNDLE = `const vscode = require('vscode');
exports.activate = (context) => { context.subscriptions.push(vscode.commands.registerCommand('x.hello', () => 'hello')); };`;

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

type Figures = { load: number; activate: number; loadCpu: number; activateCpu: number };

function measure(bundle: string, dir: string): Figures {
  const runs = Array.from({ length: ROUNDS }, () => activateInFreshProcess(bundle, dir));
  const of = (key: keyof Figures) => median(runs.map((run) => run[key]));
  return { load: of('load'), activate: of('activate'), loadCpu: of('loadCpu'), activateCpu: of('activateCpu') };
}

if (!fs.existsSync(BUNDLE)) {
  console.error('dist/extension.js is missing: run `npm run build -- --production` first.');
  process.exit(1);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-activation-'));
try {
  fs.writeFileSync(path.join(dir, 'baseline.js'), BASELINE_BUNDLE);
  const baseline = measure(path.join(dir, 'baseline.js'), dir);
  const arbor = measure(BUNDLE, dir);
  const size = fs.statSync(BUNDLE).size / 1024;
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(`activation (median of ${ROUNDS} fresh processes; bundle ${size.toFixed(0)} KiB)`);
  console.log(`  baseline one-command extension: load ${fmt(baseline.load)}, activate ${fmt(baseline.activate)}`);
  console.log(`  Arbor: load ${fmt(arbor.load)}, activate ${fmt(arbor.activate)}, total ${fmt(arbor.load + arbor.activate)}`);
  // CPU time does not count the time the process waited for a core: on a busy machine it is the steadier figure.
  console.log(`  Arbor CPU: load ${fmt(arbor.loadCpu)}, activate ${fmt(arbor.activateCpu)}, total ${fmt(arbor.loadCpu + arbor.activateCpu)} (baseline ${fmt(baseline.loadCpu + baseline.activateCpu)})`);
  console.log(`  Arbor over baseline: ${fmt(arbor.load + arbor.activate - baseline.load - baseline.activate)}`);
  // The editor's "activation time" (Running Extensions) counts both loading the bundle and activate().
  console.log(`  target: load + activate under ${fmt(TARGET_MS)} on an idle machine (${arbor.load + arbor.activate < TARGET_MS ? 'met' : 'not met'} in this run)`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
