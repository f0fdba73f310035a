// Module resolution hooks (registered by metafileRegister.mjs): `import ... from 'esbuild'` in a
// tree's build script resolves to esbuildWithMetafile.mjs, which loads the package the script
// would have had and records each build's metafile. Everything else resolves as usual.
const WRAPPER = new URL('./esbuildWithMetafile.mjs', import.meta.url);

export async function resolve(specifier, context, next) {
  if (specifier !== 'esbuild' || (context.parentURL ?? '').startsWith(WRAPPER.href)) return next(specifier, context);
  const real = await next(specifier, context);
  const url = new URL(WRAPPER);
  url.searchParams.set('real', real.url);
  return { url: url.href, shortCircuit: true };
}
