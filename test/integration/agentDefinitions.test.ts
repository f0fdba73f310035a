// Agent definitions and plans as a user meets them: a definition file in the workspace appears
// in Run Agent..., a lead delegates to it by name and its child obeys the file's tool list, a
// broken file is a problem on that file, and a plan fills in live under an agent and in its
// conversation view.
import * as assert from 'assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, endEverything, toolResults, waitFor } from './support';
import { ui } from './ui';

const CHECKER = `---
name: Checker
description: Checks a change and reports what is wrong; it only reads.
tools: [read_file, list_files, update_plan]
kind: one-shot
---
You check code; you never change it.
`;

const BROKEN = `---
name: Broken
description: Names a tool that does not exist.
tools: [read_file, delete_everything]
---
Delete.
`;

function folder(): string {
  const f = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(f, 'the test workspace has a folder');
  return f;
}

const agentsDir = (): string => path.join(folder(), '.arbor', 'agents');

/** Writes a file as the editor does (a save, a new file), so the editor's watchers hear of it. */
async function write(file: string, text: string): Promise<void> {
  await vscode.workspace.fs.writeFile(vscode.Uri.file(file), new TextEncoder().encode(text));
}

function description(t: ArborTesting, agent: Agent): string {
  return String(t.tree.getTreeItem(agent).description ?? '');
}

function tooltip(t: ArborTesting, agent: Agent): string {
  const tip = t.tree.resolveTreeItem(t.tree.getTreeItem(agent), agent).tooltip;
  return tip instanceof vscode.MarkdownString ? tip.value : String(tip ?? '');
}

const plan = (...statuses: string[]) => ({
  name: 'update_plan',
  arguments: { items: ['read the code', 'write the tests', 'run them'].map((step, i) => ({ step, status: statuses[i] })) },
});

