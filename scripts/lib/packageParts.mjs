// Modules of a package that the start bundle refers to but only runs later, each group built into
// a part of its own (dist/<name>.js) that loads the first time one of its functions is called
// (used by scripts/lib/bundleParts.mjs).
//
// zod's classic API holds its JSON Schema converter whether it is used or not: every schema type
// refers to its processor, and the converter is 21 KiB of the start bundle. Arbor converts a
// tool's schema only when a model first needs the tool list, so in dist/arbor.js each of those
// modules is a stand-in whose functions load the part and call the real one. Validation (parse,
// safeParse, the schemas themselves) stays in the start bundle, unchanged.
//
// A stand-in can only stand for functions (and plain objects of them, through a proxy): a module
// whose export is anything else is refused at build time. What the part's modules import from
// the package is bundled into the part (pure helpers and constants); zod's global registry,
// which the converter reads for descriptions, lives on globalThis, so both copies see one.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** Part name -> the package's module files it holds (relative to node_modules). */
export const PACKAGE_PARTS = {
  zodJsonSchema: ['zod/v4/core/json-schema-processors.js', 'zod/v4/core/to-json-schema.js'],
};

// Real paths: esbuild resolves symbolic links (a tree whose node_modules links to another's).
const real = (file) => (fs.existsSync(file) ? fs.realpathSync(file) : file);
const absolute = (file) => real(path.join(ROOT, 'node_modules', file));
const partOfFile = new Map(Object.entries(PACKAGE_PARTS).flatMap(([name, files]) => files.map((file) => [absolute(file), name])));

/** A module's stand-in: each export forwards to the part's, which loads on the first call. */
async function standIn(file, name) {
  const real = await import(pathToFileURL(file).href);
  const lines = [
    `let part; const load = () => (part ??= require(${JSON.stringify(`./${name}.js`)}));`,
    'const call = (name) => function (...args) { return load()[name].apply(this, args); };',
    'const object = (name) => /* @__PURE__ */ new Proxy({}, { get: (_, key) => load()[name][key], has: (_, key) => key in load()[name], ownKeys: () => Reflect.ownKeys(load()[name]), getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(load()[name], key) });',
  ];
  Object.entries(real).forEach(([exported, value], i) => {
    const functions = value !== null && typeof value === 'object' && Object.values(value).every((v) => typeof v === 'function');
    if (typeof value !== 'function' && !functions) throw new Error(`${path.relative(ROOT, file)} exports ${exported}, which is neither a function nor an object of functions: it cannot wait in dist/${name}.js`);
    lines.push(`const f${i} = /* @__PURE__ */ ${typeof value === 'function' ? 'call' : 'object'}(${JSON.stringify(exported)});`, `export { f${i} as ${exported} };`);
  });
  return lines.join('\n');
}

/** For the start bundle: the package parts' modules become stand-ins. */
export const packagePartsStartPlugin = {
  name: 'arbor-package-parts-start',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      // The stand-in's require() of its part, next to dist/arbor.js at run time.
      if (args.namespace === 'arbor-package-part') return { path: args.path, external: true };
      const file = real(path.resolve(args.resolveDir, args.path));
      const name = partOfFile.get(file);
      return name === undefined ? undefined : { path: file, namespace: 'arbor-package-part', pluginData: { name }, sideEffects: false };
    });
    build.onLoad({ filter: /.*/, namespace: 'arbor-package-part' }, async (args) => ({ contents: await standIn(args.path, args.pluginData.name), loader: 'js', resolveDir: path.dirname(args.path) }));
  },
};

/** The esbuild options of each package part (entry and output), for `common` options shared with the start bundle. */
export function packagePartBuilds(common) {
  return Object.entries(PACKAGE_PARTS).map(([name, files]) => {
    for (const file of files) if (!fs.existsSync(absolute(file))) throw new Error(`the part dist/${name}.js holds node_modules/${file}, which is not there`);
    return {
      ...common,
      stdin: { contents: files.map((file) => `export * from ${JSON.stringify(absolute(file))};`).join('\n'), resolveDir: ROOT, sourcefile: `${name}.js`, loader: 'js' },
      outfile: `dist/${name}.js`,
      metafile: true,
      write: false,
    };
  });
}
