import * as assert from 'assert';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import type { EndedSubagent } from '../../src/extension/agents/endedSubagents';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, endEverything, sleep, waitFor } from './support';
import { ui } from './ui';

const endedRows = (t: ArborTesting, parent: Agent): EndedSubagent[] =>
  t.tree.getChildren(parent).filter((n): n is EndedSubagent => 'type' in n && n.type === 'ended-subagent');

/** Polls the page until the row containing `text` is shown (or, with `shown: false`, gone). */
async function rowShown(text: string, shown = true, timeoutMs = 20_000): Promise<string | null> {
  const t0 = Date.now();
  for (;;) {
    const label = await ui.rowLabel(text);
    if ((label !== null) === shown) return label;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for the row "${text}" to be ${shown ? 'shown' : 'gone'}`);
    await sleep(100);
  }
}

describe('ended subagents stay visible under their parent', function () {
  this.timeout(120_000);
  let t: ArborTesting;
  before(async () => {
    t = await arborTesting();
    await endEverything(t);
    await vscode.commands.executeCommand('workbench.view.extension.arbor');
  });
  after(async () => {
    await vscode.workspace.getConfiguration('arbor').update('tree.showEndedSubagents', undefined, vscode.ConfigurationTarget.Global);
    await endEverything(t);
  });

  it("the demo lead's Summarizer stays in the real tree when it ends, dimmed and done, opens its transcript, and Clear removes it", async function () {
    ui.requireBrowser(this);
    const lead = t.runtime.agents.get(await vscode.commands.executeCommand<string>('arbor.runDemo'))!;
    assert.ok(lead, 'Run Demo returned no live root');
    await waitFor(() => endedRows(t, lead).some((n) => n.label === 'Summarizer'), 'the Summarizer to end and stay under the lead');
    const row = endedRows(t, lead).find((n) => n.label === 'Summarizer')!;
    assert.strictEqual(row.how, 'done');
    assert.strictEqual(t.runtime.agents.get(row.id), undefined, 'the Summarizer itself has ended');
    assert.strictEqual(t.tree.getParent(row), lead, 'its row sits under the lead');
    const item = t.tree.getTreeItem(row);
    assert.match(String(item.description), /^one-shot · ended: done · /);
    assert.ok(item.iconPath instanceof vscode.ThemeIcon && item.iconPath.color instanceof vscode.ThemeColor && item.iconPath.color.id === 'disabledForeground', 'its icon is dimmed');
    assert.match(String(item.contextValue), /^ended:/, 'no agent action (Stop, Stop All Below) applies to it');
    assert.deepStrictEqual(item.command?.arguments, [row.id]);

    await t.treeView.reveal(lead, { select: false, focus: false, expand: true });
    // Only its ended row can show it: a live Summarizer is gone, and History lists it collapsed under the lead.
    // The page may still show the live Summarizer's row until the tree's next repaint reaches it.
    let label = await rowShown('Summarizer');
    for (const t0 = Date.now(); !/ended: done/.test(label ?? '') && Date.now() - t0 < 20_000; label = await ui.rowLabel('Summarizer')) await sleep(100);
    assert.match(label ?? '', /ended: done/, 'the user sees the ended Summarizer and how it ended');
    await ui.screenshot('ended-subagent-row');
    await ui.clickRow('Summarizer');
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.toString() === t.transcripts.uriFor(row.id).toString(), "the Summarizer's transcript to open");
    assert.match(vscode.window.activeTextEditor!.document.getText(), /Summary: six items/, 'its conversation, read from its session');

    const cleared = await vscode.commands.executeCommand<number>('arbor.clearEndedSubagents');
    assert.ok(cleared >= 1, `Clear reports what it removed (${cleared})`);
    // The Researcher may end (and be kept) after the Clear: only the Summarizer must be gone.
    assert.ok(!endedRows(t, lead).some((n) => n.label === 'Summarizer'), 'its record is gone');
    await rowShown('Summarizer', false);
    assert.ok(t.runtime.agents.isLive(lead), 'Clear touches no live agent');
  });

  it('with arbor.tree.showEndedSubagents off a subagent leaves the tree when it ends', async () => {
    await endEverything(t);
    await vscode.workspace.getConfiguration('arbor').update('tree.showEndedSubagents', false, vscode.ConfigurationTarget.Global);
    const script = {
      version: 1,
      agents: {
        Boss: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'Quick', prompt: 'x' } }] }, { hang: true }]] },
        Quick: { turns: [[{ text: 'quick result' }]] },
      },
    };
    const removed: string[] = [];
    const sub = t.runtime.onEvent((e) => {
      if (e.type === 'agent_removed') removed.push(e.agent.label);
    });
    const boss = t.startScripted(script, 'go', 'Boss');
    await waitFor(() => removed.includes('Quick'), 'the one-shot to end');
    sub.dispose();
    assert.deepStrictEqual(endedRows(t, boss), [], 'no ended row is kept');
    assert.deepStrictEqual(t.tree.getChildren(boss), []);
  });
});
