import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, closeTabs, endEverything, toolResults, waitFor } from './support';
import { ui } from './ui';

/** Two agents, one file, in the real editor: the prompt names both and shows both diffs, and "Stop the other" stops it. */
describe('Two agents, one file', function () {
  this.timeout(180_000);
  let t: ArborTesting;
  let file: string;
  const relative = 'two-agents/shared.txt';

  before(async () => {
    t = await arborTesting();
    file = path.join(t.runtime.workspaceFolder ?? assert.fail('the integration workspace has a folder'), relative);
  });
  after(async () => {
    await endEverything(t, { keepChanges: true });
    // This suite's editors: the file and its diffs.
    await closeTabs(
      (tab) =>
        (tab.input instanceof vscode.TabInputText && tab.input.uri.fsPath === file) ||
        (tab.input instanceof vscode.TabInputTextDiff && (tab.input.modified.fsPath === file || tab.input.original.fsPath === file)) ||
        tab.label.includes(path.basename(file)),
    );
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  const edit = (oldText: string, newText: string) => ({ name: 'edit_file', arguments: { path: relative, old_text: oldText, new_text: newText } });
  /** The open prompt of `agent` (a quick pick), once it is pending and on screen with `text`. */
  async function promptOf(agentId: string, text: string) {
    await waitFor(() => t.runtime.interaction.pending().some((p) => p.agent?.id === agentId && p.questions.some((q) => q.question.includes(text))), `the prompt "${text}"`, 60_000);
    return t.runtime.interaction.pending().find((p) => p.agent?.id === agentId)!;
  }

  it('the second agent\'s edit asks, naming both agents with both diffs; a click on "Stop the other" stops the first and the edit goes on', async function () {
    ui.requireBrowser(this);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'one\ntwo\nthree\n');
    const first = t.startScripted({ version: 1, agents: { 'Writer One': { turns: [[{ toolCalls: [edit('one', 'ONE')] }, { hang: true }]] } } }, 'edit the top', 'Writer One');
    await promptOf(first.id, 'edit files');
    await waitFor(() => t.observed.prompts.some((o) => o.agentId === first.id && /asks: Approval/.test(o.title)), 'the approval quick pick to open', 60_000);
    assert.ok(await ui.pageHasText('Allow once'), 'its approval is on screen');
    await ui.pressKeys('Enter'); // Allow once, the first option
    await waitFor(() => fs.readFileSync(file, 'utf8').startsWith('ONE'), "the first agent's edit on disk", 60_000);

    const second = t.startScripted({ version: 1, agents: { 'Writer Two': { turns: [[{ toolCalls: [edit('three', 'THREE')] }, { text: 'done' }]] } } }, 'edit the bottom', 'Writer Two');
    const overlap = await promptOf(second.id, 'has changed and not yet kept or undone');
    assert.match(overlap.questions[0].question, /"Writer Two" wants to change two-agents\/shared\.txt, which "Writer One" has changed/);
    await waitFor(() => t.observed.prompts.some((o) => o.agentId === second.id && /asks: Two agents, one file/.test(o.title)), 'the overlap quick pick to open', 60_000);
    assert.ok(await ui.pageHasText('Stop the other'), 'the three answers are on screen');
    await waitFor(() => t.observed.previews.some((p) => p.text.includes('+THREE') && p.text.includes('+ONE')), 'the preview of both diffs');
    assert.ok(await ui.pageHasText('The change "Writer One" has made so far'), "the first agent's diff is on screen");
    await ui.screenshot('two-agents-one-file');
    await ui.clickRow('Stop the other');

    await waitFor(() => first.status === 'idle', 'the first agent to stop', 60_000);
    assert.deepStrictEqual(first.log.events.flatMap((e) => (e.type === 'turn_end' ? [`${e.reason}:${e.cause ?? ''}`] : [])), ['aborted:user']);
    await promptOf(second.id, 'edit files');
    // Its own approval, once its quick pick is on screen (the overlap question had no "Allow once").
    await waitFor(() => t.observed.prompts.some((o) => o.agentId === second.id && /asks: Approval/.test(o.title)), 'the approval quick pick to open', 60_000);
    assert.ok(await ui.pageHasText('Allow once'), 'its approval is on screen');
    await ui.pressKeys('Enter'); // Allow once
    await waitFor(() => second.status === 'idle' && toolResults(second).length === 1, 'the second agent to finish', 60_000);
    assert.strictEqual(JSON.parse(toolResults(second)[0].content).status, 'edited');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), 'ONE\ntwo\nTHREE\n');
    // Both nodes show the shared file until a Keep or an Undo of either.
    await waitFor(() => /⚠ two-agents\/shared\.txt/.test(String(t.tree.getTreeItem(first).description)) && /⚠ two-agents\/shared\.txt/.test(String(t.tree.getTreeItem(second).description)), 'both rows to show the ⚠');
    await t.runtime.changes.keepAll(first.id);
    await waitFor(() => !String(t.tree.getTreeItem(second).description).includes('⚠'), 'the ⚠ to go with the Keep');
  });
});
