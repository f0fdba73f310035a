import * as assert from 'assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import type { ArborTesting } from '../../src/extension/extension';
import type { ChangedFileNode, FileUndoOutcome, ReviewOpened, UndoOutcome } from '../../src/extension/review';
import { arborTesting, closeTabs, endEverything, toolResults, waitFor } from './support';
import { ui } from './ui';

const SHOPPING = [
  '// Totals a shopping list from a price table.',
  "const items = ['apples', 'oats', 'coffee'];",
  '',
  'function total(prices) {',
  '  return items.reduce((sum, item) => sum + prices[item], 0);',
  '}',
  '',
  'module.exports = { items, total };',
  '',
].join('\n');
const OLD_TEXT = "'coffee'];";
const NEW_TEXT = "'coffee', 'tea'];";
const EDITED = SHOPPING.replace(OLD_TEXT, NEW_TEXT);
const FILE = 'src/shoppingList.js';

type Call = { name: string; arguments: Record<string, unknown> };

describe('Review, Keep and Undo of what an agent changed', function () {
  this.timeout(90_000);
  let t: ArborTesting;
  let root: string;
  let file: string;
  let editor: vscode.TextEditor;

  /** A scripted root that makes these tool calls, each edit approved in its prompt as a user would ("Allow once"). */
  async function agentDoes(label: string, calls: Call[]): Promise<Agent> {
    const agent = t.startScripted(
      { version: 1, agents: { [label]: { turns: [[...calls.map((c) => ({ toolCalls: [c] })), { text: 'done' }]] } } },
      'change the shopping list',
      label,
    );
    const pending = (): boolean => t.runtime.interaction.pending().some((p) => p.agent?.id === agent.id);
    for (let answered = 0; answered < calls.length; answered++) {
      await waitFor(() => agent.status === 'idle' || t.observed.prompts.filter((o) => o.agentId === agent.id).length > answered, 'the approval prompt');
      if (agent.status === 'idle') break;
      if (ui.available) {
        assert.ok(await ui.pageHasText('Allow once'), 'the approval is on screen');
        await ui.pressKeys('Enter');
      } else {
        // The quick pick takes the accept once it is shown with its first item active.
        const deadline = Date.now() + 20_000;
        while (pending() && Date.now() < deadline) {
          await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
          await waitFor(() => !pending(), 'the approval to be answered', 500).catch(() => undefined);
        }
      }
      await waitFor(() => agent.status === 'idle' || !pending(), 'the approval to be answered');
    }
    await agent.whenIdle();
    for (const result of toolResults(agent)) assert.ok(!result.isError, `the agent's tool call failed: ${result.content}`);
    return agent;
  }

  const editsShoppingList = (label: string): Promise<Agent> => agentDoes(label, [{ name: 'edit_file', arguments: { path: FILE, old_text: OLD_TEXT, new_text: NEW_TEXT } }]);

  function fileRows(agent: Agent): ChangedFileNode[] {
    return t.tree.getChildren(agent).filter((n): n is ChangedFileNode => 'sessionId' in n);
  }

  /**
   * Brings the agent's file row on screen. The page learns that the agent's row has children in
   * the repaint that shows "N files changed"; a reveal asked before the page took that repaint
   * finds a row without children and leaves it collapsed, so show the agent's row (which opens
   * the view) and wait for the page to say so first.
   */
  async function showFileRow(agent: Agent, rowText: string, select: boolean): Promise<void> {
    const deadline = Date.now() + 20_000;
    await t.treeView.reveal(agent, { select: false, focus: false });
    while (!/files? changed/.test((await ui.rowLabel(agent.label)) ?? '')) {
      if (Date.now() > deadline) throw new Error(`the page's row for "${agent.label}" never said it changed files: ${await ui.rowLabel(agent.label)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await t.treeView.reveal(fileRows(agent)[0], { select, focus: false });
    while ((await ui.rowLabel(rowText)) === null) {
      if (Date.now() > deadline) throw new Error(`the file row "${rowText}" is not on screen after its reveal`);
      await t.treeView.reveal(fileRows(agent)[0], { select, focus: false });
    }
  }

  function description(agent: Agent): string {
    const d = t.tree.getTreeItem(agent).description;
    return typeof d === 'string' ? d : '';
  }

  function tabLabels(): string {
    return vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((tab) => `${tab.label}${tab.isActive ? ' (active)' : ''}`)).join(', ');
  }

  function activeTab(): vscode.Tab | undefined {
    return vscode.window.tabGroups.activeTabGroup.activeTab;
  }

  /** Puts the shopping list back as the suite started it, as a user would: in the editor, then saved. */
  async function resetFile(): Promise<void> {
    const document = editor.document;
    if (document.getText() !== SHOPPING) {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(document.uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), SHOPPING);
      assert.ok(await vscode.workspace.applyEdit(edit));
    }
    // Under load the editor may answer a save with false while it joins another one: ask again.
    for (let i = 0; i < 3 && document.isDirty; i++) await document.save();
    await waitFor(() => fs.readFileSync(file, 'utf8') === SHOPPING && !document.isDirty, 'the reset file saved');
  }

  before(async () => {
    t = await arborTesting();
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    file = path.join(root, FILE);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, SHOPPING);
    editor = await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
    await waitFor(() => editor.document.getText() === SHOPPING, 'the editor to show the shopping list');
  });
  afterEach(async () => {
    t.review.confirmUndo = () => Promise.reject(new Error('this test did not expect a confirmation'));
    await endEverything(t, { keepChanges: true });
    // This suite's tabs: diffs, the changes editor, files the agents created.
    await closeTabs(
      (tab) =>
        tab.input instanceof vscode.TabInputTextDiff ||
        tab.label.startsWith('Changes by ') ||
        (tab.input instanceof vscode.TabInputText && tab.input.uri.fsPath.startsWith(root + path.sep) && tab.input.uri.fsPath !== file),
    );
    await resetFile();
  });
  after(async () => {
    await closeTabs((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.fsPath === file);
    fs.rmSync(path.join(root, 'src'), { recursive: true, force: true });
  });

  it('the agent\'s node says "1 file changed" with the file under it, and Review opens the diff against the original', async () => {
    const agent = await editsShoppingList('Editor');
    assert.strictEqual(editor.document.getText(), EDITED, 'the edit reached the open editor');
    await waitFor(() => description(agent).includes('1 file changed'), 'the node to say "1 file changed"');
    assert.deepStrictEqual(
      fileRows(agent).map((f) => [f.path, f.created]),
      [[FILE, false]],
    );
    assert.strictEqual(t.tree.getParent(fileRows(agent)[0]), agent, 'the file row sits under its agent');
    if (ui.available) {
      await showFileRow(agent, 'shoppingList.js', false);
      assert.ok(await ui.pageHasText('1 file changed'), 'the node shows it');
    }

    const opened = await vscode.commands.executeCommand<ReviewOpened>('arbor.reviewChanges', agent);
    assert.strictEqual(opened, 'changes-editor', "VS Code's multi-file diff editor opened");
    await waitFor(() => activeTab()?.label.startsWith('Changes by "Editor"') === true, 'the changes editor to be the active tab').catch((e: Error) => {
      throw new Error(`${e.message}; the tabs: ${tabLabels()}`);
    });
    if (ui.available) {
      assert.ok(await ui.pageHasText('Changes by "Editor"'), 'the changes editor is on screen');
      await ui.screenshot('review-changes-editor');
    }

    // The file row opens that file's diff: the recorded original, read-only, against the file now.
    assert.strictEqual(await vscode.commands.executeCommand<ReviewOpened>('arbor.reviewChanges', fileRows(agent)[0]), 'diff-editors');
    await waitFor(() => activeTab()?.input instanceof vscode.TabInputTextDiff, 'the diff editor');
    const input = activeTab()!.input as vscode.TabInputTextDiff;
    assert.strictEqual(input.original.scheme, 'arbor-original');
    assert.strictEqual(input.modified.fsPath, file);
    const original = await vscode.workspace.openTextDocument(input.original);
    assert.strictEqual(original.getText(), SHOPPING, 'the left side is the content before the agent changed it');
    assert.strictEqual(original.languageId, 'javascript');
  });

  it('Undo on the file row puts the original back on disk and in the open editor, in its undo stack, and clears the row', async () => {
    const agent = await editsShoppingList('Editor');
    await waitFor(() => fileRows(agent).length === 1, 'the file row');
    if (ui.available) {
      // Selected, as a person's click on it would leave it, the row shows its actions even when the
      // pointer's hover is lost to a repaint.
      await showFileRow(agent, 'shoppingList.js', true);
      await ui.clickInlineAction('shoppingList.js', 'Undo');
    } else {
      assert.strictEqual(await vscode.commands.executeCommand<FileUndoOutcome>('arbor.undoFileChange', fileRows(agent)[0]), 'undone');
    }
    await waitFor(() => editor.document.getText() === SHOPPING, 'the open editor to show the original');
    await waitFor(() => fs.readFileSync(file, 'utf8') === SHOPPING && !editor.document.isDirty, 'the original on disk');
    assert.deepStrictEqual(await t.runtime.changes.list(agent.id), []);
    await waitFor(() => fileRows(agent).length === 0 && !description(agent).includes('changed'), 'the row to go');

    // The undo is an edit like any other: Edit > Undo brings the agent's change back.
    await vscode.window.showTextDocument(editor.document, { preview: false });
    await vscode.commands.executeCommand('undo');
    await waitFor(() => editor.document.getText() === EDITED, "the editor's undo to bring the agent's change back");
  });

  it('Keep clears the record and leaves the file as the agent left it', async () => {
    const agent = await editsShoppingList('Keeper');
    await waitFor(() => fileRows(agent).length === 1, 'the file row');
    const record = path.join(t.sessions!.root, `${encodeURIComponent(agent.id)}.changes.json`);
    assert.ok(fs.existsSync(record), 'the record sits beside the session');
    assert.strictEqual(await vscode.commands.executeCommand<number>('arbor.keepChanges', agent), 1);
    assert.deepStrictEqual(await t.runtime.changes.list(agent.id), []);
    assert.strictEqual(fs.existsSync(record), false, 'the record is gone');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), EDITED, 'the file keeps the change');
    await waitFor(() => fileRows(agent).length === 0 && !description(agent).includes('changed'), 'the row to go');
    assert.strictEqual(await vscode.commands.executeCommand('arbor.reviewChanges', agent), undefined, 'nothing left to review');
    if (ui.available) assert.ok(await ui.pageHasText('"Keeper" has no changes to review'), 'and it says so');
  });

  it('Undo refuses a file someone changed since, opens the diff of what changed, and changes nothing', async () => {
    const agent = await editsShoppingList('Editor');
    await waitFor(() => fileRows(agent).length === 1, 'the file row');
    // Someone else edits the file after the agent, in the editor, and saves.
    editor = await vscode.window.showTextDocument(editor.document, { preview: false });
    assert.ok(await editor.edit((b) => b.insert(new vscode.Position(0, 0), "// the user's note\n")));
    for (let i = 0; i < 3 && editor.document.isDirty; i++) await editor.document.save();
    const theirs = `// the user's note\n${EDITED}`;
    assert.strictEqual(fs.readFileSync(file, 'utf8'), theirs);

    assert.strictEqual(await vscode.commands.executeCommand<FileUndoOutcome>('arbor.undoFileChange', fileRows(agent)[0]), 'refused');
    assert.strictEqual(editor.document.getText(), theirs, 'the editor keeps the later change');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), theirs, 'so does the disk');
    assert.strictEqual((await t.runtime.changes.list(agent.id)).length, 1, 'the record stays');
    await waitFor(() => activeTab()?.input instanceof vscode.TabInputTextDiff, 'the diff of what changed since');
    const input = activeTab()!.input as vscode.TabInputTextDiff;
    assert.match(input.original.query, /side=written/);
    assert.strictEqual((await vscode.workspace.openTextDocument(input.original)).getText(), EDITED, "the left side is the agent's version");
    assert.strictEqual(input.modified.fsPath, file);
    if (ui.available) {
      assert.ok(await ui.pageHasText('changed since "Editor" last wrote it'), 'the message says why and what to do');
      await ui.screenshot('undo-refused-changed-since');
    }

    // The whole agent's Undo refuses it too, after asking.
    const asked: string[][] = [];
    t.review.confirmUndo = (_label, files) => (asked.push(files.map((f) => f.path)), Promise.resolve(true));
    const outcome = await vscode.commands.executeCommand<UndoOutcome>('arbor.undoChanges', agent);
    assert.deepStrictEqual(asked, [[FILE]], 'the confirmation lists the files');
    assert.deepStrictEqual(outcome, { undone: [], refused: [FILE], failed: [], cancelled: false });
    assert.strictEqual(fs.readFileSync(file, 'utf8'), theirs);
  });

  it("Undo Changes asks first with the agent's files, undoes edits and deletes files it created; the record survives the agent into History and a resume", async () => {
    const agent = await agentDoes('Writer', [
      { name: 'edit_file', arguments: { path: FILE, old_text: OLD_TEXT, new_text: NEW_TEXT } },
      { name: 'create_file', arguments: { path: 'src/notes.md', content: 'buy tea\n' } },
    ]);
    await waitFor(() => description(agent).includes('2 files changed'), 'the node to say "2 files changed"');
    const notes = path.join(root, 'src', 'notes.md');
    assert.ok(fs.existsSync(notes));

    // The agent ends: its changes are still on record, for its session in History.
    await t.runtime.end(agent);
    const historyNode = { type: 'session', entry: { header: { id: agent.id } } };
    assert.strictEqual(await vscode.commands.executeCommand<ReviewOpened>('arbor.reviewChanges', historyNode), 'changes-editor');
    await waitFor(() => activeTab()?.label.startsWith('Changes by "Writer"') === true, 'the changes of the past session');
    // Resumed, it shows them again.
    const resumed = await t.runtime.resumeRoot(agent.id);
    await waitFor(() => description(resumed).includes('2 files changed'), 'the resumed agent to show its changes');

    const asked: string[][] = [];
    t.review.confirmUndo = (_label, files) => (asked.push(files.map((f) => f.path)), Promise.resolve(asked.length > 1));
    const cancelled = await vscode.commands.executeCommand<UndoOutcome>('arbor.undoChanges', resumed);
    assert.strictEqual(cancelled.cancelled, true);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), EDITED, 'a cancelled Undo changes nothing');

    const outcome = await vscode.commands.executeCommand<UndoOutcome>('arbor.undoChanges', resumed.id);
    assert.deepStrictEqual(asked, [[FILE, 'src/notes.md'], [FILE, 'src/notes.md']]);
    assert.deepStrictEqual(outcome, { undone: [FILE, 'src/notes.md'], refused: [], failed: [], cancelled: false });
    await waitFor(() => editor.document.getText() === SHOPPING && fs.readFileSync(file, 'utf8') === SHOPPING, 'the original back');
    assert.strictEqual(fs.existsSync(notes), false, 'the file the agent created is gone');
    await waitFor(() => fileRows(resumed).length === 0, 'the rows to go');
  });

  it('commands refuse an argument that names no agent or changed file, and change nothing', async () => {
    for (const command of ['arbor.reviewChanges', 'arbor.keepChanges', 'arbor.undoChanges', 'arbor.undoFileChange', 'arbor.keepFileChange']) {
      await assert.rejects(Promise.resolve(vscode.commands.executeCommand(command, { type: 'changed-file', path: 42 })), (e: unknown) => e instanceof Error && /INPUT_INVALID|takes/.test(`${(e as { code?: string }).code ?? ''} ${e.message}`), command);
    }
    assert.strictEqual(fs.readFileSync(file, 'utf8'), SHOPPING);
  });
});
