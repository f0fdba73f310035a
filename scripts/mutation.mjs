// Runs Stryker over the core (npm run test:mutation) or over the files named on the command line
// (npm run test:mutation -- src/core/agents/agent.ts ...), one file at a time. Each file keeps its
// own incremental record under reports/incremental/, so a later run only retests the mutants whose
// code or covering tests changed, and runs over different files never overwrite each other.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

// Source files are named by path; everything else (--concurrency 2, ...) goes to Stryker as is.
const isSourceFile = (a) => !a.startsWith('-') && a.endsWith('.ts');
const files = process.argv.slice(2).filter(isSourceFile);
const extra = process.argv.slice(2).filter((a) => !isSourceFile(a));
const stryker = path.join('node_modules', '.bin', 'stryker');

function run(args, slug) {
  const env = { ...process.env, ARBOR_MUTATION_SLUG: slug };
  const result = spawnSync(stryker, ['run', ...args, ...extra], { stdio: 'inherit', env });
  return result.status ?? 1;
}

let status = 0;
if (files.length === 0) {
  status = run([], 'core');
} else {
  for (const file of files) {
    const slug = file.replace(/^src\/core\//, '').replace(/[\\/]/g, '_').replace(/\.ts$/, '');
    const code = run(['--mutate', file], slug);
    if (code !== 0) status = code;
  }
}
process.exit(status);
