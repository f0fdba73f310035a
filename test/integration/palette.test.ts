import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, runFromPalette, waitFor } from './support';
import { ui } from './ui';

describe('Command Palette for a new user', function () {
  this.timeout(120_000);
  let t: ArborTesting;
  before(async () => {
    t = await arborTesting();
  });
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    for (const agent of t.runtime.agents.all()) if (agent.kind === 'root') await t.runtime.end(agent);
  });

  /** Where agent definitions exist, a run first offers them, "No definition" first: Enter takes that. */
  async function passDefinitionPick(): Promise<void> {
    if (t.runtime.definitions.list().length === 0) return;
    assert.ok(await ui.pageHasText('No definition'), 'the run offers the agent definitions, "No definition" first');
    await ui.pressKeys('Enter');
  }

  it('"Arbor: Run Agent" then Enter starts an interactive run that may ask you questions', async function () {
    ui.requireBrowser(this);
    await runFromPalette('Arbor: Run Agent');
    await passDefinitionPick();
    assert.ok(await ui.pageHasText('What should the agent do?'), 'the task box of Run Agent opened');
    assert.strictEqual(await ui.pageHasText('It will not ask you anything', { timeoutMs: 500 }), false, 'not the unattended run');
    const before = new Set(t.runtime.agents.all().map((a) => a.id));
    await ui.typeText('Say hello');
    await ui.pressKeys('Enter');
    await waitFor(() => t.runtime.agents.all().some((a) => !before.has(a.id)), 'the agent to start');
    const started = t.runtime.agents.all().find((a) => !before.has(a.id))!;
    assert.strictEqual(started.log.header.interactionMode, 'interactive');
  });

  it('the unattended command has its own words and says before it starts that it will not ask anything', async function () {
    ui.requireBrowser(this);
    const commands = vscode.extensions.getExtension('arbor.arbor')!.packageJSON.contributes.commands as { command: string; title: string }[];
    // The palette matches typed words anywhere in a title and puts recently used commands first:
    // a title holding "Run" then "Agent" would take the Enter of a person who typed "Run Agent".
    for (const id of ['arbor.runAgentUnattended', 'arbor.runAgentInWorktree', 'arbor.runExternalAgent']) {
      const title = commands.find((c) => c.command === id)!.title;
      assert.ok(!/\bRun\b.*\bAgent\b/.test(title), `"${title}" must not hold the words of Run Agent`);
    }
    await runFromPalette('Arbor: Start Unattended Run');
    await passDefinitionPick();
    assert.ok(await ui.pageHasText('It will not ask you anything'), 'the task box says the run will not ask');
    await ui.pressKeys('Escape');
  });
});
