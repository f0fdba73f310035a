// Builds dist/arbor.js (the rest of Arbor, which activation loads) together with the parts of
// Arbor that only some users need, each a bundle of its own that loads the first time it is
// used (used by esbuild.mjs).
//
// The parts are the modules src/extension/parts.ts and src/core/parts.ts require(): dist/<name>.js
// each, named after the module (its folder for an index.ts). In dist/arbor.js that require()
// becomes require('./<name>.js'); any other import of a part's module is an error, so a part
// cannot creep back into what loads at start.
//
// A part takes every module dist/arbor.js holds from dist/arbor.js, which exports them for the
// parts (`__shared`), so that each class, registry and schema exists once: Arbor's modules
// whole, and of a package only the names the part's own files import (for zod, whose whole
// namespace would bring hundreds of KiB into the start bundle). A door (an index.ts that only
// re-exports) holds no code, so it is not shared: a part follows it to the modules behind it,
// and a door the start bundle uses for one small thing does not bring a part's modules into it.
// What dist/arbor.js does not hold is the part's own; an Arbor module two parts would both hold
// is an error (it would exist twice). dist/arbor.js then exports what the parts take from it,
// which may bring more into it; the parts are built again until neither changes.
//
// That a door's other modules stay out of dist/arbor.js rests on package.json's
// "sideEffects": false (importing a module of Arbor runs nothing that matters by itself; lint
// refuses an import for side effects): esbuild leaves out a module none of whose exports is used.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { packagePartBuilds, packagePartsStartPlugin } from './packageParts.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const requireFromRoot = createRequire(path.join(ROOT, 'package.json'));
/** The files that load parts: the editor's and the core's (which never imports the editor's). */
export const PARTS_FILES = ['src/extension/parts.ts', 'src/core/parts.ts'];
const START = 'dist/arbor.js';
const rel = (file) => path.relative(ROOT, file).split(path.sep).join('/');

/** The parts the parts files load: bundle name -> module path (relative, without extension). */
export function partsOf(sources = Object.fromEntries(PARTS_FILES.map((file) => [file, fs.readFileSync(path.join(ROOT, file), 'utf8')]))) {
  const parts = new Map();
  for (const [file, source] of Object.entries(sources)) {
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const [, request] of code.matchAll(/require\((?:'|")(\.[^'"]+)(?:'|")\)/g)) {
      const named = rel(path.resolve(ROOT, path.dirname(file), request));
      const module = fs.existsSync(path.join(ROOT, `${named}.ts`)) ? named : `${named}/index`;
      const base = path.posix.basename(module);
      const name = base === 'index' ? path.posix.basename(path.posix.dirname(module)) : base;
      if (parts.has(name)) throw new Error(`${file}: two parts would both be dist/${name}.js`);
      parts.set(name, module);
    }
  }
  return parts;
}

/** The module a relative import names, as a path relative to the repository without extension. */
function moduleOf(resolveDir, request) {
  const file = rel(path.resolve(resolveDir, request)).replace(/\.(ts|js|mjs|cjs)$/, '');
  return file.endsWith('/index') ? file.slice(0, -'/index'.length) : file;
}

/** The start bundle: parts' modules cut off; what the parts take from it exported as `__shared`. */
function startPlugin(parts) {
  const byModule = new Map([...parts].map(([name, module]) => [module.replace(/\/index$/, ''), name]));
  return {
    name: 'arbor-parts-start',
    setup(build) {
      build.onResolve({ filter: /^\./ }, (args) => {
        const name = byModule.get(moduleOf(args.resolveDir, args.path));
        if (name === undefined) return undefined;
        if (args.kind === 'require-call' && PARTS_FILES.includes(rel(args.importer))) return { path: `./${name}.js`, external: true };
        // A door keeps a part's classes in the core's public API (tests and other hosts import
        // them from there); in the start bundle the door's re-export stands for a module that
        // refuses to be used, and nothing in dist/arbor.js uses it (esbuild leaves it out).
        if (args.kind === 'import-statement' && path.basename(args.importer) === 'index.ts') return { path: name, namespace: 'arbor-part-in-door', sideEffects: false };
        return { errors: [{ text: `"${args.path}" is the part dist/${name}.js, loaded on first use: reach it through ${PARTS_FILES.join(' or ')}, never import it` }] };
      });
      build.onLoad({ filter: /.*/, namespace: 'arbor-part-in-door' }, (args) => ({
        loader: 'js',
        contents: `module.exports = new Proxy({}, { get(_, name) { if (name === '__esModule') return false; throw new Error('dist/${args.path}.js is a part loaded on first use: reach it through its loader, not through the door'); } });`,
      }));
    },
  };
}

