// A tree's production build (its own esbuild.mjs --production, run with metafileRegister.mjs)
// and what its bundles weigh: every JavaScript output, the start bundle (what activation loads:
// dist/extension.js and, where the tree has it, dist/arbor.js, which activate() requires), and
// the bytes each part of the code adds to the start bundle, from esbuild's metafile.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const REGISTER = pathToFileURL(path.join(path.dirname(new URL(import.meta.url).pathname), 'metafileRegister.mjs')).href;
/** What activation loads: the entry, then the rest of Arbor where the two are split. */
export const START_BUNDLE = ['dist/extension.js', 'dist/arbor.js'];

/**
 * The part of the code an input of a bundle belongs to: its package for node_modules (the
 * outermost one), else its module folder (src/core/sessions, src/extension/models, ...).
 */
export function partOf(input) {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (pkg) return pkg[1];
  const src = /(?:^|\/)(src\/(?:core|extension))\/(?:([^/]+)\/)?/.exec(input);
  if (src) return src[2] ? `${src[1]}/${src[2]}` : `${src[1]} (its own files)`;
  const media = /(?:^|\/)(media\/src)\//.exec(input);
  return media ? media[1] : 'other';
}

/** Builds `root` for production; returns the outputs' sizes and the start bundle's parts, or an error. */
export function measureBundles(root) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-compare-metafile-'));
  try {
    const run = spawnSync(process.execPath, ['--import', REGISTER, 'esbuild.mjs', '--production'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, ARBOR_METAFILE_DIR: dir },
    });
    if (run.status !== 0) return { error: `production build failed: ${(run.stderr || run.stdout || '').trim().split('\n').slice(-3).join(' ')}` };
    const outputs = {};
    for (const file of fs.readdirSync(dir)) Object.assign(outputs, JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')).outputs);
    const files = {};
    const parts = {};
    for (const [name, output] of Object.entries(outputs)) {
      if (!name.endsWith('.js')) continue;
      files[name] = output.bytes;
      if (!START_BUNDLE.includes(name)) continue;
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) parts[partOf(input)] = (parts[partOf(input)] ?? 0) + bytesInOutput;
    }
    const sum = (names) => names.reduce((total, name) => total + (files[name] ?? 0), 0);
    return { files, parts, startBytes: sum(START_BUNDLE), shippedBytes: sum(Object.keys(files)) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
