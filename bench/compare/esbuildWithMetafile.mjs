// Stands in for the 'esbuild' package inside a tree's esbuild.mjs (see metafileHooks.mjs): the
// same API, with every build asked for its metafile, which is written as JSON into
// ARBOR_METAFILE_DIR, so the tree's own production build says what each input costs in each
// bundle. The real package's URL is the `real` parameter of this module's URL.
import fs from 'node:fs';
import path from 'node:path';

const loaded = await import(new URL(import.meta.url).searchParams.get('real'));
const real = loaded.default ?? loaded;
const out = process.env.ARBOR_METAFILE_DIR;
let written = 0;

function keep(result) {
  if (out && result && result.metafile) fs.writeFileSync(path.join(out, `${process.pid}-${written++}.json`), JSON.stringify(result.metafile));
  return result;
}

export async function context(options) {
  const ctx = await real.context({ ...options, metafile: true });
  return {
    rebuild: async () => keep(await ctx.rebuild()),
    watch: (...args) => ctx.watch(...args),
    serve: (...args) => ctx.serve(...args),
    cancel: () => ctx.cancel(),
    dispose: () => ctx.dispose(),
  };
}

export const build = async (options) => keep(await real.build({ ...options, metafile: true }));
export const buildSync = (options) => keep(real.buildSync({ ...options, metafile: true }));
export const { analyzeMetafile, analyzeMetafileSync, formatMessages, formatMessagesSync, initialize, stop, transform, transformSync, version } = real;
export default { ...real, context, build, buildSync };
