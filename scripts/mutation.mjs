// Runs Stryker over the core (npm run test:mutation), over the files named on the command line
// (npm run test:mutation -- src/core/agents/agent.ts ...), or over the core files changed against
// a branch (npm run test:mutation -- --changed, or --changed=<ref>; main by default), one file at
// a time. Each file keeps its own incremental record under reports/incremental/, so a later run
// only retests the mutants whose code or covering tests changed, and runs over different files
// never overwrite each other.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
// Source files are named by their path under src/; --changed, --tests and --static are ours;
// everything else (--concurrency 2, ...) goes to Stryker as is.
const isSourceFile = (a) => a.startsWith('src/') && a.endsWith('.ts');
const isChanged = (a) => a === '--changed' || a.startsWith('--changed=');
const changedFlag = args.find(isChanged);
// --tests=<globs> runs only those unit tests (comma-separated), read by stryker.config.mjs.
const isTests = (a) => a.startsWith('--tests=');
const testsFlag = args.find(isTests);
// --static also runs the mutants of code that only runs while a module loads (slow: each one
// reloads every test file in a fresh process), read by stryker.config.mjs.
const withStatic = args.includes('--static');
const extra = args.filter((a) => !isSourceFile(a) && !isChanged(a) && !isTests(a) && a !== '--static');
const stryker = path.join('node_modules', '.bin', 'stryker');

/** The files Stryker mutates in a sweep of the core (the `mutate` globs of stryker.config.mjs). */
const isMutable = (file) => /^src\/core\/.+\.ts$/.test(file) && path.basename(file) !== 'index.ts' && file !== 'src/core/once.ts' && !file.endsWith('.d.ts');

function git(...gitArgs) {
  return execFileSync('git', gitArgs, { encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** Core files that differ from where this branch left `ref`, committed or not, and still exist. */
function changedFiles(ref) {
  const base = git('merge-base', 'HEAD', ref)[0];
  const names = new Set([...git('diff', '--name-only', base, '--'), ...git('ls-files', '--others', '--exclude-standard')]);
  return [...names].filter((f) => isMutable(f) && fs.existsSync(f)).sort();
}

function run(strykerArgs, slug) {
  const env = { ...process.env, ARBOR_MUTATION_SLUG: slug };
  if (testsFlag) env.ARBOR_MUTATION_TESTS = testsFlag.slice('--tests='.length);
  if (withStatic) env.ARBOR_MUTATION_STATIC = '1';
  const result = spawnSync(stryker, ['run', ...strykerArgs, ...extra], { stdio: 'inherit', env });
  return result.status ?? 1;
}

let files = args.filter(isSourceFile);
if (changedFlag) {
  const ref = changedFlag.includes('=') ? changedFlag.slice(changedFlag.indexOf('=') + 1) : 'main';
  files = [...new Set([...files, ...changedFiles(ref)])];
  if (files.length === 0) {
    console.log(`No core file changed against ${ref}: nothing to mutate.`);
    process.exit(0);
  }
  console.log(`Core files changed against ${ref}:\n  ${files.join('\n  ')}`);
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
