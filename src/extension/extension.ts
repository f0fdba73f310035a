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

export type { AgentSummary, ArborAgentEvent, ArborApi } from './api/arborApi';
export type { ArborObservations, ArborTesting } from './testing';

/** The start to come, between activate() and the turn of the event loop that runs it. */
let pending: { start: NodeJS.Immediate; cancel: () => void } | undefined;

export function activate(context: vscode.ExtensionContext): Promise<ArborApi> {
  // Where the start's cost is counted from: Arbor logs the CPU and time from here to started.
  const activated = { cpu: process.cpuUsage(), at: performance.now() };
  return new Promise<ArborApi>((resolve, reject) => {
    const start = setImmediate(() => {
      pending = undefined;
      try {
        resolve(loadArbor().startArbor(context, activated));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    pending = { start, cancel: () => reject(new Error('Arbor was deactivated before it started.')) };
  });
}

export function deactivate(): void {
  // Everything Arbor creates is owned by context.subscriptions, which VS Code disposes; a start
  // still to come would register into a context already disposed.
  if (!pending) return;
  clearImmediate(pending.start);
  pending.cancel();
  pending = undefined;
}

function loadArbor(): typeof Arbor {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading it after activation is the point
  return require('./arbor') as typeof Arbor;
}
