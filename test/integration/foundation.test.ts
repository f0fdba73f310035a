import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ArborApi } from '../../src/extension/extension';
import { ui } from './ui';

const EXTENSION_ID = 'arbor.arbor';

interface ContributedCommand {
  command: string;
  title: string;
  category?: string;
  icon?: string;
}

function arbor(): vscode.Extension<ArborApi> {
  const extension = vscode.extensions.getExtension<ArborApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not loaded in this extension host`);
  return extension;
}

function contributedCommands(): ContributedCommand[] {
  return arbor().packageJSON.contributes.commands as ContributedCommand[];
}

describe('Arbor foundation', () => {
  it('activates and returns its API with the manifest version', async () => {
    const extension = arbor();
    const api = await extension.activate();
    assert.strictEqual(extension.isActive, true);
    assert.strictEqual(api.version, extension.packageJSON.version);
  });

  it('registers every command it contributes, each in the Arbor category with an icon', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    const commands = contributedCommands();
    assert.ok(commands.length > 0, 'the manifest contributes no commands');
    for (const { command, category, icon } of commands) {
      assert.ok(registered.has(command), `${command} is contributed but not registered`);
      assert.strictEqual(category, 'Arbor', `${command} has no "Arbor" category`);
      assert.match(icon ?? '', /^\$\([a-z-]+\)$/, `${command} has no codicon`);
    }
  });

  it('links only registered commands from the Agents view welcome content', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    const welcome = arbor().packageJSON.contributes.viewsWelcome as { view: string; contents: string }[];
    const links = welcome
      .filter(({ view }) => view === 'arbor.agents')
      .flatMap(({ contents }) => [...contents.matchAll(/\(command:([\w.]+)\)/g)].map((match) => match[1]));
    assert.ok(links.length > 0, 'the Agents view welcome content offers no next step');
    for (const command of links) assert.ok(registered.has(command), `welcome content links ${command}, which is not registered`);
  });

  it('contributes the Agents view in the Arbor container', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    // VS Code generates these commands only for views and containers it has registered.
    assert.ok(registered.has('workbench.view.extension.arbor'), 'the Arbor view container is not registered');
    assert.ok(registered.has('arbor.agents.focus'), 'the Agents view is not registered');
    await vscode.commands.executeCommand('workbench.view.extension.arbor');
  });

  it('shows the Agents view with its welcome content when no agent runs', async function () {
    ui.requireBrowser(this);
    await vscode.commands.executeCommand('workbench.view.extension.arbor');
    assert.ok(await ui.pageHasText('Agents'), 'the Agents view title is not visible');
    assert.ok(await ui.pageHasText('No agents are running.'), 'the welcome content is not visible');
    await ui.screenshot('foundation-agents-view');
  });

  it('opens the Arbor log with the Show Log command', async function () {
    await vscode.commands.executeCommand('arbor.showLog');
    ui.requireBrowser(this);
    const api = await arbor().activate();
    // The newest line is the one in view, whatever earlier suites logged.
    const marker = `Show Log check ${Date.now()}`;
    api.testing?.log.info(marker);
    await vscode.commands.executeCommand('arbor.showLog');
    assert.ok(
      await ui.pageHasText(api.testing ? marker : `Arbor ${api.version} activated`),
      'the Output panel does not show the Arbor log after arbor.showLog',
    );
    await ui.screenshot('foundation-show-log');
  });
});
