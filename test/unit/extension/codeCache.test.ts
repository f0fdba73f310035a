import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { requireWithCodeCache } from '../../../src/extension/codeCache';

/**
 * The start loads dist/arbor.js through V8's code cache (src/extension/codeCache.ts). Each start
 * is a process of its own, so each load here is too (a fresh process, as a window's extension
 * host is), except where the module's identity in this process is what is checked.
 */
const CODE_CACHE = path.resolve(__dirname, '../../../src/extension/codeCache.ts');
const LOAD = String.raw`
const { requireWithCodeCache } = require(process.env.CODE_CACHE);
const loaded = requireWithCodeCache(process.env.FILE, process.env.FOLDER, process.env.KEY);
loaded.persist().then((written) => {
  process.stdout.write(JSON.stringify({ cache: loaded.cache, value: loaded.exports.value, written: written instanceof Error ? 'error' : written }));
});
`;

interface Start {
  cache: string;
  value: unknown;
  written: string;
}

/** A start in a fresh process: the module loaded through the cache folder, then the cache written if it was not used. */
function start(file: string, folder: string, key = '1.0.0'): Start {
  const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', LOAD], { encoding: 'utf8', env: { ...process.env, CODE_CACHE, FILE: file, FOLDER: folder, KEY: key } });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as Start;
}

/** A module big enough that V8 has real code to cache: many functions, all of them called. */
function moduleSource(value: number): string {
  const functions = Array.from({ length: 200 }, (_, i) => `function f${i}(x) { return x + ${i} > 0 ? [x, ${i}].join('-') : String(x * ${i}); }`).join('\n');
  return `${functions}\nlet sum = 0;\n${Array.from({ length: 200 }, (_, i) => `sum += f${i}(${i}).length;`).join('\n')}\nexports.value = ${value};\nexports.sum = sum;\n`;
}

const cacheFiles = (folder: string): string[] => (fs.existsSync(folder) ? fs.readdirSync(folder).filter((f) => f.endsWith('.codecache')) : []);

describe('the start bundle through V8 code cache (codeCache.ts)', function () {
  this.timeout(120_000);
  let dir: string;
  let file: string;
  let folder: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-code-cache-'));
    file = path.join(dir, 'bundle.js');
    folder = path.join(dir, 'storage', 'code-cache');
    fs.writeFileSync(file, moduleSource(1));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('compiles at the first start and writes the cache; the next start uses it', () => {
    assert.deepEqual(start(file, folder), { cache: 'absent', value: 1, written: 'written' });
    assert.equal(cacheFiles(folder).length, 1);
    assert.deepEqual(start(file, folder), { cache: 'used', value: 1, written: 'unchanged' });
    assert.deepEqual(start(file, folder), { cache: 'used', value: 1, written: 'unchanged' });
  });

  it('never uses the cache of other bytes of the same length: it compiles them, and replaces the old cache', () => {
    start(file, folder);
    const before = cacheFiles(folder);
    // V8 itself checks only the source's length: the same length with other code must not get the old code.
    fs.writeFileSync(file, moduleSource(2));
    assert.equal(fs.statSync(file).size, Buffer.byteLength(moduleSource(1)));
    assert.deepEqual(start(file, folder), { cache: 'absent', value: 2, written: 'written' });
    const after = cacheFiles(folder);
    assert.equal(after.length, 1, 'the cache of the old bytes is deleted');
    assert.notDeepEqual(after, before);
    assert.deepEqual(start(file, folder), { cache: 'used', value: 2, written: 'unchanged' });
  });

  it('keeps a cache per version key: another version compiles', () => {
    start(file, folder, '1.0.0');
    assert.equal(start(file, folder, '1.0.1').cache, 'absent');
  });

  it('does not give V8 a damaged cache: it compiles, and writes a whole one', () => {
    start(file, folder);
    const cache = path.join(folder, cacheFiles(folder)[0]);
    const bytes = fs.readFileSync(cache);
    bytes[bytes.length - 10] ^= 0xff;
    fs.writeFileSync(cache, bytes);
    assert.deepEqual(start(file, folder), { cache: 'damaged', value: 1, written: 'written' });
    assert.equal(start(file, folder).cache, 'used');
    fs.writeFileSync(cache, bytes.subarray(0, 6));
    assert.equal(start(file, folder).cache, 'damaged', 'a cut cache');
  });

  it('compiles when V8 refuses a cache that is whole but not its own', () => {
    start(file, folder);
    const cache = path.join(folder, cacheFiles(folder)[0]);
    const header = fs.readFileSync(cache).subarray(0, 5);
    const payload = Buffer.alloc(4096, 7);
    const crc = Buffer.alloc(4);
    crc.writeUInt32LE(zlib.crc32(payload) >>> 0);
    fs.writeFileSync(cache, Buffer.concat([header, crc, payload]));
    assert.deepEqual(start(file, folder), { cache: 'rejected', value: 1, written: 'written' });
    assert.equal(start(file, folder).cache, 'used');
  });

  it('loads the module when the cache folder cannot be read or written, and says so', () => {
    fs.mkdirSync(path.dirname(folder), { recursive: true });
    fs.writeFileSync(folder, 'not a folder');
    assert.deepEqual(start(file, folder), { cache: 'absent', value: 1, written: 'error' });
    assert.equal(fs.readFileSync(folder, 'utf8'), 'not a folder', 'nothing is written over it');
    // A cache that is there but cannot be read (here a folder where its file goes).
    fs.rmSync(folder);
    start(file, folder);
    const cache = path.join(folder, cacheFiles(folder)[0]);
    fs.rmSync(cache);
    fs.mkdirSync(cache);
    assert.deepEqual(start(file, folder), { cache: 'unreadable', value: 1, written: 'error' });
  });

  it('gives the module require would give: registered before it runs, so a module it requires gets it back', () => {
    fs.writeFileSync(path.join(dir, 'part.js'), "exports.fromPart = require('./bundle.js');\n");
    fs.writeFileSync(file, "exports.value = 3;\nexports.part = require('./part.js');\nexports.paths = [__filename, __dirname, module.id === __filename];\n");
    const loaded = requireWithCodeCache<{ value: number; part: { fromPart: unknown }; paths: unknown[] }>(file, folder, '1.0.0');
    const real = fs.realpathSync(file);
    assert.equal(loaded.exports.value, 3);
    assert.equal(loaded.exports.part.fromPart, loaded.exports, 'the part required the module while it ran and got this instance');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- what require gives is the point
    assert.equal(require(real), loaded.exports, 'a later require gives the same exports');
    assert.deepEqual(loaded.exports.paths, [real, path.dirname(real), true]);
    assert.equal(require.cache[real]?.loaded, true);
    delete require.cache[real];
    delete require.cache[path.join(path.dirname(real), 'part.js')];
  });

  it('throws what the module throws, and leaves nothing in require.cache', () => {
    fs.writeFileSync(file, "throw new Error('the bundle is broken');\n");
    assert.throws(() => requireWithCodeCache(file, folder, '1.0.0'), /the bundle is broken/);
    assert.equal(require.cache[fs.realpathSync(file)], undefined);
    assert.throws(() => requireWithCodeCache(path.join(dir, 'missing.js'), folder, '1.0.0'), /ENOENT/);
    assert.deepEqual(cacheFiles(folder), []);
  });
});
