import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import type { LocalAgentConfig } from '../../src/core/external';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, EXTENSION_ID, turnEnds, waitFor } from './support';
import { ui } from './ui';

/** An external agent's subagents in the real Agents view: nested under it, each with a Stop that reaches only that child. */
describe("External agents' subagents (the ACP test agent in the real extension host)", function () {
  this.timeout(120_000);
  let t: ArborTesting;

  before(async () => {
    t = await arborTesting();
  });
  afterEach(async () => {
    for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
    await waitFor(() => t.runtime.agents.size === 0, 'every agent to end');
  });
  after(async () => {
    await vscode.workspace.getConfiguration('arbor').update('externalAgents', undefined, vscode.ConfigurationTarget.Global);
  });

  /**
   * Brings a subagent's row on screen. A reveal asked before the page took the repaint that gave
   * its parent's row children leaves the parent collapsed, so it is asked again until the page
   * shows the row.
   */
  async function showRow(agent: Agent): Promise<void> {
    const deadline = Date.now() + 20_000;
    await t.treeView.reveal(agent, { select: true, focus: false });
    while ((await ui.rowLabel(agent.label)) === null) {
      if (Date.now() > deadline) throw new Error(`the row "${agent.label}" is not on screen after its reveal`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await t.treeView.reveal(agent, { select: true, focus: false });
    }
  }

  it("a real click on one subagent's inline Stop sends session/cancel for that child only: it stops, its sibling and its parent work on", async function () {
    ui.requireBrowser(this);
    const received = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-children-')), 'received.log');
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    const config: LocalAgentConfig = { name: 'Test Agent', command: process.execPath, args: [path.join(extension.extensionPath, 'test/fixtures/acp-test-agent/agent.mjs')], env: { ACP_TEST_AGENT_LOG: received }, secretEnv: [] };
    await vscode.workspace.getConfiguration('arbor').update('externalAgents', [config], vscode.ConfigurationTarget.Global);
    await waitFor(() => (t.externalAgents.settings.list()[0] as LocalAgentConfig | undefined)?.env.ACP_TEST_AGENT_LOG === received, 'the setting to be read');
    await vscode.commands.executeCommand('workbench.view.extension.arbor');
    const parent = await t.externalAgents.run(t.externalAgents.settings.list()[0], 'subagents: Alpha, Beta');
    assert.ok(parent);
    const child = (label: string) => t.runtime.agents.childrenOf(parent).find((a) => a.label === label);
    await waitFor(() => child('Alpha')?.status === 'running' && child('Beta')?.status === 'running', 'both subagents at work', 60_000);
    const alpha = child('Alpha')!;
    const beta = child('Beta')!;
    await waitFor(() => t.tree.getChildren(parent).includes(alpha), 'Alpha nested under its agent');
    await showRow(alpha);
    await ui.clickInlineAction('Alpha', 'Stop');
    await waitFor(() => turnEnds(alpha).length === 1, "Alpha's turn to end", 60_000);
    assert.deepStrictEqual(turnEnds(alpha), ['aborted:user']);
    const cancels = fs.readFileSync(received, 'utf8').trim().split('\n');
    assert.strictEqual(cancels.length, 1, cancels.join('\n'));
    assert.match(cancels[0], /^session\/cancel \S+\/Alpha$/, 'the cancel named Alpha\'s session');
    assert.strictEqual(beta.status, 'running', 'its sibling works on');
    assert.strictEqual(parent.status, 'running', 'its parent works on');
    await waitFor(() => /· stopped/.test(String(t.tree.getTreeItem(alpha).description)), "Alpha's row to say stopped");
    await ui.screenshot('external-subagent-stopped');
  });
});
