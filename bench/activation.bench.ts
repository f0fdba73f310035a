/**
 * Arbor's own activation cost: loading the production bundle (dist/extension.js) and running
 * activate(), each in a fresh Node process, against a stand-in `vscode` module that answers
 * every call at once. VS Code's part (finding the extension, its host's bookkeeping) is not in
 * these figures; what Arbor's code does before the first paint of its views is.
 *
 * Baseline in the same run: loading and calling a bundle that only registers one command.
 * Run: npm run bench:activation
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const BUNDLE = path.join(ROOT, 'dist/extension.js');
const ROUNDS = Number(process.env.ROUNDS ?? 15);
/** What Arbor's activation (load + activate) should stay under. */
const TARGET_MS = 30;

/** A module that stands in for 'vscode': every member exists, every call returns at once. */
const VSCODE_STAND_IN = String.raw`
const handler = {
  get(target, key) {
    if (key === 'then') return undefined;
    if (key === Symbol.toPrimitive) return () => '';
    if (key === Symbol.iterator) return function* () {};
    if (!(key in target)) target[key] = stand();
    return target[key];
  },
  apply() { return stand(); },
  construct() { return stand(); },
};
function stand() { return new Proxy(function () {}, handler); }
const vscode = stand();
// Bundles copy the module's own keys when they import it: every exported name must exist up front.
for (const name of JSON.parse(process.env.VSCODE_NAMES)) vscode[name];
const config = { get: (_key, fallback) => fallback, has: () => false, inspect: () => undefined, update: async () => undefined };
Object.assign(vscode, {
  version: '1.100.3',
  env: { appName: 'bench', appRoot: require('os').tmpdir(), language: 'en', uiKind: 1 },
  workspace: Object.assign(stand(), { getConfiguration: () => config, workspaceFolders: undefined, isTrusted: true }),
  Uri: { file: (p) => ({ scheme: 'file', fsPath: p, path: p, toString: () => 'file://' + p }), parse: (s) => ({ scheme: 'file', fsPath: s, toString: () => s }), joinPath: (b, ...p) => ({ scheme: 'file', fsPath: require('path').join(b.fsPath, ...p), toString: () => '' }) },
  EventEmitter: class { constructor() { this.event = () => ({ dispose() {} }); } fire() {} dispose() {} },
  Disposable: class { constructor(f) { this.f = f; } dispose() { this.f?.(); } static from(...d) { return { dispose() { d.forEach((x) => x.dispose?.()); } }; } },
  TreeItem: class { constructor(label, state) { this.label = label; this.collapsibleState = state; } },
  ThemeIcon: class { constructor(id, color) { this.id = id; this.color = color; } },
  ThemeColor: class { constructor(id) { this.id = id; } },
  MarkdownString: class { constructor(v) { this.value = v || ''; } appendMarkdown(v) { this.value += v; return this; } appendText(v) { this.value += v; return this; } },
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  LanguageModelChatMessage: { User: (c) => ({ role: 1, content: c }), Assistant: (c) => ({ role: 2, content: c }) },
});
module.exports = vscode;
`;

const WORKER = String.raw`
const Module = require('module');
const path = require('path');
const standIn = require(process.env.STAND_IN);
const load = Module._load;
Module._load = function (request, parent, isMain) { return request === 'vscode' ? standIn : load.apply(this, arguments); };
const storage = process.env.STORAGE;
const context = {
  subscriptions: [],
  extension: { packageJSON: { version: '0.0.0' } },
  extensionUri: standIn.Uri.file(path.dirname(process.env.BUNDLE)),
  extensionPath: path.dirname(process.env.BUNDLE),
  storageUri: undefined,
  globalStorageUri: standIn.Uri.file(storage),
  secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined, onDidChange: () => ({ dispose() {} }) },
  globalState: { get: () => undefined, update: async () => undefined, keys: () => [] },
  workspaceState: { get: () => undefined, update: async () => undefined, keys: () => [] },
};
const t0 = process.hrtime.bigint();
const ext = require(process.env.BUNDLE);
const t1 = process.hrtime.bigint();
ext.activate(context);
const t2 = process.hrtime.bigint();
process.stdout.write(JSON.stringify({ load: Number(t1 - t0) / 1e6, activate: Number(t2 - t1) / 1e6 }), () => process.exit(0));
`;

const BASELINE_BUNDLE = `const vscode = require('vscode');
exports.activate = (context) => { context.subscriptions.push(vscode.commands.registerCommand('x.hello', () => 'hello')); };`;

/** Every name the 'vscode' module exports, read from its type declarations. */
function vscodeNames(): string {
  const types = fs.readFileSync(require.resolve('@types/vscode/index.d.ts'), 'utf8');
  const names = new Set<string>();
  for (const match of types.matchAll(/^\s*export (?:namespace|class|enum|const|let|function) (\w+)/gm)) names.add(match[1]);
  return JSON.stringify([...names]);
}

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function measure(bundle: string, dir: string): { load: number; activate: number } {
  const loads: number[] = [];
  const activates: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const storage = fs.mkdtempSync(path.join(dir, 'storage-'));
    const run = spawnSync(process.execPath, ['-e', WORKER], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, STAND_IN: path.join(dir, 'vscode.js'), BUNDLE: bundle, STORAGE: storage, VSCODE_NAMES: vscodeNames() },
    });
    if (run.status !== 0) throw new Error(`activation failed:\n${run.stderr}`);
    const figures = JSON.parse(run.stdout) as { load: number; activate: number };
    loads.push(figures.load);
    activates.push(figures.activate);
  }
  return { load: median(loads), activate: median(activates) };
}

if (!fs.existsSync(BUNDLE)) {
  console.error('dist/extension.js is missing: run `npm run build -- --production` first.');
  process.exit(1);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-activation-'));
try {
  fs.writeFileSync(path.join(dir, 'vscode.js'), VSCODE_STAND_IN);
  fs.writeFileSync(path.join(dir, 'baseline.js'), BASELINE_BUNDLE);
  const baseline = measure(path.join(dir, 'baseline.js'), dir);
  const arbor = measure(BUNDLE, dir);
  const size = fs.statSync(BUNDLE).size / 1024;
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(`activation (median of ${ROUNDS} fresh processes; bundle ${size.toFixed(0)} KiB)`);
  console.log(`  baseline one-command extension: load ${fmt(baseline.load)}, activate ${fmt(baseline.activate)}`);
  console.log(`  Arbor: load ${fmt(arbor.load)}, activate ${fmt(arbor.activate)}, total ${fmt(arbor.load + arbor.activate)}`);
  console.log(`  Arbor over baseline: ${fmt(arbor.load + arbor.activate - baseline.load - baseline.activate)}`);
  // The editor's "activation time" (Running Extensions) counts both loading the bundle and activate().
  console.log(`  target: load + activate under ${fmt(TARGET_MS)} on an idle machine (${arbor.load + arbor.activate < TARGET_MS ? 'met' : 'not met'} in this run)`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
