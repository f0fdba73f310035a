#!/usr/bin/env node
// Packages Arbor as a VSIX the way `npm run package` does and checks what would ship: exactly
// the bundles, the icons, the webview script and its styles, the README, the license and the
// manifest. Part of `npm test`, so a README link or a stray file that breaks packaging fails the
// tests.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureBundles } from '../bench/compare/bundles.mjs';
import { partsOf } from './lib/bundleParts.mjs';
import { PACKAGE_PARTS } from './lib/packageParts.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vsce = path.join(ROOT, 'node_modules/.bin/vsce');
const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-vsix-')), 'arbor.vsix');
const run = (args) => execFileSync(vsce, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let passes = 0;
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'PASS' : 'FAIL'} package ${what}`);
  if (ok) passes++;
  else failures++;
};

try {
  run(['package', '--no-dependencies', '--allow-missing-repository', '--out', out]);
  check(fs.existsSync(out), `builds a VSIX (${(fs.statSync(out).size / 1024).toFixed(0)} KiB)`);
} catch (error) {
  check(false, `builds a VSIX: ${String(error.stderr || error.message).trim()}`);
}
// The editor loads dist/extension.js and times it with activate() as Arbor's activation: it
// holds activate() alone, which requires the rest of Arbor (dist/arbor.js) once it has
// returned. A few KiB more in the entry means Arbor's code crept back into what activation loads.
const ENTRY_BUDGET_KIB = 4;
// dist/arbor.js loads right after every activation: at most 348,000 bytes (the goal is 350 KB; it
// is 344.3 KB). `import * as z from 'zod'` lets esbuild drop zod's locales and unused parts;
// `import { z }` would pull in about 350 KiB more. zod's classic API refers to its JSON Schema
// converter from every schema type: the converter is a part of its own, dist/zodJsonSchema.js
// (scripts/lib/packageParts.mjs), loaded when a model first needs the tools' JSON Schemas, so zod
// is 86 KiB at start (it was 105). What only some users need, or only at its first use, is a
// part of its own (src/extension/parts.ts, src/core/parts.ts); README's Benchmarks section lists
// each part's size. It was 430 KiB with the core's parts in it.
const BUNDLE_BUDGET_BYTES = 348_000;
const kib = (file) => {
  const at = path.join(ROOT, file);
  return fs.existsSync(at) ? fs.statSync(at).size / 1024 : Infinity;
};
const entryKiB = kib('dist/extension.js');
check(entryKiB <= ENTRY_BUDGET_KIB, `activation entry dist/extension.js is ${entryKiB.toFixed(1)} KiB (budget ${ENTRY_BUDGET_KIB} KiB)`);
const bundleBytes = kib('dist/arbor.js') * 1024;
check(bundleBytes <= BUNDLE_BUDGET_BYTES, `bundle dist/arbor.js is ${bundleBytes.toLocaleString('en')} bytes (budget ${BUNDLE_BUDGET_BYTES.toLocaleString('en')})`);
// The packages dist/arbor.js holds, from esbuild's metafile of the production build: zod only,
// which every schema at a trust boundary needs. Any other dependency belongs to the part that
// uses it (picomatch and ignore to the workspace files, diff to the workspace tools' work,
// eventsource-parser to the OpenAI-compatible provider, cron-schedule to scheduled runs).
const START_PACKAGES = ['zod'];
const measured = measureBundles(ROOT);
const startPackages = measured.error
  ? []
  : Object.entries(measured.parts)
      .filter(([part, bytes]) => bytes > 0 && !part.startsWith('src/') && part !== 'other')
      .map(([part, bytes]) => `${part} ${(bytes / 1024).toFixed(1)} KiB`)
      .sort();
check(
  !measured.error && JSON.stringify(startPackages.map((p) => p.split(' ')[0])) === JSON.stringify(START_PACKAGES),
  `the start bundle holds only the packages ${START_PACKAGES.join(', ')} (got ${measured.error ?? (startPackages.join(', ') || 'none')})`,
);
// A door re-exports a part's classes for the core's public API; in dist/arbor.js that re-export
// stands for a module that refuses to be used (scripts/lib/bundleParts.mjs), and nothing at start
// may use it: esbuild then leaves it out, and its words are not in the bundle.
const startSource = fs.existsSync(path.join(ROOT, 'dist/arbor.js')) ? fs.readFileSync(path.join(ROOT, 'dist/arbor.js'), 'utf8') : '';
const throughDoors = [...startSource.matchAll(/dist\/(\w+)\.js is a part loaded on first use: reach it through its loader/g)].map((match) => match[1]);
check(startSource !== '' && throughDoors.length === 0, `nothing in dist/arbor.js uses a part through a door (got ${throughDoors.join(', ') || 'none'})`);
const entry = fs.existsSync(path.join(ROOT, 'dist/extension.js')) ? fs.readFileSync(path.join(ROOT, 'dist/extension.js'), 'utf8') : '';
const required = [...entry.matchAll(/require\((["'])(.*?)\1\)/g)].map((match) => match[2]);
// Once activate() has returned: ./arbor.js, through V8's code cache (./codeCache.js, Node's modules only).
const ENTRY_REQUIRES = ['./arbor.js', './codeCache.js', 'node:fs', 'node:path'];
check(JSON.stringify([...new Set(required)].sort()) === JSON.stringify(ENTRY_REQUIRES), `activation entry requires only ${ENTRY_REQUIRES.join(', ')} (got ${required.join(', ') || 'nothing'})`);
const codeCacheSource = fs.existsSync(path.join(ROOT, 'dist/codeCache.js')) ? fs.readFileSync(path.join(ROOT, 'dist/codeCache.js'), 'utf8') : '';
const codeCacheRequires = [...codeCacheSource.matchAll(/require\((["'])(.*?)\1\)/g)].map((match) => match[2]);
check(codeCacheSource !== '' && codeCacheRequires.every((name) => name.startsWith('node:')), `dist/codeCache.js requires Node's modules only (got ${codeCacheRequires.join(', ') || 'nothing'})`);

