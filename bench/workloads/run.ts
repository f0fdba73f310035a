/**
 * Runs one workload against one source tree and prints its figures as one JSON line, the last
 * line of its output. bench/compare.mjs starts it in a fresh process per run:
 *
 *   node --expose-gc --require tsx/cjs bench/workloads/run.ts <tree root> <fanOut|durable|agents|activation|sessions>
 *
 * The workloads are this checkout's files; the tree only supplies the core they drive.
 */
import * as path from 'node:path';
import { activation } from './activation';
import { agents } from './agents';
import { loadCore } from './core';
import { durable, fanOut } from './fanOut';
import { sessions } from './sessions';

const workloads: Record<string, (root: string) => Promise<Record<string, number>> | Record<string, number>> = {
  fanOut: (root) => fanOut(loadCore(root)),
  durable: (root) => durable(loadCore(root)),
  agents: (root) => agents(loadCore(root)),
  activation: (root) => activation(root),
  sessions: (root) => sessions(loadCore(root)),
};

async function main(): Promise<void> {
  const [root, name] = process.argv.slice(2);
  const workload = name === undefined ? undefined : workloads[name];
  if (!root || !workload) throw new Error(`usage: run.ts <tree root> <${Object.keys(workloads).join('|')}>`);
  const figures = await workload(path.resolve(root));
  // Exits once the line is out: a runtime may leave timers that would keep the process alive.
  process.stdout.write(`${JSON.stringify(figures)}\n`, () => process.exit(0));
}

main().catch(
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
