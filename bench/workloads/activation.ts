/**
 * Activation of a tree's production build (its dist/extension.js), in fresh Node processes
 * against the stand-in `vscode` module of bench/activation.bench.ts (test/support/activationHost):
 * CPU time from loading the entry until the promise activate() returned resolved, that is until
 * Arbor started (a tree whose activate() returns nothing is started when activate() returns),
 * and the part of it from the activate() call on. The medians of `rounds` processes.
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
    const runs = Array.from({ length: rounds }, () => activateInFreshProcess(entry, dir));
    return {
      activationCpuMs: median(runs.map((r) => r.loadCpu + r.activateCpu + r.startCpu)),
      activateToStartedCpuMs: median(runs.map((r) => r.activateCpu + r.startCpu)),
      activationWallMs: median(runs.map((r) => r.load + r.activate + r.start)),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