describe('Agent definitions and plans', function () {
  this.timeout(120_000);
  let t: ArborTesting;

  before(async () => {
    t = await arborTesting();
    // Dropped into the workspace as a user would; every test below uses it.
    await write(path.join(agentsDir(), 'checker.md'), CHECKER);
  });
  after(async () => {
    await endEverything(t);
    fs.rmSync(path.join(folder(), '.arbor'), { recursive: true, force: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a definition file dropped into the workspace appears in Run Agent..., after "No definition", and starts an agent under its name', async function () {
    ui.requireBrowser(this);
    // Run Agent reads the files as they are on disk: a file written while the editor's watcher was
    // still starting (this one, just after activation) is offered all the same.
    const running = vscode.commands.executeCommand<string>('arbor.runAgent');
    assert.ok(await ui.pageHasText('No definition'), 'the pick offers no definition');
    assert.ok(await ui.pageHasText('Checks a change and reports what is wrong'), 'the pick shows the definition and when to use it');
    await ui.screenshot('run-agent-definitions');
    await ui.typeText('Checker');
    await ui.pressKeys('Enter');
    assert.ok(await ui.pageHasText('What should the agent do?'), 'then the task is asked');
    await ui.typeText('Check src/index.ts');
    await ui.pressKeys('Enter');
    const id = await running;
    const agent = t.runtime.agents.get(id)!;
    assert.strictEqual(agent.definition?.name, 'Checker');
    assert.strictEqual(agent.label, 'Checker');
    assert.match(tooltip(t, agent), /Definition: \*\*Checker\*\* from `.*checker\.md`/);
    await t.runtime.end(agent);
  });

  it('a scripted lead delegates to the definition by name: the child\'s node shows the name and the file, and a tool outside its list is refused', async () => {
    await waitFor(() => t.runtime.definitions.find('Checker') !== undefined, 'the Checker definition');
    const script = {
      version: 1,
      agents: {
        Lead: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { agent: 'Checker', prompt: 'Check the change' } }] }, { text: 'done' }]] },
        Checker: {
          turns: [[{ toolCalls: [{ name: 'create_file', arguments: { path: 'sneaky.txt', content: 'x' } }] }, { toolCalls: [{ name: 'list_files', arguments: {} }] }, { hang: true }]],
        },
      },
    };
    let child: Agent | undefined;
    const sub = t.runtime.onEvent((e) => {
      if (e.type === 'agent_added' && e.agent.label === 'Checker') child = e.agent;
    });
    const lead = t.startScripted(script, 'go', 'Lead');
    await waitFor(() => child !== undefined && toolResults(child).length === 2, 'the Checker to try both tools');
    sub.dispose();
    const [create, list] = toolResults(child!);
    assert.strictEqual(JSON.parse(create.content).code, 'TOOL_NOT_ALLOWED', create.content);
    assert.match(JSON.parse(create.content).message, /agent definition "Checker"/);
    assert.notStrictEqual(list.isError, true, 'a tool in its list runs');
    assert.ok(!fs.existsSync(path.join(folder(), 'sneaky.txt')), 'the refused tool changed nothing');
    assert.match(tooltip(t, child!), /Definition: \*\*Checker\*\* from `.*checker\.md`/);
    assert.strictEqual(String(t.tree.getTreeItem(child!).label), 'Checker');
    await t.treeView.reveal(child!, { select: false, focus: false });
    if (ui.available) assert.ok(await ui.pageHasText('Checker'), 'the user sees the child under its definition\'s name');
    await t.runtime.end(lead);
  });

  it('a broken definition file is a problem on that file, and is not used', async function () {
    // Written and fixed in the editor, as a user would: a save is read at once. (A file another
    // program writes is heard of by the editor's file watcher, which a cold editor may start
    // many seconds late; Run Agent... reads the files again either way.)
    const uri = vscode.Uri.file(path.join(agentsDir(), 'broken.md'));
    const create = new vscode.WorkspaceEdit();
    create.createFile(uri, { ignoreIfExists: true });
    assert.ok(await vscode.workspace.applyEdit(create), 'the new file is made in the editor');
    // Typed into an editor, as the user has it (it stays open for the fix below), then saved.
    const editor = await vscode.window.showTextDocument(uri);
    const doc = editor.document;
    assert.ok(await editor.edit((b) => b.replace(new vscode.Range(0, 0, doc.lineCount, 0), BROKEN)), 'the text is typed');
    // The web workbench also saves by itself a moment after typing: either save is a save, and
    // save() answers false when the other came first.
    await doc.save();
    await waitFor(() => !doc.isDirty && fs.readFileSync(uri.fsPath, 'utf8') === BROKEN, 'the file to be saved as typed');
    await waitFor(() => vscode.languages.getDiagnostics(uri).some((d) => /no tool named "delete_everything"/.test(d.message)), 'the diagnostic on the broken file');
    const [problem] = vscode.languages.getDiagnostics(uri);
    assert.strictEqual(problem.severity, vscode.DiagnosticSeverity.Error);
    assert.strictEqual(problem.range.start.line, 3, 'on the tools line');
    assert.strictEqual(t.runtime.definitions.find('Broken'), undefined);
    if (ui.available) {
      await vscode.commands.executeCommand('workbench.actions.view.problems');
      assert.ok(await ui.pageHasText('delete_everything'), 'the Problems view lists it');
      await ui.screenshot('definition-problem');
    }
    // The Problems view has the focus now: the fix goes into the document as an edit.
    const fix = new vscode.WorkspaceEdit();
    fix.replace(uri, new vscode.Range(0, 0, doc.lineCount, 0), BROKEN.replace(', delete_everything', ''));
    assert.ok(await vscode.workspace.applyEdit(fix), 'the fix is typed');
    await doc.save();
    await waitFor(() => vscode.languages.getDiagnostics(uri).length === 0 && t.runtime.definitions.find('Broken') !== undefined, 'the fixed file to be used and its problem to clear');
  });

  it('Arbor: New Agent Definition... writes a commented template that is a definition as it is, and opens it', async () => {
    const file = await vscode.commands.executeCommand<string>('arbor.newAgentDefinition', 'Scribe');
    assert.strictEqual(file, path.join(agentsDir(), 'scribe.md'));
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath === file, 'the new file to open');
    assert.match(vscode.window.activeTextEditor!.document.getText(), /^# tools: the only tools it may use/m);
    await waitFor(() => t.runtime.definitions.find('Scribe') !== undefined, 'the new definition to be read');
    assert.strictEqual(vscode.languages.getDiagnostics(vscode.Uri.file(file)).length, 0, 'the template has no problem');
  });

  it('a plan fills in live under a running agent and in its conversation view', async function () {
    const script = {
      version: 1,
      agents: {
        Planner: {
          // Each turn updates the plan, then works until it is stopped: the test moves it on, never a timer.
          turns: [
            [{ toolCalls: [plan('in_progress', 'pending', 'pending')] }, { hang: true }],
            [{ toolCalls: [plan('done', 'in_progress', 'pending')] }, { hang: true }],
          ],
        },
      },
    };
    const planner = t.startScripted(script, 'go', 'Planner');
    await waitFor(() => /0\/3 · read the code/.test(description(t, planner)), 'the node to show the first plan');
    assert.match(tooltip(t, planner), /▶ read the code[\s\S]*☐ write the tests/);
    if (ui.available) {
      await t.treeView.reveal(planner, { select: false, focus: false });
      assert.ok(await ui.pageHasText('0/3 · read the code'), 'the user sees the plan on the node');
      await vscode.commands.executeCommand('arbor.openConversation', planner);
      assert.ok(await ui.webviewHasText('Plan · 0/3 done', { within: 'read the code' }), 'the conversation view shows the plan');
    }
    // Stop ends its turn; its next turn (on a message) updates the plan.
    t.runtime.stop(planner);
    await waitFor(() => planner.status === 'idle', 'the planner to stop');
    t.runtime.sendFromUser(planner, 'go on');
    await waitFor(() => /1\/3 · write the tests/.test(description(t, planner)), 'the node to follow the new plan');
    if (ui.available) {
      assert.ok(await ui.webviewHasText('Plan · 1/3 done', { within: 'write the tests' }), 'the checklist updates in place');
      await ui.screenshot('plan-live');
    }
    await t.runtime.end(planner);
  });
});
