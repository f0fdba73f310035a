import * as assert from 'assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { FileChangeSetStorage } from '../../src/core/workspace';
import type { ArborTesting } from '../../src/extension/extension';
import { EXTENSION_ID, arborTesting, toolResults, turnEnds, waitFor } from './support';
import { ui } from './ui';

const OLD_LINE = 'throw new Error(`no price for ${item}`);';
const NEW_LINE = 'throw new Error(`no price for ${item} in data/prices.csv`);';

/** Live rg processes started with `needle` among their arguments: [pid, executable]. */
function rgProcessesSearching(needle: string): [number, string][] {
  const out: [number, string][] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (path.basename(argv[0]) === 'rg' && argv.includes(needle)) out.push([Number(name), argv[0]]);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe('Workspace tools in the editor', function () {
  this.timeout(180_000);
  let t: ArborTesting;
  let root: string;
  let SHOPPING: string;
  let EDITED: string;

  let autoSave: string | undefined;

  before(async () => {
    t = await arborTesting();
    // The web workbench auto-saves after a delay by default; these tests need unsaved buffers to stay unsaved.
    autoSave = vscode.workspace.getConfiguration('files').inspect<string>('autoSave')?.globalValue;
    await vscode.workspace.getConfiguration('files').update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    // The demo workspace's files, as `npm start` opens them.
    const demo = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'demo');
    for (const file of ['src/shoppingList.js', 'data/prices.csv']) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.copyFileSync(path.join(demo, file), path.join(root, file));
    }
    SHOPPING = fs.readFileSync(path.join(root, 'src', 'shoppingList.js'), 'utf8');
    EDITED = SHOPPING.replace(OLD_LINE, NEW_LINE);
    assert.notStrictEqual(EDITED, SHOPPING);
    // An earlier suite (the demo's edit) may have left the file open in the editor's memory with
    // other text, which the editor re-reads from disk only when its file watcher notices: put the
    // demo's text in that document too, so the agent reads what is on disk.
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(root, 'src', 'shoppingList.js')));
    if (document.getText() !== SHOPPING) {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(document.uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), SHOPPING);
      assert.ok(await vscode.workspace.applyEdit(edit));
    }
    for (let i = 0; i < 3 && document.isDirty; i++) await document.save();
    await waitFor(() => document.getText() === SHOPPING && !document.isDirty && fs.readFileSync(document.uri.fsPath, 'utf8') === SHOPPING, 'the demo file in the editor as on disk');
  });
  after(async () => {
    await vscode.workspace.getConfiguration('files').update('autoSave', autoSave, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    // Only this suite's editors: others (a conversation view) must survive the coming reload.
    const mine = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.fsPath.startsWith(root + path.sep));
    await vscode.window.tabGroups.close(mine);
    for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
    await waitFor(() => t.runtime.agents.size === 0, 'every agent to end');
  });

  it('a scripted agent reads and searches the workspace, then edits the open src/shoppingList.js once the approval is answered by keyboard', async function () {
    const uri = vscode.Uri.file(path.join(root, 'src', 'shoppingList.js'));
    const editor = await vscode.window.showTextDocument(uri, { preview: false });
    const agent = t.startScripted(
      {
        version: 1,
        agents: {
          Editor: {
            turns: [
              [
                { toolCalls: [{ name: 'read_file', arguments: { path: 'src/shoppingList.js' } }] },
                { toolCalls: [{ name: 'search_text', arguments: { query: 'totalCents' } }] },
                { toolCalls: [{ name: 'list_files', arguments: { glob: '**/*.js' } }] },
                { toolCalls: [{ name: 'edit_file', arguments: { path: 'src/shoppingList.js', old_text: OLD_LINE, new_text: NEW_LINE } }] },
                { text: 'The error now says where prices come from.' },
              ],
            ],
          },
        },
      },
      'make the missing-price error say where prices come from',
      'Editor',
    );
    await waitFor(() => t.runtime.interaction.pending().some((p) => p.agent?.id === agent.id), 'the approval prompt', 60_000);
    const [read, search, list] = toolResults(agent);
    assert.match(read.content, /^src\/shoppingList\.js \(lines 1–28 of 28\)\n 1\t\/\/ Totals a shopping list/);
    assert.strictEqual(search.content, 'src/shoppingList.js:18:function totalCents(list, prices) {\nsrc/shoppingList.js:28:module.exports = { parsePrices, totalCents };');
    assert.strictEqual(list.content, '1 file matching "**/*.js":\nsrc/shoppingList.js');
    const prompt = t.runtime.interaction.pending().find((p) => p.agent?.id === agent.id)!;
    assert.match(prompt.questions[0].question, /^Editor \(root agent\) wants to edit files/);
    assert.ok((prompt.detail ?? '').includes(`\n-    if (price === undefined) ${OLD_LINE}\n+    if (price === undefined) ${NEW_LINE}\n`), 'the prompt carries the diff');

    if (ui.available) {
      await waitFor(() => t.observed.prompts.some((o) => o.agentId === agent.id), 'the approval quick pick to open', 60_000);
      assert.ok(await ui.pageHasText('Allow once', { timeoutMs: 30_000 }), 'the approval is on screen');
      assert.ok(await ui.pageHasText('+++ b/src/shoppingList.js', { timeoutMs: 30_000 }), 'with its diff in the preview beside');
      await ui.screenshot('edit-file-approval');
      await ui.pressKeys('Enter');
    } else {
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    }
    await agent.whenIdle();
    const edit = toolResults(agent)[3];
    assert.deepStrictEqual(JSON.parse(edit.content), { status: 'edited', path: 'src/shoppingList.js', lines: 28 });
    assert.strictEqual(fs.readFileSync(uri.fsPath, 'utf8'), EDITED, 'the file changed on disk');
    assert.strictEqual(editor.document.getText(), EDITED, 'and in the open editor');
    assert.strictEqual(editor.document.isDirty, false);
    const changed = await t.runtime.changes.list(agent.id);
    assert.deepStrictEqual(changed.map((c) => [c.path, c.original]), [['src/shoppingList.js', SHOPPING]], 'the original is recorded');
    assert.ok(t.sessions && fs.existsSync(new FileChangeSetStorage(t.sessions.root).fileOf(agent.id)), 'beside the session');

    // The edit is in the editor's undo stack.
    await vscode.window.showTextDocument(editor.document, { preview: false });
    await vscode.commands.executeCommand('undo');
    await waitFor(() => editor.document.getText() === SHOPPING, 'undo to revert the edit');
    await vscode.commands.executeCommand('redo');
    await waitFor(() => editor.document.getText() === EDITED && !editor.document.isDirty, 'redo to bring it back');
    // The record restores the original, on disk and in the editor.
    await t.runtime.changes.restore(agent.id, 'src/shoppingList.js');
    assert.strictEqual(fs.readFileSync(uri.fsPath, 'utf8'), SHOPPING);
    assert.strictEqual(editor.document.getText(), SHOPPING);
    assert.deepStrictEqual(await t.runtime.changes.list(agent.id), []);
  });

  it('read_file sees the unsaved buffer of an open file', async () => {
    const uri = vscode.Uri.file(path.join(root, 'data', 'prices.csv'));
    const editor = await vscode.window.showTextDocument(uri, { preview: false });
    await editor.edit((b) => b.insert(new vscode.Position(0, 0), '# unsaved note\n'));
    assert.ok(editor.document.isDirty);
    const agent = t.startScripted(
      { version: 1, agents: { Reader: { turns: [[{ toolCalls: [{ name: 'read_file', arguments: { path: 'data/prices.csv' } }] }, { text: 'ok' }]] } } },
      'read',
      'Reader',
    );
    await agent.whenIdle();
    assert.match(toolResults(agent)[0].content, /from the editor \(unsaved changes included\)\)\n1\t# unsaved note\n2\titem,cents\n3\tapple,45/);
    assert.ok(!fs.readFileSync(uri.fsPath, 'utf8').includes('unsaved note'), 'the disk does not have it');
    await vscode.window.showTextDocument(editor.document, { preview: false });
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await waitFor(() => !editor.document.isDirty, 'the buffer to be reverted');
  });

  it("an unattended run's edit is denied without a prompt and changes nothing", async () => {
    const agent = t.startScripted(
      {
        version: 1,
        agents: {
          Nightly: {
            turns: [[{ toolCalls: [{ name: 'edit_file', arguments: { path: 'src/shoppingList.js', old_text: 'function parsePrices(csv) {', new_text: 'function parsePrices(text) {' } }] }, { text: 'done' }]],
          },
        },
      },
      'improve the error',
      'Nightly',
      'autonomous',
    );
    await agent.whenIdle();
    const result = JSON.parse(toolResults(agent)[0].content);
    assert.strictEqual(result.status, 'denied');
    assert.match(result.reason, /unattended/);
    assert.ok(!t.observed.prompts.some((o) => o.agentId === agent.id), 'no prompt opened');
    assert.ok(fs.readFileSync(path.join(root, 'src', 'shoppingList.js'), 'utf8').includes('function parsePrices(csv) {'), 'nothing was written');
  });

  it('Stop during a long search ends the turn and kills the editor\'s ripgrep', async () => {
    // rg reads each .gitignore it meets; this one is a FIFO nobody writes, so the search never ends.
    const slow = path.join(root, 'slow', 'deeper');
    fs.mkdirSync(slow, { recursive: true });
    const fifo = path.join(slow, '.gitignore');
    execFileSync('mkfifo', [fifo]);
    const needle = 'needle-nobody-wrote';
    try {
      const agent = t.startScripted(
        { version: 1, agents: { Searcher: { turns: [[{ toolCalls: [{ name: 'search_text', arguments: { query: needle } }] }, { text: 'found nothing' }]] } } },
        'search',
        'Searcher',
      );
      await waitFor(() => rgProcessesSearching(needle).length > 0, 'the search to run');
      const [, executable] = rgProcessesSearching(needle)[0];
      assert.ok(executable.startsWith(vscode.env.appRoot), `the editor's own ripgrep runs (${executable})`);
      if (ui.available) {
        const stopping = vscode.commands.executeCommand<string>('arbor.stopAgent');
        assert.ok(await ui.pageHasText('Searcher'), 'the pick lists the running agent');
        await ui.typeText('Searcher');
        await ui.pressKeys('Enter');
        assert.strictEqual(await stopping, agent.id);
      } else {
        await vscode.commands.executeCommand('arbor.stop', agent.id);
      }
      await waitFor(() => turnEnds(agent).length === 1, 'the turn to end');
      assert.deepStrictEqual(turnEnds(agent), ['aborted:user']);
      await waitFor(() => rgProcessesSearching(needle).length === 0, 'ripgrep to be killed');
    } finally {
      // Release anything else that opened the FIFO, then remove it.
      for (let i = 0; i < 5; i++) {
        try {
          fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
        } catch {
          break;
        }
      }
      fs.rmSync(path.join(root, 'slow'), { recursive: true, force: true });
    }
  });
});
