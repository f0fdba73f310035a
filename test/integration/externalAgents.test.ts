import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import type { LocalAgentConfig } from '../../src/core/external';
import type { ArborTesting } from '../../src/extension/extension';
import type { ChangedFileNode, FileUndoOutcome, ReviewOpened } from '../../src/extension/review';
import { arborTesting, runFromPalette, EXTENSION_ID, turnEnds, waitFor } from './support';
import { ui } from './ui';


describe('External agents (the ACP test agent in the real extension host)', function () {
  this.timeout(120_000);
  let t: ArborTesting;
  let config: LocalAgentConfig;

  before(async () => {
    t = await arborTesting();
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    config = { name: 'Test Agent', command: process.execPath, args: [path.join(extension.extensionPath, 'test/fixtures/acp-test-agent/agent.mjs')], env: {}, secretEnv: [] };
  });
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    for (const agent of t.runtime.agents.all()) {
      await t.runtime.changes.keepAll(agent.id);
      if (agent.kind !== 'one-shot') await t.runtime.end(agent);
    }
    await waitFor(() => t.runtime.agents.size === 0, 'every agent to end');
  });
  after(async () => {
    await vscode.workspace.getConfiguration('arbor').update('externalAgents', undefined, vscode.ConfigurationTarget.Global);
  });

  /** Runs the test agent from the palette on `task`, typed as a person would; returns the agent it started. */
  async function runTestAgentFromPalette(task: string, env: Record<string, string> = {}): Promise<Agent> {
    await vscode.workspace.getConfiguration('arbor').update('externalAgents', [{ ...config, env }], vscode.ConfigurationTarget.Global);
    await waitFor(() => JSON.stringify((t.externalAgents.settings.list()[0] as LocalAgentConfig | undefined)?.env) === JSON.stringify(env), 'the setting to be read');
    const before = new Set(t.runtime.agents.all().map((a) => a.id));
    await runFromPalette('Arbor: Start External Agent');
    // The pick lists each agent with its command line.
    assert.ok(await ui.pageHasText('acp-test-agent/agent.mjs'), 'the agents are offered');
    await ui.pressKeys('Enter'); // the only one: Test Agent
    assert.ok(await ui.pageHasText('The task for the agent'), 'the task box opened');
    await ui.typeText(task);
    await ui.pressKeys('Enter');
    await waitFor(() => t.runtime.agents.all().some((a) => !before.has(a.id)), 'the external agent to start');
    const agent = t.runtime.agents.all().find((a) => !before.has(a.id))!;
    assert.strictEqual(agent.kind, 'root');
    assert.strictEqual(agent.log.header.external, 'Test Agent');
    return agent;
  }

  it('a user runs the test agent from the palette, allows its edit by keyboard, reviews the diff, and Undo puts the file back', async function () {
    ui.requireBrowser(this);
    const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const relative = 'external/greeting.txt';
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'hello\n');
    try {
      const agent = await runTestAgentFromPalette(`write: ${relative} = hello from the test agent`);
      await waitFor(() => t.observed.prompts.some((o) => o.agentId === agent.id), 'the approval prompt', 60_000);
      assert.ok(await ui.pageHasText('Allow once'), 'the approval is on screen');
      // The preview shows the edit as it changes the file now (the test agent claims the file is new).
      await waitFor(() => t.observed.previews.some((p) => p.text.includes('+hello from the test agent')), 'the preview of the edit');
      const shown = t.observed.previews.find((p) => p.text.includes('+hello from the test agent'))!.text;
      assert.ok(shown.includes(`--- a/${relative}`) && shown.includes('-hello\n'), `the diff is made from the file's text: ${shown}`);
      await ui.pressKeys('Enter'); // Allow once, the first option
      await waitFor(() => turnEnds(agent).length === 1, 'the turn to end', 60_000);
      assert.deepStrictEqual(turnEnds(agent), ['completed']);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), 'hello from the test agent\n', 'the allowed edit is written');
      const decisions = agent.log.events.flatMap((e) => (e.type === 'approval' ? [e.decision] : []));
      assert.deepStrictEqual(decisions, ['allow-once'], 'one question for one edit');

      const rows = (): ChangedFileNode[] => t.tree.getChildren(agent).filter((n): n is ChangedFileNode => 'sessionId' in n);
      await waitFor(() => rows().length === 1, "the changed file under the agent's node");
      assert.strictEqual(rows()[0].path, relative);
      assert.strictEqual(await vscode.commands.executeCommand<ReviewOpened>('arbor.reviewChanges', rows()[0]), 'diff-editors');
      await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff, 'the diff editor');
      const input = vscode.window.tabGroups.activeTabGroup.activeTab!.input as vscode.TabInputTextDiff;
      assert.strictEqual(input.modified.fsPath, file);
      assert.strictEqual((await vscode.workspace.openTextDocument(input.original)).getText(), 'hello\n', 'the left side is the file before the agent');
      assert.ok(await ui.pageHasText('hello from the test agent'), 'the diff is on screen');
      await ui.screenshot('external-agent-review');

      assert.strictEqual(await vscode.commands.executeCommand<FileUndoOutcome>('arbor.undoFileChange', rows()[0]), 'undone');
      await waitFor(() => fs.readFileSync(file, 'utf8') === 'hello\n', 'the original back on disk');
      assert.deepStrictEqual(await t.runtime.changes.list(agent.id), []);
    } finally {
      await vscode.window.tabGroups.close(vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((tab) => tab.input instanceof vscode.TabInputTextDiff || (tab.input instanceof vscode.TabInputText && tab.input.uri.fsPath === file)));
      fs.rmSync(path.join(root, 'external'), { recursive: true, force: true });
    }
  });

  it('a real click on its inline Stop mid-turn sends session/cancel: the turn ends aborted by the user and the row says stopped', async function () {
    ui.requireBrowser(this);
    await vscode.commands.executeCommand('workbench.view.extension.arbor');
    const received = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-')), 'received.log');
    const agent = await runTestAgentFromPalette('hang', { ACP_TEST_AGENT_LOG: received });
    await waitFor(() => agent.log.events.some((e) => e.type === 'assistant_text' && e.text.includes('Working until cancelled')), 'the agent to be at work', 60_000);
    assert.strictEqual(agent.status, 'running');
    await t.treeView.reveal(agent, { select: false, focus: false });
    await ui.clickInlineAction('Test Agent', 'Stop');
    await waitFor(() => turnEnds(agent).length === 1, 'the turn to end', 60_000);
    assert.deepStrictEqual(turnEnds(agent), ['aborted:user'], 'the click stopped it, and the agent ended its turn on session/cancel');
    assert.match(fs.readFileSync(received, 'utf8'), /^session\/cancel \S+$/m, 'the process received session/cancel');
    assert.ok(t.runtime.agents.isLive(agent), 'it keeps its conversation');
    await waitFor(() => /· stopped/.test(String(t.tree.getTreeItem(agent).description)), 'the node to say stopped');
  });

  it("Resume on an external agent's History entry reopens its session through session/load, and the conversation continues", async () => {
    const kept = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-sessions-'));
    const env = { ACP_TEST_AGENT_SESSIONS: kept };
    await vscode.workspace.getConfiguration('arbor').update('externalAgents', [{ ...config, env }], vscode.ConfigurationTarget.Global);
    await waitFor(() => JSON.stringify((t.externalAgents.settings.list()[0] as LocalAgentConfig | undefined)?.env) === JSON.stringify(env), 'the setting to be read');
    const first = await t.externalAgents.run(t.externalAgents.settings.list()[0], 'say: remember the pears');
    assert.ok(first);
    await waitFor(() => turnEnds(first).length === 1, 'the first turn to end', 60_000);
    const id = first.id;
    await t.runtime.end(first);
    await first.log.flush();

    assert.strictEqual(await vscode.commands.executeCommand<string>('arbor.resumeSession', id), id, 'Resume brought the session back');
    const resumed = t.runtime.agents.get(id)!;
    assert.ok(resumed?.engine, 'as an external agent');
    t.runtime.sendFromUser(resumed, 'recall');
    await waitFor(() => turnEnds(resumed).length === 2, 'the resumed turn to end', 60_000);
    assert.deepStrictEqual(turnEnds(resumed), ['completed', 'completed']);
    assert.strictEqual(resumed.lastTurnEnd?.finalText, 'I remember: say: remember the pears', 'the agent continued its own conversation');
    assert.ok(resumed.log.events.some((e) => e.type === 'assistant_text' && e.text.includes('reopens its session (session/load)')), 'the transcript says it was loaded');
    fs.rmSync(kept, { recursive: true, force: true });
  });

  it('a scripted Arbor agent delegates to the test agent with start_external_agent and gets its report', async () => {
    await vscode.workspace.getConfiguration('arbor').update('externalAgents', [config], vscode.ConfigurationTarget.Global);
    await waitFor(() => t.externalAgents.settings.list().length === 1, 'the setting to be read');
    const lead = t.startScripted(
      {
        version: 1,
        agents: {
          Lead: {
            turns: [[{ toolCalls: [{ name: 'start_external_agent', arguments: { agent: 'Test Agent', task: 'say: report from outside' } }] }, { text: 'delegated' }], [{ text: 'thanks' }]],
          },
        },
      },
      'delegate',
      'Lead',
    );
    await waitFor(() => lead.log.events.some((e) => e.type === 'user_message' && e.from === 'child' && e.text.includes('report from outside')), 'the report to reach the lead', 60_000);
    const child = t.runtime.agents.childrenOf(lead).find((a) => a.engine);
    assert.ok(child, 'the external agent is a child of the lead in the tree');
    assert.strictEqual(child.kind, 'continuable');
  });
});