// The production entry's first start writes V8's code cache of dist/arbor.js into the extension's
// storage (src/extension/codeCache.ts), and a later start with that storage starts Arbor from it.
const starting = String.raw`
  const { activateInFreshProcess } = require('./test/support/activationHost');
  const fs = require('fs'); const path = require('path');
  const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'arbor-code-cache-'));
  const storage = fs.mkdtempSync(path.join(dir, 'storage-'));
  const entry = path.resolve('dist/extension.js');
  const first = activateInFreshProcess(entry, dir, { storage, waitForCodeCacheMs: 20000 });
  const caches = fs.readdirSync(path.join(storage, 'code-cache'));
  const later = activateInFreshProcess(entry, dir, { storage });
  fs.rmSync(dir, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({ written: first.codeCacheWritten, caches, started: later.api.includes('startAgent') }));`;
const started = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', starting], { cwd: ROOT, encoding: 'utf8' });
const cached = started.status === 0 ? JSON.parse(started.stdout) : { error: started.stderr.trim().split('\n').slice(-3).join(' ') };
check(cached.written === true && cached.caches?.length === 1 && /^arbor\.js-[0-9a-f]{8}\.codecache$/.test(cached.caches[0]) && cached.started === true, `the first start writes dist/arbor.js's code cache and a later start starts from it (got ${JSON.stringify(cached)})`);

