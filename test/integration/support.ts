// Shared helpers for the integration suites: reach Arbor's test handles and wait for the
// runtime to reach a state, with a message that says what never happened.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import type { ArborApi, ArborTesting } from '../../src/extension/extension';
import { ui } from './ui';

export const EXTENSION_ID = 'arbor.arbor';

export async function arborTesting(): Promise<ArborTesting> {
  const extension = vscode.extensions.getExtension<ArborApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not loaded`);
  const api = await extension.activate();
  assert.ok(api.testing, 'Arbor was not started with ARBOR_TESTING=1, so its test handles are missing');
  return api.testing;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function waitFor(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!predicate()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

export { reasons as turnEnds, toolResults, userMessages } from '../support/sessionQueries';

export function childNamed(t: ArborTesting, parent: Agent, label: string): Agent | undefined {
  return t.runtime.agents.childrenOf(parent).find((a) => a.label === label);
}

/**
 * Ends every live agent (one-shots end with their parents), closes an open quick pick and the
 * notifications an earlier suite left (they cover the views a suite clicks in) and waits until
 * the runtime holds no agent: what a suite does before and after its tests. With `keepChanges`,
 * each agent's changed files are kept first, so no change record outlives the suite.
 */
export async function endEverything(t: ArborTesting | undefined, options: { keepChanges?: boolean } = {}): Promise<void> {
  if (!t) return;
  for (const agent of t.runtime.agents.all()) {
    if (options.keepChanges) await t.runtime.changes.keepAll(agent.id);
    if (agent.kind !== 'one-shot') await t.runtime.end(agent);
  }
  await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  await vscode.commands.executeCommand('notifications.clearAll');
  await waitFor(() => t.runtime.agents.size === 0, 'every agent to end');
}

/** Closes the editor tabs `mine` picks, and only those: another suite's (a conversation view) must survive a later window reload. */
export async function closeTabs(mine: (tab: vscode.Tab) => boolean): Promise<void> {
  await vscode.window.tabGroups.close(vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter(mine));
}

/** What a person does: open the Command Palette, type the words, press Enter. */
export async function runFromPalette(words: string): Promise<void> {
  // Awaited: typing before the palette is on screen would go to whatever has focus.
  await vscode.commands.executeCommand('workbench.action.showCommands');
  await ui.typeText(words);
  assert.ok(await ui.pageHasText(words), `the palette shows "${words}"`);
  await ui.pressKeys('Enter');
}
