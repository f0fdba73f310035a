import { ArborError, messageOf } from './errors';

/**
 * A part of Arbor that only some users need, loaded the first time it is asked for and then
 * kept: `const fooPart = partOnFirstUse('the foo support (dist/foo.js)', () => require('./foo'))`.
 * In the production build each part is a bundle of its own (scripts/lib/bundleParts.mjs), so a
 * load reads a file of the installed extension and can fail, for example when the installation
 * is damaged. Such a failure is PART_LOAD_FAILED, naming the part and what to do, rather than a
 * bare "Cannot find module"; nothing is kept, so the next use tries again.
 */
export function partOnFirstUse<T>(what: string, load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => {
    if (loaded) return loaded.value;
    try {
      loaded = { value: load() };
    } catch (err) {
      throw new ArborError('PART_LOAD_FAILED', `Arbor could not load ${what}: ${messageOf(err)}. Reload the window; if it happens again, reinstall the Arbor extension.`, { part: what });
    }
    return loaded.value;
  };
}
