// The core of one source tree compiled the way the extension ships it, for the workloads of
// bench:compare to drive: esbuild bundles the core's doors (src/core, its models and sessions
// doors) into one CommonJS file, without keepNames, its packages left to the tree's own
// node_modules. Under tsx, which compiles every file with keepNames, each function a hot path
// makes (an arrow in an object literal, a named local function) also costs an
// Object.defineProperty of its name, which no user's extension host pays; a tree with more such
// functions on a path was charged for them in every figure of that path.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const esbuild = createRequire(path.join(REPO, 'package.json'))('esbuild');

/** Where a tree's compiled core goes: beside its packages, so that its requires of them resolve. */
export function coreBundlePath(root) {
  return path.join(root, 'node_modules', '.cache', 'arbor-bench', 'core.cjs');
}

/**
 * Builds `root`'s core bundle and returns its path. The entry requires each door; a door that
 * fails to load (a baseline's models door without its `openai` package) is left out, and the
 * workload loader takes the scripted model from its own module instead (bench/workloads/core.ts).
 */
export function buildCoreBundle(root, outfile = coreBundlePath(root)) {
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  const entry = [
    "exports.core = require('./src/core');",
    "exports.sessions = require('./src/core/sessions');",
    "exports.zod = require('zod');",
    "try { exports.models = require('./src/core/models'); } catch (err) { if (err.code !== 'MODULE_NOT_FOUND') throw err; }",
    "exports.scriptedModel = () => require('./src/core/models/scriptedModel');",
  ].join('\n');
  esbuild.buildSync({
    stdin: { contents: entry, resolveDir: root, sourcefile: 'bench-core-entry.js', loader: 'js' },
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    keepNames: false,
    minify: false,
    logLevel: 'silent',
    outfile,
  });
  return outfile;
}
