/**
 * Activation of a tree's production build (its dist/extension.js), in fresh Node processes
 * against the stand-in `vscode` module of bench/activation.bench.ts (test/support/activationHost):
 * CPU time from loading the entry until the promise activate() returned resolved, that is until
 * Arbor started (a tree whose activate() returns nothing is started when activate() returns),
 * and the part of it from the activate() call on. The medians of `rounds` processes.
 * Each start but the first of an install finds in the extension's storage the code cache the
 * first one wrote (src/extension/codeCache.ts), so the main figures are of such later starts:
 * one process starts in a fresh storage and stays until its cache is written, then `rounds`
 * processes start with that storage. Beside them, the first start: `rounds` processes each
 * with a fresh storage. A tree without a code cache starts the same way in both.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { activateInFreshProcess } from '../../test/support/activationHost';
import { median } from './measure';

export function activation(root: string, rounds = 3): Record<string, number> {
  const entry = path.join(root, 'dist', 'extension.js');
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: the tree's production build failed`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-compare-activation-'));
  try {
    const first = Array.from({ length: rounds }, () => activateInFreshProcess(entry, dir));
    const storage = fs.mkdtempSync(path.join(dir, 'installed-'));
    // Only a tree whose entry writes a code cache (dist/codeCache.js) has one to wait for.
    const caches = fs.existsSync(path.join(root, 'dist', 'codeCache.js'));
    const primed = activateInFreshProcess(entry, dir, { storage, waitForCodeCacheMs: caches ? 20_000 : 0 });
    if (caches && !primed.codeCacheWritten) throw new Error('the first start wrote no code cache within 20 s');
    const runs = Array.from({ length: rounds }, () => activateInFreshProcess(entry, dir, { storage }));
    const cpu = (r: (typeof runs)[number]): number => r.loadCpu + r.activateCpu + r.startCpu;
    return {
      activationCpuMs: median(runs.map(cpu)),
      activateToStartedCpuMs: median(runs.map((r) => r.activateCpu + r.startCpu)),
      activationWallMs: median(runs.map((r) => r.load + r.activate + r.start)),
      activationFirstCpuMs: median(first.map(cpu)),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
