// Loads a CommonJS bundle with V8's code cache. Compiling dist/arbor.js is the largest single
// part of Arbor's start (about a third of its CPU on the benchmark machine); with the code V8
// compiled last time, the start skips that work. The first start after an install or an update compiles
// as before and writes the cache a moment later, off the start; every later start uses it.
//
// Invariants:
// - The module is the same one `require` would give: registered in require.cache under its
//   real path before it runs (a part that requires it back gets this instance, even while it is
//   still running), `module.loaded` once it ran, and dropped from the cache if it threw.
// - A cache is used only for the very bytes it was made from: its name holds a checksum and the
//   length of the source, the caller's key (Arbor's version) and the V8 version and
//   architecture, and its own bytes carry a checksum that is checked before V8 sees them.
//   V8 itself refuses a cache made by another build or with other flags (`rejected`).
// - A missing, unreadable, damaged or refused cache never stops the module from loading: it is
//   compiled from source, and `persist()` writes a fresh cache. Writing goes to a temporary
//   file renamed into place, so a reader never sees half a cache; nothing it does throws.
// Built into dist/codeCache.js, which the entry (dist/extension.js) requires when the start runs.
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import * as zlib from 'node:zlib';

/** How the module's code was had: from the cache, or compiled (and why there was no cache to use). */
export type CodeCacheUse = 'used' | 'absent' | 'unreadable' | 'damaged' | 'rejected' | 'unsupported';

export interface CachedModule<T> {
  exports: T;
  cache: CodeCacheUse;
  /** Writes the code V8 has compiled for the module so far, unless it came from the cache. */
  persist(): Promise<'written' | 'unchanged' | Error>;
}

const MAGIC = Buffer.from('ARBC1');
const HEADER_BYTES = MAGIC.length + 4;
const SUFFIX = '.codecache';

const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array | string, value?: number) => number }).crc32;

/**
 * `require(file)`, with the compiled code from `folder` when a cache for these bytes is there.
 * `key` names what else the code depends on (the extension's version). Throws what loading the
 * module throws (a missing file, an error of its own), never because of the cache.
 */
export function requireWithCodeCache<T>(file: string, folder: string, key: string): CachedModule<T> {
  const real = fs.realpathSync(file);
  const source = fs.readFileSync(real);
  // Without a native checksum (an older Node), the cache cannot be checked: no cache at all.
  if (!nativeCrc32) return { exports: run<T>(real, source, undefined).exports, cache: 'unsupported', persist: () => Promise.resolve('unchanged') };
  const base = path.basename(real);
  const name = `${base}-${hex(nativeCrc32(`${key}|${process.versions.v8}|${process.arch}|${source.length}|${nativeCrc32(source)}`))}${SUFFIX}`;
  const target = path.join(folder, name);
  const { data, use } = readCache(target);
  const loaded = run<T>(real, source, data);
  const cache: CodeCacheUse = data === undefined ? use : loaded.script.cachedDataRejected ? 'rejected' : 'used';
  return {
    exports: loaded.exports,
    cache,
    persist: () => (cache === 'used' ? Promise.resolve('unchanged') : write(folder, target, base, loaded.script)),
  };
}

function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

/** The cache's payload when it is there and whole. */
function readCache(file: string): { data?: Buffer; use: CodeCacheUse } {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    // No cache is no failure: the module is compiled; whether the file is there says which it was.
    return { use: fs.existsSync(file) ? 'unreadable' : 'absent' };
  }
  if (bytes.length <= HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return { use: 'damaged' };
  const data = bytes.subarray(HEADER_BYTES);
  if (bytes.readUInt32LE(MAGIC.length) !== nativeCrc32!(data) >>> 0) return { use: 'damaged' };
  return { data, use: 'used' };
}

/** Compiles (with `cachedData` when given) and runs the module as Node's loader would. */
function run<T>(file: string, source: Buffer, cachedData: Buffer | undefined): { exports: T; script: vm.Script } {
  const script = new vm.Script(Module.wrap(source.toString('utf8')), { filename: file, cachedData });
  const loaded = new Module(file, module);
  loaded.filename = file;
  const cache = Module.createRequire(file).cache;
  cache[file] = loaded;
  try {
    const wrapper = script.runInThisContext({ displayErrors: true }) as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
    wrapper.call(loaded.exports, loaded.exports, Module.createRequire(file), loaded, file, path.dirname(file));
  } catch (e) {
    delete cache[file];
    throw e;
  }
  loaded.loaded = true;
  return { exports: loaded.exports as T, script };
}

/** Writes the script's code to `target` through a temporary file, and deletes the caches of other versions of the same file. */
async function write(folder: string, target: string, base: string, script: vm.Script): Promise<'written' | Error> {
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    const header = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(header);
    header.writeUInt32LE(nativeCrc32!(data) >>> 0, MAGIC.length);
    await fs.promises.mkdir(folder, { recursive: true });
    await fs.promises.writeFile(temporary, Buffer.concat([header, data]));
    await fs.promises.rename(temporary, target);
    const stale = (await fs.promises.readdir(folder)).filter((f) => f.startsWith(`${base}-`) && f.endsWith(SUFFIX) && path.join(folder, f) !== target);
    await Promise.all(stale.map((f) => fs.promises.rm(path.join(folder, f), { force: true })));
    return 'written';
  } catch (e) {
    // The failure to report is the write's; a temporary file that cannot be removed adds nothing to it.
    await fs.promises.rm(temporary, { force: true }).catch(() => undefined);
    return e instanceof Error ? e : new Error(String(e));
  }
}
