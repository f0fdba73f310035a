import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activate, deactivate } from '../../../src/extension/extension';
import { activateInFreshProcess, type ActivationProbe } from '../../support/activationHost';

/**
 * What the editor counts as Arbor's activation: loading the extension module and the activate()
 * call; then what it waits for before Arbor's views paint: the start activate() resolves after.
 * All of it runs here in a fresh process against a stand-in editor, with a probe that records
 * the modules loaded, where zod schemas are built and every synchronous look at the disk, per
 * phase. The time itself is printed by bench/activation.bench.ts; this checks the work that
 * makes it.
 */
describe('extension activation does only what the first paint of the views needs', function () {
  this.timeout(300_000);
  let probe: ActivationProbe;
  let api: string[];
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-activation-test-'));
    const entry = path.resolve(__dirname, '../../../src/extension/extension.ts');
    const figures = activateInFreshProcess(entry, dir, { probe: true, nodeArgs: ['--require', 'tsx/cjs'] });
    assert.ok(figures.probe, 'the probe reports');
    probe = figures.probe;
    api = figures.api;
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads none of Arbor\'s other modules and builds no schema until activate() has returned', () => {
    assert.deepEqual([...probe.modules.load, ...probe.modules.activate], ['src/extension/extension.ts'], 'modules loaded with the entry and by activate()');
    assert.deepEqual({ ...probe.schemas.load, ...probe.schemas.activate }, {}, 'schemas built while the entry loads and activates');
    assert.ok(probe.modules.start.includes('src/extension/arbor.ts'), 'the rest of Arbor starts once activate() has returned');
  });

  it('resolves activation with Arbor\'s API once it has started', () => {
    for (const key of ['version', 'startAgent', 'stopAgent', 'sendMessage', 'listAgents', 'onDidChangeAgent']) assert.ok(api.includes(key), `the API has ${key} (got ${api.join(', ')})`);
  });

  it('builds the zod schemas of what activation reads (settings, limits, approval rules), none of the others', () => {
    // What activation parses: the manifest, the settings (with the run limits), the remembered
    // approval rules and the editor-tool selection. Every other schema waits for its first use.
    const readAtActivation = [
      'src/core/limits.ts',
      // The price table and the runaway guards are settings too.
      'src/core/budgets/prices.ts',
      'src/core/budgets/runaway.ts',
      'src/extension/settings.ts',
      'src/extension/arbor.ts',
      'src/extension/approvals/ruleStore.ts',
      'src/extension/lmTools/vscodeToolBridge.ts',
    ];
    const built: Record<string, number> = {};
    for (const phase of [probe.schemas.load, probe.schemas.activate, probe.schemas.start]) {
      for (const [where, count] of Object.entries(phase)) built[where] = (built[where] ?? 0) + count;
    }
    assert.ok(Object.keys(built).some((where) => where.startsWith('src/extension/settings.ts')), 'the probe sees the settings schema being built');
    const others = Object.entries(built).filter(([where]) => !readAtActivation.some((file) => where.startsWith(`${file}:`)));
    assert.deepEqual(others, [], 'schemas built while the extension loads and activates, at their defining lines (build them on first use with once)');
  });

  it('loads none of the parts that only some users need (src/extension/parts.ts, src/core/parts.ts) until their first use', () => {
    const partModules = ['src/extension/parts.ts', 'src/core/parts.ts'].flatMap((file) => {
      const parts = fs.readFileSync(path.resolve(__dirname, '../../..', file), 'utf8');
      return [...parts.matchAll(/require\('\.\/([^']+)'\)/g)].map(([, module]) => `${path.posix.dirname(file)}/${module}`);
    });
    assert.ok(partModules.length >= 10, `the parts files load the parts (got ${partModules.join(', ')})`);
    // Loaded from the sources, a door loads every module behind it; the production build leaves
    // out what start does not use, so here only the parts' own modules are checked.
    const loaded = [...probe.modules.load, ...probe.modules.activate, ...probe.modules.start];
    // The models door keeps these two in the core's public API; from the sources the door loads
    // them, and the package test proves dist/arbor.js leaves them out and never uses them.
    const publicInDoors = ['src/core/models/scriptedModel.ts', 'src/core/models/openAiCompatible.ts'];
    const early = loaded.filter((file) => !publicInDoors.includes(file) && partModules.some((module) => file === `${module}.ts` || file === `${module}/index.ts`));
    assert.deepEqual(early, [], 'parts loaded while Arbor starts');
  });

  it('does not look for ripgrep until an agent first lists or searches files', () => {
    const lookups = [...probe.disk.load, ...probe.disk.activate, ...probe.disk.start].filter((call) => /[\\/]bin[\\/]rg(\.exe)?$/.test(call));
    assert.deepEqual(lookups, []);
  });

  it('deactivated before its start has run, rejects activation and never loads the rest of Arbor', async () => {
    const arbor = path.resolve(__dirname, '../../../src/extension/arbor.ts');
    // The start never runs, so nothing reads more of the context than this.
    const context: Pick<vscode.ExtensionContext, 'subscriptions'> = { subscriptions: [] };
    const started = activate(context as vscode.ExtensionContext);
    deactivate();
    await assert.rejects(started, /deactivated before it started/);
    assert.ok(!(arbor in require.cache), 'arbor.ts was loaded');
  });
});