function startEntry(taken) {
  const lines = ["export * from './src/extension/arbor.ts';"];
  const modules = [];
  const packages = [];
  [...taken.modules].sort().forEach((file, i) => {
    lines.push(`import * as m${i} from ${JSON.stringify(`./${file}`)};`);
    modules.push(`${JSON.stringify(file)}: m${i}`);
  });
  [...taken.packages].sort(([a], [b]) => a.localeCompare(b)).forEach(([pkg, names], i) => {
    const sorted = [...names].sort();
    lines.push(`import { ${sorted.map((n, j) => `${n} as p${i}_${j}`).join(', ')} } from ${JSON.stringify(pkg)};`);
    packages.push(`${JSON.stringify(pkg)}: { ${sorted.map((n, j) => `${JSON.stringify(n)}: p${i}_${j}`).join(', ')} }`);
  });
  lines.push(`export const __shared = { modules: { ${modules.join(', ')} }, packages: { ${packages.join(', ')} } };`);
  return lines.join('\n');
}

/** The package a bare import names ('zod', '@scope/name', 'zod/v4' keeps its subpath). */
const isBare = (request) => !request.startsWith('.') && !path.isAbsolute(request);
const packageName = (request) => (request.startsWith('@') ? request.split('/').slice(0, 2).join('/') : request.split('/')[0]);

/**
 * The names a part's own file imports from `request` that the package has at run time (its
 * types are not values): named imports, `default`, and for `import * as ns` each `ns.<name>` the
 * file mentions. Re-exports of a shared package are refused.
 */
function namesImported(file, request) {
  const exported = new Set(Object.keys(requireFromRoot(request)));
  return new Set([...namesIn(file, request)].filter((name) => exported.has(name)));
}

function namesIn(file, request) {
  const source = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const quoted = `['"]${request.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}['"]`;
  const names = new Set();
  if (new RegExp(`export\\s[^;]*?from\\s*${quoted}`).test(source)) throw new Error(`${file} re-exports "${request}", which the start bundle holds: import what it needs instead`);
  for (const [, clause] of source.matchAll(new RegExp(`import\\s+(?!type\\s)([^;]*?)\\s+from\\s*${quoted}`, 'g'))) {
    const namespace = /^\*\s+as\s+(\w+)$/.exec(clause.trim());
    if (namespace) {
      // `z.input<typeof s>` names a type, not zod's run-time `input` (which would bring its schema walker along).
      for (const [, name] of source.matchAll(new RegExp(`\\b${namespace[1]}\\s*\\.\\s*(\\w+)(?!\\s*<|\\w)`, 'g'))) names.add(name);
      continue;
    }
    const named = /\{([^}]*)\}/.exec(clause);
    const defaultName = clause.replace(/\{[^}]*\}/, '').replace(/,/g, '').trim();
    if (defaultName) names.add('default');
    for (const spec of named ? named[1].split(',') : []) {
      const name = spec.trim().split(/\s+as\s+/)[0].trim();
      if (name && !name.startsWith('type ')) names.add(name);
    }
  }
  return names;
}

/** A part: what the start bundle holds comes from it, the rest is bundled; what it takes is noted in `need`. */
function partPlugin(name, held, need) {
  return {
    name: 'arbor-parts-part',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.path === START.replace('dist/', './')) return { path: args.path, external: true };
        if (args.kind === 'entry-point' || args.namespace !== 'file' || args.path === 'vscode' || args.pluginData === 'resolving') return undefined;
        const fromOwnCode = !args.importer.includes(`${path.sep}node_modules${path.sep}`);
        if (isBare(args.path) && fromOwnCode) {
          const pkg = packageName(args.path);
          if (held.packages.has(pkg)) {
            const names = namesImported(rel(args.importer), args.path);
            need.packages.set(args.path, new Set([...(need.packages.get(args.path) ?? []), ...names]));
            // One module per importing file: each exports the names its file reads.
            return { path: `${args.path}?from=${rel(args.importer)}`, namespace: 'arbor-shared-package', pluginData: { request: args.path, names: [...names] }, sideEffects: false };
          }
          return undefined;
        }
        if (isBare(args.path)) return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'resolving' });
        if (resolved.errors.length || resolved.external) return resolved;
        const file = rel(resolved.path);
        if (!held.modules.has(file)) return resolved;
        need.modules.add(file);
        // Taking it from the start bundle does nothing by itself: a door's other modules drop out.
        return { path: file, namespace: 'arbor-shared-module', sideEffects: false };
      });
      const fromStart = `require(${JSON.stringify(START.replace('dist/', './'))}).__shared`;
      const lacks = (what) => JSON.stringify(`${START} lacks ${what}, which dist/${name}.js needs: build both again`);
      build.onLoad({ filter: /.*/, namespace: 'arbor-shared-module' }, (args) => ({
        contents: `const shared = ${fromStart}.modules[${JSON.stringify(args.path)}];\nif (!shared) throw new Error(${lacks(args.path)});\nmodule.exports = shared;`,
        loader: 'js',
      }));
      build.onLoad({ filter: /.*/, namespace: 'arbor-shared-package' }, (args) => {
        const { request, names } = args.pluginData;
        return {
          contents: [
            `const shared = ${fromStart}.packages[${JSON.stringify(request)}];`,
            `if (!shared) throw new Error(${lacks(request)});`,
            ...names.map((n, i) => `const v${i} = shared[${JSON.stringify(n)}]; export { v${i} as ${n} };`),
          ].join('\n'),
          loader: 'js',
        };
      });
    },
  };
}

