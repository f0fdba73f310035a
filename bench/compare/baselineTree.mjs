// The baseline tree of `npm run bench:compare`: a commit exported with `git archive` into
// <tmp>/arbor-bench-compare/<commit>-<checkout>/tree (no worktree, so the repository's own state
// is never touched; one per checkout, since its links lead into that checkout), kept there for
// the next run, with a node_modules of its own made of links:
//  - every package of this checkout's node_modules is linked, each one by name (a scope folder
//    is a real folder of links), so nothing run in the tree can write into this checkout's;
//  - a package the commit's package-lock.json needs at run time (not `dev`) at a version this
//    checkout does not have is installed with npm into <tmp>/.../deps, outside both trees,
//    and linked instead. npm uses its cache first; when it cannot get one (offline), the tree
//    keeps this checkout's version and the run says so.
// Build tools (esbuild, tsx) are always this checkout's, so both trees are built and run alike.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FORMAT = 1;

/** The full hash of `commit` in `repo`, or throws with git's message. */
export function resolveCommit(repo, commit) {
  try {
    return execFileSync('git', ['rev-parse', '--verify', '--quiet', `${commit}^{commit}`], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    throw new Error(`${commit} is not a commit of this repository`);
  }
}

/**
 * Makes (or reuses) the baseline tree of `sha`. Returns its root and notes about its packages.
 * `fresh` throws away a tree kept from an earlier run.
 */
export function prepareBaseline(repo, sha, { fresh = false, log = () => {} } = {}) {
  const checkout = createHash('sha256').update(path.resolve(repo)).digest('hex').slice(0, 8);
  const home = path.join(os.tmpdir(), 'arbor-bench-compare', `${sha.slice(0, 12)}-${checkout}`);
  const root = path.join(home, 'tree');
  const ready = path.join(home, 'ready.json');
  if (!fresh && fs.existsSync(ready)) {
    const kept = JSON.parse(fs.readFileSync(ready, 'utf8'));
    if (kept.format === FORMAT && kept.sha === sha) {
      log(`baseline ${sha.slice(0, 7)}: reusing ${root}`);
      return { root, notes: kept.notes };
    }
  }
  // Made under another name and renamed when whole, so an interrupted run leaves no half tree to reuse.
  const making = `${home}.making-${process.pid}`;
  fs.rmSync(making, { recursive: true, force: true });
  fs.mkdirSync(path.join(making, 'tree'), { recursive: true });
  log(`baseline ${sha.slice(0, 7)}: exporting into ${root}`);
  const tar = path.join(making, 'tree.tar');
  execFileSync('git', ['archive', '--format=tar', '-o', tar, sha], { cwd: repo });
  execFileSync('tar', ['-xf', tar, '-C', path.join(making, 'tree')]);
  fs.rmSync(tar);
  const notes = linkModules(repo, path.join(making, 'tree'), path.join(making, 'deps'), log);
  fs.writeFileSync(path.join(making, 'ready.json'), JSON.stringify({ format: FORMAT, sha, notes }));
  fs.rmSync(home, { recursive: true, force: true });
  fs.renameSync(making, home);
  return { root, notes };
}

function installedVersion(modules, name) {
  try {
    return JSON.parse(fs.readFileSync(path.join(modules, name, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** The run-time packages of the tree's lock file that `modules` lacks at the locked version, as name@version. */
function missingPackages(root, modules) {
  const lockFile = path.join(root, 'package-lock.json');
  if (!fs.existsSync(lockFile)) return [];
  const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
  const missing = [];
  for (const [key, entry] of Object.entries(lock.packages ?? {})) {
    const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(key)?.[1];
    if (!name || entry.dev || entry.link || !entry.version) continue;
    if (installedVersion(modules, name) !== entry.version) missing.push(`${name}@${entry.version}`);
  }
  return missing;
}

/**
 * Links every package of `from` into `into`. `replace` links over what is there (the baseline's
 * own versions), with relative links, which still hold once the folder is renamed into place.
 */
function linkEach(from, into, { replace }) {
  if (!fs.existsSync(from)) return;
  for (const name of fs.readdirSync(from)) {
    if (name.startsWith('.') && name !== '.bin') continue;
    const source = path.join(from, name);
    const target = path.join(into, name);
    if (name.startsWith('@')) {
      fs.mkdirSync(target, { recursive: true });
      linkEach(source, target, { replace });
      continue;
    }
    // Only links are ever removed here: a link into this checkout's node_modules, never what it points to.
    if (replace && fs.lstatSync(target, { throwIfNoEntry: false })?.isSymbolicLink()) fs.unlinkSync(target);
    if (!fs.lstatSync(target, { throwIfNoEntry: false })) fs.symlinkSync(replace ? path.relative(into, source) : source, target);
  }
}

function linkModules(repo, root, deps, log) {
  // Absolute, so that the links lead into the checkout from wherever the tree is.
  const current = path.join(path.resolve(repo), 'node_modules');
  const modules = path.join(root, 'node_modules');
  const notes = [];
  const missing = missingPackages(root, current);
  fs.mkdirSync(modules);
  linkEach(current, modules, { replace: false });
  if (missing.length === 0) return notes;
  log(`baseline: installing ${missing.join(', ')} (not in this checkout's node_modules)`);
  fs.mkdirSync(deps, { recursive: true });
  // A package.json of its own, so that npm installs here and never walks up into a tree.
  fs.writeFileSync(path.join(deps, 'package.json'), JSON.stringify({ name: 'arbor-baseline-deps', private: true }));
  try {
    execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', ...missing], { cwd: deps, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 300_000 });
    linkEach(path.join(deps, 'node_modules'), modules, { replace: true });
    notes.push(`baseline packages installed at its locked versions: ${missing.join(', ')}`);
  } catch (err) {
    notes.push(`baseline packages NOT installed (${String(err.stderr || err.message).trim().split('\n').pop()}): ${missing.join(', ')}; the baseline uses this checkout's where it has one`);
  }
  return notes;
}
