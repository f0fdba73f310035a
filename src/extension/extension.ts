// Arbor's activation, kept small: the editor counts loading this module and the activate() call
// as the extension's activation time, and nothing else of the extension host runs meanwhile.
// The rest of Arbor (arbor.ts: runtime, views, commands, API) is a module of its own, built
// into a bundle of its own (see esbuild.mjs), loaded and started right after activate()
// returns. The editor waits for the promise activate() returns before it runs the command,
// opens the view or follows the link that activated Arbor, and other extensions get the API
// from it, so all of them find Arbor started.
import type * as vscode from 'vscode';
import type * as Arbor from './arbor';
import type { ArborApi } from './api/arborApi';
import type * as CodeCache from './codeCache';

export type { AgentSummary, ArborAgentEvent, ArborApi } from './api/arborApi';
export type { ArborObservations, ArborTesting } from './testing';

/** The start to come, between activate() and the turn of the event loop that runs it. */
let pending: { start: NodeJS.Immediate; cancel: () => void } | undefined;
/** The write of the code cache, a moment after a start that compiled dist/arbor.js (codeCache.ts). */
let caching: NodeJS.Timeout | undefined;
/** How long after the start the code cache is written: off the start, with what the start compiled. */
const CODE_CACHE_DELAY_MS = 3_000;

export function activate(context: vscode.ExtensionContext): Promise<ArborApi> {
  // Where the start's cost is counted from: Arbor logs the CPU and time from here to started.
  const activated: Arbor.StartedFrom = { cpu: process.cpuUsage(), at: performance.now() };
  return new Promise<ArborApi>((resolve, reject) => {
    const start = setImmediate(() => {
      pending = undefined;
      try {
        const { arbor, cached } = loadArbor(context);
        activated.codeCache = cached?.cache;
        resolve(arbor.startArbor(context, activated));
        if (cached && cached.cache !== 'used') {
          caching = setTimeout(() => {
            caching = undefined;
            void cached.persist();
          }, CODE_CACHE_DELAY_MS);
          caching.unref();
        }
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    pending = { start, cancel: () => reject(new Error('Arbor was deactivated before it started.')) };
  });
}

export function deactivate(): void {
  if (caching) clearTimeout(caching);
  caching = undefined;
  // Everything Arbor creates is owned by context.subscriptions, which VS Code disposes; a start
  // still to come would register into a context already disposed.
  if (!pending) return;
  clearImmediate(pending.start);
  pending.cancel();
  pending = undefined;
}

/**
 * The rest of Arbor: the production bundle beside this file through V8's code cache, kept in
 * the extension's global storage (codeCache.ts); the sources (tests run them) as they are.
 */
function loadArbor(context: vscode.ExtensionContext): { arbor: typeof Arbor; cached?: CodeCache.CachedModule<typeof Arbor> } {
  /* eslint-disable @typescript-eslint/no-require-imports -- loading them after activation is the point */
  const fs = require('node:fs') as typeof import('node:fs');
  const path = require('node:path') as typeof import('node:path');
  const bundle = path.join(__dirname, 'arbor.js');
  if (!fs.existsSync(bundle)) return { arbor: require('./arbor') as typeof Arbor };
  const { requireWithCodeCache } = require('./codeCache') as typeof CodeCache;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const version = String((context.extension.packageJSON as { version?: unknown }).version);
  const cached = requireWithCodeCache<typeof Arbor>(bundle, path.join(context.globalStorageUri.fsPath, 'code-cache'), version);
  return { arbor: cached.exports, cached };
}
