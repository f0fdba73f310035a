import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
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
    // The command whole, to its last character, then what the sandbox lets it touch.
    const after = shown.text.slice(shown.text.indexOf(command) + command.length);
    assert.ok(/^(\n| — )/.test(after), `the preview holds the command to its tail, then ends the line or says how it runs (got ${JSON.stringify(after.slice(0, 40))})`);
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

const commandRun = (command: string) => ({ name: 'run_command', arguments: { command } });

/** The JSON results of an agent's tool calls, in order. */
function results(agent: Parameters<typeof toolResults>[0]): Array<Record<string, unknown>> {
  return toolResults(agent).map((r) => JSON.parse(r.content) as Record<string, unknown>);
}

describe('Approval rules in the editor', function () {
  this.timeout(90_000);
  let t: ArborTesting;
  let workspace: string;

  before(async () => {
    t = await arborTesting();
    workspace = t.runtime.workspaceFolder ?? assert.fail('the integration workspace has a folder');
  });
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
    await vscode.workspace.getConfiguration('arbor').update('approvals.rules', undefined, vscode.ConfigurationTarget.Global);
    for (const rule of t.approvalRules.rules()) await t.approvalRules.remove(rule);
  });
  after(async () => {
    // The runs' "done" toasts and the setting's warning would cover later suites' buttons.
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it("an unattended run's command is denied without a prompt unless a rule in the setting allows it; an invalid entry is named and ignored", async () => {
    const script = { version: 1, agents: { Nightly: { turns: [[{ toolCalls: [commandRun('echo ok > by-rule.txt'), commandRun('echo no > no-rule.txt')] }, { text: 'done' }]] } } };
    const opened = t.observed.prompts.length;
    const first = t.startScripted(script, 'nightly chores', 'Nightly', 'autonomous');
    await first.whenIdle();
    assert.deepStrictEqual(results(first).slice(0, 2).map((r) => r.status), ['denied', 'denied'], 'no rule yet: both denied');
    assert.strictEqual(results(first)[0].rule_that_would_allow, 'command: echo ok > by-rule.txt');
    assert.match(String(results(first)[0].reason), /unattended/);

    await vscode.workspace
      .getConfiguration('arbor')
      .update('approvals.rules', ['command: echo ok > by-rule.txt', 'run: rm -rf ~'], vscode.ConfigurationTarget.Global);
    await waitFor(() => t.approvalRules.rules().some((r) => r.scope === 'setting'), 'the setting to be read');
    assert.deepStrictEqual(t.approvalRules.rules().map((r) => `${r.scope} ${r.kind}: ${r.pattern}`), ['setting command: echo ok > by-rule.txt'], 'the invalid entry is ignored');
    if (ui.available) assert.ok(await ui.pageHasText('ignoring the rule "run: rm -rf ~"'), 'the invalid entry is named in a message');

    const second = t.startScripted(script, 'nightly chores', 'Nightly', 'autonomous');
    await second.whenIdle();
    const [allowed, denied] = results(second);
    assert.strictEqual(allowed.exit_code, 0, 'the rule lets the unattended run act');
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'by-rule.txt'), 'utf8').trim(), 'ok');
    assert.deepStrictEqual([denied.status, denied.code, denied.subject], ['denied', 'APPROVAL_DENIED', 'echo no > no-rule.txt']);
    assert.ok(!fs.existsSync(path.join(workspace, 'no-rule.txt')), 'what no rule covers never ran');
    // The reply's two calls are decided side by side: their approvals are recorded as each is decided.
    const decisions = second.log.events.flatMap((e) => (e.type === 'approval' ? [`${e.decision} ${e.rule ?? ''}`.trim()] : [])).sort();
    assert.deepStrictEqual(decisions, ['allow-rule command: echo ok > by-rule.txt', 'deny']);
    assert.strictEqual(t.observed.prompts.length, opened, 'no prompt ever opened for the unattended run');
    fs.rmSync(path.join(workspace, 'by-rule.txt'), { force: true });
  });

  it('"Allow for this workspace" in the prompt remembers the exact command, which an unattended run may then use', async () => {
    const command = 'echo remembered > remembered.txt';
    const interactive = t.startScripted({ version: 1, agents: { Asker: { turns: [[{ toolCalls: [commandRun(command)] }, { text: 'done' }]] } } }, 'go', 'Asker');
    await waitFor(() => t.runtime.interaction.pending().some((p) => p.agent?.id === interactive.id), 'the approval prompt');
    const prompt = t.runtime.interaction.pending().find((p) => p.agent?.id === interactive.id)!;
    assert.deepStrictEqual(
      prompt.questions[0].options.map((o) => o.label),
      ['Allow once', 'Allow for this agent', 'Allow for this agent and the agents it starts', 'Allow for this workspace', 'Allow always', 'Deny', 'Deny, and tell it why'],
    );
    await waitFor(() => t.observed.prompts.some((o) => o.agentId === interactive.id), 'the quick pick');
    // The fourth option, as a person would pick it with the keyboard.
    await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
    await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
    await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await interactive.whenIdle();
    assert.deepStrictEqual(t.approvalRules.rules().map((r) => [r.scope, r.kind, r.pattern]), [['workspace', 'command', command]]);

    const unattended = t.startScripted({ version: 1, agents: { Later: { turns: [[{ toolCalls: [commandRun(command)] }, { text: 'done' }]] } } }, 'go', 'Later', 'autonomous');
    await unattended.whenIdle();
    assert.strictEqual(results(unattended)[0].exit_code, 0);
    fs.rmSync(path.join(workspace, 'remembered.txt'), { force: true });
  });

  it('Manage Approvals lists each rule with its scope and removes one when you select it and confirm', async () => {
    await t.approvalRules.remember({ kind: 'command', pattern: 'npm run lint' }, 'workspace');
    await t.approvalRules.remember({ kind: 'edit', pattern: 'src/**' }, 'user');
    await vscode.commands.executeCommand('arbor.manageApprovals');
    await waitFor(() => (t.manageApprovals.current?.items.length ?? 0) > 0, 'the list');
    const listed = t.manageApprovals.current!.items.filter((i) => i.rule).map((i) => [i.label, i.description]);
    assert.deepStrictEqual(listed, [
      ['command: npm run lint', 'this workspace'],
      ['edit: src/**', 'always (every workspace)'],
    ]);
    if (ui.available) assert.ok(await ui.pageHasText('Exactly "npm run lint" without asking'), 'the list is on screen');
    // The first rule is active: select it, then confirm the removal.
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await waitFor(() => t.manageApprovals.current === undefined && t.manageApprovals.confirmation !== undefined, 'the list to give way to the confirmation');
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await waitFor(() => !t.approvalRules.rules().some((r) => r.pattern === 'npm run lint'), 'the rule to be removed');
    assert.deepStrictEqual(t.approvalRules.rules().map((r) => r.pattern), ['src/**'], 'only that rule is gone');
  });

  it("Manage Approvals' trash button revokes a rule, and the list updates in place", async function () {
    ui.requireBrowser(this);
    await t.approvalRules.remember({ kind: 'command', pattern: 'npm run revoke-me' }, 'workspace');
    await vscode.commands.executeCommand('arbor.manageApprovals');
    assert.ok(await ui.pageHasText('command: npm run revoke-me'), 'the rule is listed');
    await ui.clickInlineAction('command: npm run revoke-me', 'Remove rule');
    await waitFor(() => t.approvalRules.rules().length === 0, 'the rule to be removed');
    await waitFor(() => !(t.manageApprovals.current?.items ?? []).some((i) => i.rule), 'the list to drop it');
    assert.ok(t.manageApprovals.current, 'the list stays open');
    assert.strictEqual(t.manageApprovals.current.placeholder, 'No approval rules yet');
    assert.ok(await ui.pageHasText('"Allow for this workspace" or "Allow always" adds one'), 'the empty state says how rules are made');
    await ui.screenshot('manage-approvals-empty');
  });
});
