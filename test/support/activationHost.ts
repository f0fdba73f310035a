/**
 * A stand-in editor for loading Arbor's extension module and running activate() in a fresh
 * Node process, shared by the activation benchmark (bench/activation.bench.ts) and the unit
 * test that checks what activation does (test/unit/extension/activation.test.ts). The `vscode`
 * module is a stand-in that answers every call at once, so the figures and the probe see only
 * what Arbor's own code does before the first paint of its views.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** A module that stands in for 'vscode': every member exists, every call returns at once. */
export const VSCODE_STAND_IN = String.raw`
const handler = {
  get(target, key) {
    if (key === 'then') return undefined;
    if (key === Symbol.toPrimitive) return () => '';
    if (key === Symbol.iterator) return function* () {};
    if (!(key in target)) target[key] = stand();
    return target[key];
  },
  // A function's own 'name' and 'length' are read-only; a stand-in takes any property it is given.
  set(target, key, value) { Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: true }); return true; },
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

/**
 * Loads process.env.BUNDLE (with 'vscode' answered by process.env.STAND_IN), runs activate() and
 * waits for what it returns. Prints wall-clock and CPU milliseconds of each step; with PROBE set,
 * also what the probe saw.
 */
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
const probe = process.env.PROBE ? startProbe() : undefined;
const c0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const ext = require(process.env.BUNDLE);
const t1 = process.hrtime.bigint();
const c1 = process.cpuUsage();
if (probe) probe.enter('activate');
const activated = ext.activate(context);
const t2 = process.hrtime.bigint();
const c2 = process.cpuUsage();
if (probe) probe.enter('start');
// What activate() returns may be a promise: the editor waits for it before it runs what activated
// the extension (a command, a view, a link), so the start it resolves after is timed too.
Promise.resolve(activated).then((api) => {
  const t3 = process.hrtime.bigint();
  const c3 = process.cpuUsage();
  if (probe) probe.enter('done');
  const cpu = (a, b) => (b.user - a.user + b.system - a.system) / 1e3;
  const ms = (a, b) => Number(b - a) / 1e6;
  const figures = {
    load: ms(t0, t1), activate: ms(t1, t2), start: ms(t2, t3),
    loadCpu: cpu(c0, c1), activateCpu: cpu(c1, c2), startCpu: cpu(c2, c3),
    api: api && typeof api === 'object' ? Object.keys(api).sort() : [],
    probe: probe && probe.report(),
  };
  // Asked to, the process stays until the start's code cache is in the storage (or the wait is over).
  const waitMs = Number(process.env.WAIT_CODE_CACHE_MS || 0);
  const cacheDir = path.join(storage, 'code-cache');
  const written = () => { try { return require('fs').readdirSync(cacheDir).some((f) => f.endsWith('.codecache')); } catch { return false; } };
  const until = Date.now() + waitMs;
  const report = () => {
    if (waitMs > 0 && !written() && Date.now() < until) return setTimeout(report, 50);
    figures.codeCacheWritten = written();
    process.stdout.write(JSON.stringify(figures), () => process.exit(0));
  };
  report();
}, (error) => {
  process.stderr.write(String(error && error.stack || error), () => process.exit(1));
});

/**
 * Records, per phase (load, activate, start), where each zod schema is built (the first frame
 * in src/: the line that defines it), every synchronous look at the disk, by path, and the
 * modules loaded (files of this repository outside node_modules, relative to it).
 */
function startProbe() {
  const fs = require('fs');
  const root = process.env.REPO_ROOT;
  const phases = () => ({ load: {}, activate: {}, start: {} });
  const state = { phase: 'load', schemas: phases(), disk: { load: [], activate: [], start: [] }, modules: { load: [], activate: [], start: [] } };
  let cached = new Set(Object.keys(require.cache));
  const noteModules = () => {
    for (const file of Object.keys(require.cache)) {
      if (cached.has(file)) continue;
      if (file.startsWith(root + path.sep) && !file.includes(path.sep + 'node_modules' + path.sep)) state.modules[state.phase].push(path.relative(root, file).split(path.sep).join('/'));
    }
    cached = new Set(Object.keys(require.cache));
  };
  globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, {
    postProcessor() {
      if (state.phase === 'done') return;
      const frames = new Error().stack.split('\n').slice(2);
      const frame = frames.find((line) => /[\/]src[\/](core|extension)[\/]/.test(line)) || frames[0] || '';
      const where = frame.replace(/^.*?[\/](src[\/][^:]+:\d+).*$/, '$1').trim();
      state.schemas[state.phase][where] = (state.schemas[state.phase][where] || 0) + 1;
    },
  });
  for (const name of ['accessSync', 'existsSync', 'statSync', 'lstatSync', 'readdirSync', 'readFileSync', 'openSync']) {
    const real = fs[name];
    fs[name] = function (p, ...rest) {
      if (state.phase !== 'done') state.disk[state.phase].push(name + ' ' + String(p));
      return real.call(this, p, ...rest);
    };
  }
  return Object.assign(state, {
    enter(phase) {
      noteModules();
      state.phase = phase;
    },
    report: () => ({ schemas: state.schemas, disk: state.disk, modules: state.modules }),
  });
}
`;

