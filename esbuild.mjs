// Builds Arbor's bundles, each in its own esbuild context:
//   extension    src/extension/extension.ts -> dist/extension.js     (Node, cjs: activation only)
//   arbor        src/extension/arbor.ts     -> dist/arbor.js         (Node, cjs, 'vscode' external)
//   parts        what src/extension/parts.ts loads on first use -> dist/<part>.js, built with
//                dist/arbor.js (scripts/lib/bundleParts.mjs)
//   acp-sdk      the Agent Client Protocol SDK -> dist/acp-sdk.js    (Node, cjs, loaded on first use)
//   acp-net      its network transports and ws -> dist/acp-net.js    (Node, cjs, loaded when a served agent connects)
//   webview      media/src/webview.ts       -> media/dist/webview.js (browser, iife)
//   integration  test/integration/**/*.ts   -> out/test/integration/ (Node, cjs, run inside the editor)
// Flags: --production (minified, no source maps, no test bundle), --watch (rebuild on change).
// Type checking is separate: `npm run typecheck`.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { buildStartAndParts } from './scripts/lib/bundleParts.mjs';

const root = path.dirname(new URL(import.meta.url).pathname);
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** Prints each build's errors once per rebuild, so --watch output stays readable. */
const reportPlugin = (name) => ({
  name: 'report',
  setup(build) {
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        const where = location ? `${location.file}:${location.line}:${location.column}: ` : '';
        console.error(`[${name}] error: ${where}${text}`);
      }
      if (watch) {
        console.log(`[${name}] ${result.errors.length ? 'build failed' : 'built'} ${new Date().toLocaleTimeString()}`);
      }
    });
  },
});

/**
 * Writes suites.json next to the bundles: the suites of this build, which the mocha entry runs.
 * A bundle left behind by a deleted or renamed suite is then never run, and the folder is
 * never emptied under a run that is reading it.
 */
const suiteListPlugin = (outdir) => ({
  name: 'suite-list',
  setup(build) {
    build.onEnd((result) => {
      if (!result.metafile) return;
      const suites = Object.keys(result.metafile.outputs)
        .filter((file) => file.endsWith('.test.js'))
        .map((file) => path.relative(outdir, file))
        .sort();
      const list = path.join(root, outdir, 'suites.json');
      fs.writeFileSync(`${list}.${process.pid}`, JSON.stringify(suites, null, 2) + '\n');
      fs.renameSync(`${list}.${process.pid}`, list);
    });
  },
});

/**
 * Lets every module of the extension bundle share one namespace object for the 'vscode' API.
 * Left alone, esbuild wraps `require('vscode')` in each module that imports it and copies the
 * API's several hundred members onto a fresh object every time, which costs the bulk of
 * Arbor's load time. Here one virtual module re-exports the API once and the others import it.
 */
const sharedVscodePlugin = {
  name: 'shared-vscode',
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, (args) =>
      args.namespace === 'shared-vscode' ? { path: 'vscode', external: true } : { path: 'vscode', namespace: 'shared-vscode' },
    );
    build.onLoad({ filter: /.*/, namespace: 'shared-vscode' }, () => ({ contents: "export * from 'vscode';", loader: 'js' }));
  },
};

/**
 * Keeps the Agent Client Protocol SDK (and the schemas it carries) out of the extension bundle:
 * it is built into dist/acp-sdk.js and required on first use of an external agent, so it costs
 * nothing at activation.
 */
const ACP_SDK_BUNDLE = './acp-sdk.js';
/**
 * Likewise the SDK's network transports and the `ws` WebSocket (src/core/external/acpNetLib.ts):
 * dist/acp-net.js, required the first time an agent served at a url connects.
 */
const ACP_NET_BUNDLE = './acp-net.js';
const lazyAcpSdkPlugin = {
  name: 'lazy-acp-sdk',
  setup(build) {
    build.onResolve({ filter: /^@agentclientprotocol\/sdk$/ }, () => ({ path: ACP_SDK_BUNDLE, external: true }));
    build.onResolve({ filter: /^\.\/acpNetLib$/ }, () => ({ path: ACP_NET_BUNDLE, external: true }));
  },
};

