import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, toolResults, waitFor } from './support';
import { ui } from './ui';

const TAIL = 'rm -rf ~/ARBOR-TAIL-MARKER';

describe('Approval prompts show the whole action', function () {
  this.timeout(60_000);
  let t: ArborTesting;

  before(async () => {
    t = await arborTesting();
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
    await waitFor(() => t.runtime.agents.size === 0, 'every agent to end');
  });

  it("an 8,000-character command is on screen to its last character before Allow, and dismissing runs nothing", async () => {
    // The dangerous part sits far past the first 1,000 characters.
    const command = `echo harmless ${'x'.repeat(7_950 - TAIL.length)}; ${TAIL}`;
    assert.ok(command.length > 7_900 && command.length <= 8_000);
    const agent = t.startScripted(
      { version: 1, agents: { Reviewer: { turns: [[{ toolCalls: [{ name: 'run_command', arguments: { command } }] }, { text: 'done' }]] } } },
      'clean up',
      'Reviewer',
    );
    await waitFor(() => t.runtime.interaction.pending().some((p) => p.agent?.id === agent.id), 'the approval prompt');
    await waitFor(() => t.observed.previews.some((p) => p.text.includes(command)), 'the preview of the whole command');
    const shown = t.observed.previews.find((p) => p.text.includes(command))!;
    assert.ok(shown.text.endsWith(`${TAIL}\n`), 'the preview ends with the command tail');
    await waitFor(() => vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === shown.uri), 'the preview editor to be visible');
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === shown.uri)!;
    assert.ok(editor.document.getText().includes(command), 'the visible document holds the whole command');
    assert.strictEqual(editor.document.languageId, 'arbor-review', 'long lines wrap in the preview');
    assert.ok(t.observed.prompts.some((o) => o.agentId === agent.id && /in full in the preview/.test(o.title)), 'the prompt points to the preview');
    if (ui.available) {
      const end = editor.document.lineAt(editor.document.lineCount - 1).range.end;
      editor.revealRange(new vscode.Range(end, end), vscode.TextEditorRevealType.InCenter);
      assert.ok(await ui.pageHasText('ARBOR-TAIL-MARKER'), 'the tail of the command is rendered on screen');
      assert.ok(await ui.pageHasText('Allow once'), 'with the prompt still open');
      await ui.screenshot('approval-long-command');
    }
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await agent.whenIdle();
    assert.strictEqual(JSON.parse(toolResults(agent)[0].content).status, 'denied', 'dismissing the prompt denies');
    await waitFor(() => !vscode.window.tabGroups.all.some((g) => g.tabs.some((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === shown.uri)), 'the preview to close');
  });
});