/** Every name the 'vscode' module exports, read from its type declarations. */
function vscodeNames(): string {
  const types = fs.readFileSync(require.resolve('@types/vscode/index.d.ts'), 'utf8');
  const names = new Set<string>();
  for (const match of types.matchAll(/^\s*export (?:namespace|class|enum|const|let|function) (\w+)/gm)) names.add(match[1]);
  return JSON.stringify([...names]);
}

/**
 * The phases of an activation: loading the extension's module (`load`) and the activate() call
 * (`activate`), which the editor counts as the extension's activation time, then the wait for
 * the promise activate() returned (`start`), which the editor waits for before it runs what
 * activated the extension but does not count.
 */
export interface ActivationPhases<T> {
  load: T;
  activate: T;
  start: T;
}

export interface ActivationProbe {
  /** Per phase: how many zod schemas were built at each defining line (`src/...:line`). */
  schemas: ActivationPhases<Record<string, number>>;
  /** Per phase: every synchronous file-system call, as "<call> <path>". */
  disk: ActivationPhases<string[]>;
  /** Per phase: the files of this repository (not node_modules) loaded as modules, relative to it. */
  modules: ActivationPhases<string[]>;
}

export interface ActivationFigures {
  /** Wall-clock milliseconds: loading the module, the activate() call, then the promise it returned. */
  load: number;
  activate: number;
  start: number;
  /** CPU milliseconds of the same steps (less sensitive to other processes on the machine). */
  loadCpu: number;
  activateCpu: number;
  startCpu: number;
  /** The keys of the API activate() gave (resolved). */
  api: string[];
  probe?: ActivationProbe;
  /** Whether the storage holds a code cache of the start when the process is done (codeCache.ts). */
  codeCacheWritten: boolean;
}

/**
 * Loads `entry` and activates it in a fresh Node process, with `dir` as scratch space (the
 * stand-in module and a fresh storage folder go there). `nodeArgs` are given to that process
 * (e.g. `--require tsx/cjs` to load the TypeScript sources instead of a bundle). `storage` is
 * the extension's global storage to use instead of a fresh one (a later start of the same
 * install); with `waitForCodeCacheMs`, the process stays until the start's code cache is
 * written there, at most that long.
 */
export function activateInFreshProcess(entry: string, dir: string, options: { probe?: boolean; nodeArgs?: string[]; storage?: string; waitForCodeCacheMs?: number } = {}): ActivationFigures {
  const standIn = path.join(dir, 'vscode.js');
  if (!fs.existsSync(standIn)) fs.writeFileSync(standIn, VSCODE_STAND_IN);
  const storage = options.storage ?? fs.mkdtempSync(path.join(dir, 'storage-'));
  const run = spawnSync(process.execPath, [...(options.nodeArgs ?? []), '-e', WORKER], {
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, STAND_IN: standIn, BUNDLE: entry, STORAGE: storage, REPO_ROOT: path.resolve(__dirname, '../..'), VSCODE_NAMES: vscodeNames(), PROBE: options.probe ? '1' : '', WAIT_CODE_CACHE_MS: String(options.waitForCodeCacheMs ?? 0) },
  });
  if (run.status !== 0) throw new Error(`activation failed:\n${run.stderr}`);
  return JSON.parse(run.stdout) as ActivationFigures;
}

/** A bundle loaded by loadInFreshProcess: its exports and the CPU milliseconds require() took, or the error it threw. */
export interface LoadedBundle {
  bundle: string;
  exports?: string[];
  cpuMs?: number;
  error?: string;
}

/**
 * Loads `bundles` in order in one fresh Node process against the stand-in editor and gives each
 * one's exports, or the error loading it threw. The parts of the production build
 * (dist/<part>.js) take the modules they share from dist/arbor.js, so it comes first.
 */
export function loadInFreshProcess(bundles: string[], dir: string): LoadedBundle[] {
  const standIn = path.join(dir, 'vscode.js');
  if (!fs.existsSync(standIn)) fs.writeFileSync(standIn, VSCODE_STAND_IN);
  const worker = String.raw`
    const Module = require('module');
    const standIn = require(process.env.STAND_IN);
    const load = Module._load;
    Module._load = function (request) { return request === 'vscode' ? standIn : load.apply(this, arguments); };
    const loaded = JSON.parse(process.env.BUNDLES).map((bundle) => {
      try {
        const before = process.cpuUsage();
        const exports = Object.keys(require(bundle)).sort();
        const cpu = process.cpuUsage(before);
        return { bundle, exports, cpuMs: (cpu.user + cpu.system) / 1e3 };
      } catch (error) {
        return { bundle, error: String((error && error.message) || error) };
      }
    });
    process.stdout.write(JSON.stringify(loaded), () => process.exit(0));`;
  const run = spawnSync(process.execPath, ['-e', worker], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, STAND_IN: standIn, BUNDLES: JSON.stringify(bundles), VSCODE_NAMES: vscodeNames() },
  });
  if (run.status !== 0) throw new Error(`loading the bundles failed:\n${run.stderr}`);
  return JSON.parse(run.stdout) as LoadedBundle[];
}