/**
 * Keeps the extension's entry (dist/extension.js, what the editor loads and times as Arbor's
 * activation) down to activate() itself: the rest of Arbor is dist/arbor.js, which activate()
 * requires once it has returned, through V8's code cache (dist/codeCache.js, from
 * src/extension/codeCache.ts). Any other import of Arbor's code into the entry is an error, so
 * that the entry cannot grow back by accident.
 */
const ARBOR_BUNDLE = './arbor.js';
const CODE_CACHE_BUNDLE = './codeCache.js';
const entryOnlyPlugin = {
  name: 'entry-only',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const fromEntry = args.importer.endsWith(path.join('src', 'extension', 'extension.ts'));
      if (args.path === './arbor' && fromEntry) return { path: ARBOR_BUNDLE, external: true };
      // The loader of dist/arbor.js through V8's code cache, a bundle of its own the start requires.
      if (args.path === './codeCache' && fromEntry) return { path: CODE_CACHE_BUNDLE, external: true };
      if (args.path.startsWith('node:') && fromEntry) return { path: args.path, external: true };
      return { errors: [{ text: `the entry must not import "${args.path}": load it from dist/arbor.js (src/extension/arbor.ts) instead` }] };
    });
  },
};

const common = {
  absWorkingDir: root,
  bundle: true,
  logLevel: 'silent',
  sourcemap: !production,
  sourcesContent: false,
  minify: production,
};

/** The integration suites: the mocha entry (index.ts) and every *.test.ts, one bundle each. */
function integrationEntries() {
  const dir = path.join(root, 'test/integration');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true })
    .map((file) => path.join('test/integration', String(file)))
    .filter((file) => file.endsWith('index.ts') || file.endsWith('.test.ts'))
    .sort();
}

const builds = [
  {
    ...common,
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    plugins: [entryOnlyPlugin, reportPlugin('extension')],
  },
  {
    ...common,
    entryPoints: { codeCache: 'src/extension/codeCache.ts' },
    outdir: 'dist',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    plugins: [reportPlugin('codeCache')],
  },
  {
    ...common,
    entryPoints: { 'acp-sdk': 'node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js' },
    outdir: 'dist',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    plugins: [reportPlugin('acp-sdk')],
  },
  {
    ...common,
    entryPoints: { 'acp-net': 'src/core/external/acpNetLib.ts' },
    outdir: 'dist',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // ws's optional native speed-ups: it works without them, and they are not installed.
    external: ['bufferutil', 'utf-8-validate'],
    plugins: [reportPlugin('acp-net')],
  },
  {
    ...common,
    entryPoints: ['media/src/webview.ts'],
    outfile: 'media/dist/webview.js',
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    plugins: [reportPlugin('webview')],
  },
];

if (!production) {
  builds.push({
    ...common,
    minify: false,
    entryPoints: integrationEntries(),
    outbase: 'test/integration',
    outdir: 'out/test/integration',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // Both come from the editor at run time: 'vscode' from the extension host, mocha from
    // node_modules, so every suite registers its tests with the same mocha instance.
    external: ['vscode', 'mocha'],
    metafile: true,
    plugins: [reportPlugin('integration'), suiteListPlugin('out/test/integration')],
  });
}

/** dist/arbor.js and the parts, built together (each round is a whole build, so no esbuild context). */
const startAndParts = {
  ...common,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['vscode'],
  plugins: [sharedVscodePlugin, lazyAcpSdkPlugin],
};
async function buildArbor() {
  try {
    await buildStartAndParts(startAndParts);
    if (watch) console.log(`[arbor] built ${new Date().toLocaleTimeString()}`);
    return true;
  } catch (error) {
    console.error(`[arbor] error: ${error.message}`);
    return false;
  }
}

const contexts = await Promise.all(builds.map((options) => esbuild.context(options)));
if (watch) {
  await Promise.all(contexts.map((context) => context.watch()));
  await buildArbor();
  // Rebuilds dist/arbor.js and the parts when a source of the extension changes (a burst once).
  let timer;
  fs.watch(path.join(root, 'src'), { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(() => void buildArbor(), 100);
  });
  console.log('Watching for changes (Ctrl+C to stop)...');
} else {
  const [results, arborBuilt] = await Promise.all([Promise.allSettled(contexts.map((context) => context.rebuild())), buildArbor()]);
  await Promise.all(contexts.map((context) => context.dispose()));
  if (!arborBuilt || results.some((result) => result.status === 'rejected')) process.exit(1);
}
