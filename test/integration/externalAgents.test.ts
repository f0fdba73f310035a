import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ExternalAgentConfig } from '../../src/core/external';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, EXTENSION_ID, waitFor } from './support';


describe('External agents (the ACP test agent in the real extension host)', function () {
  this.timeout(120_000);
  let t: ArborTesting;
  let config: ExternalAgentConfig;

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