// Each part loads against the start bundle, which holds the modules the parts share.
const parts = [...partsOf().keys(), ...Object.keys(PACKAGE_PARTS)].map((name) => `dist/${name}.js`);
const loader = "const { loadInFreshProcess } = require('./test/support/activationHost'); const dir = require('fs').mkdtempSync(require('path').join(require('os').tmpdir(), 'arbor-parts-')); process.stdout.write(JSON.stringify(loadInFreshProcess(JSON.parse(process.argv[1]), dir)));";
const loading = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', loader, JSON.stringify(['dist/arbor.js', ...parts].map((file) => path.join(ROOT, file)))], { cwd: ROOT, encoding: 'utf8' });
const loaded = loading.status === 0 ? JSON.parse(loading.stdout) : [];
for (const file of parts) {
  const part = loaded.find((entry) => entry.bundle === path.join(ROOT, file));
  check(Boolean(part?.exports?.length), `part ${file} loads after dist/arbor.js (${part ? (part.error ?? `exports ${part.exports.join(', ')}`) : loading.stderr.trim() || 'not loaded'})`);
}

// zod's JSON Schema converter waits in dist/zodJsonSchema.js (scripts/lib/packageParts.mjs): loading
// dist/arbor.js does not load it, and a schema built with the bundle's zod converts to exactly the
// JSON Schema the package itself gives.
const converting = String.raw`
  const Module = require('module');
  const load = Module._load;
  Module._load = function (request) { return request === 'vscode' ? new Proxy({}, { get: () => function () {} }) : load.apply(this, arguments); };
  const [bundle, part] = JSON.parse(process.argv[1]);
  const z = require(bundle).__shared.packages.zod;
  const loadedAtStart = Boolean(require.cache[part]);
  const make = (z) => z.object({ path: z.string().min(1).describe('a file'), line: z.number().int().min(1).optional(), mode: z.enum(['a', 'b']).default('a'), edits: z.array(z.union([z.literal('all'), z.boolean()])), meta: z.record(z.string(), z.unknown()) });
  const bundled = JSON.stringify(make(z).toJSONSchema({ io: 'input' }));
  const own = JSON.stringify(require('zod').toJSONSchema(make(require('zod')), { io: 'input' }));
  process.stdout.write(JSON.stringify({ loadedAtStart, same: bundled === own, loadedAfter: Boolean(require.cache[part]) }));`;
const conversion = spawnSync(process.execPath, ['-e', converting, JSON.stringify(['dist/arbor.js', 'dist/zodJsonSchema.js'].map((file) => path.join(ROOT, file)))], { cwd: ROOT, encoding: 'utf8' });
const converted = conversion.status === 0 ? JSON.parse(conversion.stdout) : { error: conversion.stderr.trim().split('\n').slice(-3).join(' ') };
check(converted.loadedAtStart === false && converted.same === true && converted.loadedAfter === true, `zod's JSON Schema converter loads from dist/zodJsonSchema.js on first use and gives the package's own result (got ${JSON.stringify(converted)})`);

const expected = ['LICENSE', 'README.md', 'dist/acp-net.js', 'dist/acp-sdk.js', 'dist/arbor.js', 'dist/codeCache.js', 'dist/extension.js', ...parts, 'media/arbor.svg', 'media/conversation.css', 'media/dist/webview.js', 'media/icon.png', 'package.json'].sort();
const listed = run(['ls', '--no-dependencies']).split('\n').map((l) => l.trim()).filter(Boolean).sort();
check(JSON.stringify(listed) === JSON.stringify(expected), `holds only ${expected.join(', ')} (got ${listed.join(', ')})`);

// The Extensions views show the manifest's icon: a 128x128 PNG (width and height sit at bytes 16-23).
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const icon = manifest.icon && fs.existsSync(path.join(ROOT, manifest.icon)) ? fs.readFileSync(path.join(ROOT, manifest.icon)) : undefined;
const iconSize = icon && icon.subarray(1, 4).toString() === 'PNG' ? `${icon.readUInt32BE(16)}x${icon.readUInt32BE(20)}` : 'not a PNG';
check(listed.includes(manifest.icon) && iconSize === '128x128', `ships the extension icon ${manifest.icon} as a 128x128 PNG (${iconSize})`);

fs.rmSync(path.dirname(out), { recursive: true, force: true });
console.log(`${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