/** Bytes > 0 in the start bundle: the Arbor modules and the packages it holds. */
function heldBy(metafile) {
  const held = { modules: new Set(), packages: new Set() };
  for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[START].inputs)) {
    if (bytesInOutput === 0) continue;
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (pkg) held.packages.add(pkg[1]);
    else if (!input.includes(':')) held.modules.add(input);
  }
  return held;
}

const covers = (a, b) => [...b.modules].every((m) => a.modules.has(m)) && [...b.packages].every(([pkg, names]) => [...names].every((n) => a.packages.get(pkg)?.has(n)));

/**
 * Builds dist/arbor.js and every part with `options` (esbuild options shared by both: format,
 * minify, plugins...) and writes them. Returns the metafiles of the last round.
 */
export async function buildStartAndParts(options) {
  const parts = partsOf();
  const { plugins = [], ...common } = options;
  // Parts made of a package's modules (scripts/lib/packageParts.mjs) hold none of Arbor's code: built once.
  const packageParts = await Promise.all(packagePartBuilds(common).map((build) => esbuild.build({ ...build, plugins })));
  let taken = { modules: new Set(), packages: new Map() };
  for (let round = 1; round <= 5; round++) {
    const start = await esbuild.build({
      ...common,
      stdin: { contents: startEntry(taken), resolveDir: ROOT, sourcefile: 'arbor-start.js', loader: 'js' },
      outfile: START,
      metafile: true,
      write: false,
      plugins: [startPlugin(parts), packagePartsStartPlugin, ...plugins],
    });
    const held = heldBy(start.metafile);
    const need = { modules: new Set(), packages: new Map() };
    const built = await Promise.all(
      [...parts].map(([name, module]) =>
        esbuild.build({
          ...common,
          entryPoints: { [name]: `${module}.ts` },
          outdir: 'dist',
          metafile: true,
          write: false,
          plugins: [partPlugin(name, held, need), ...plugins],
        }),
      ),
    );
    for (const result of built) {
      const undefinedImport = result.warnings.find((w) => w.id === 'import-is-undefined');
      if (undefinedImport) throw new Error(`${undefinedImport.location?.file}:${undefinedImport.location?.line}: ${undefinedImport.text}`);
    }
    const owners = new Map();
    built.forEach((result, i) => {
      const name = [...parts.keys()][i];
      for (const output of Object.values(result.metafile.outputs)) {
        for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
          // Doors only re-export: a copy in each part that passes through one holds no state.
          if (bytesInOutput === 0 || input.includes('node_modules/') || input.includes(':') || input.endsWith('/index.ts')) continue;
          if (owners.has(input) && owners.get(input) !== name) throw new Error(`${input} would be in both dist/${owners.get(input)}.js and dist/${name}.js: the start bundle must hold it, or one part only`);
          owners.set(input, name);
        }
      }
    });
    if (covers(taken, need)) {
      for (const result of [start, ...built, ...packageParts]) {
        for (const file of result.outputFiles) {
          fs.mkdirSync(path.dirname(file.path), { recursive: true });
          fs.writeFileSync(file.path, file.contents);
        }
      }
      return [start.metafile, ...[...built, ...packageParts].map((b) => b.metafile)];
    }
    taken = {
      modules: new Set([...taken.modules, ...need.modules]),
      packages: new Map([...new Set([...taken.packages.keys(), ...need.packages.keys()])].map((pkg) => [pkg, new Set([...(taken.packages.get(pkg) ?? []), ...(need.packages.get(pkg) ?? [])])])),
    };
  }
  throw new Error('the start bundle and the parts did not settle in 5 rounds');
}
