import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, toolResults, turnEnds, waitFor } from './support';
import { ui } from './ui';

/** What the test extension (test/fixtures/tool-extension) exports: what its tool saw. */
interface ToolExtensionExports {
  invocations: Array<{ text: string; wait_for_cancel?: boolean }>;
  cancellations: Array<{ text: string }>;
}

const TOOL = 'arbor_test_echo';
const callTool = (label: string, input: Record<string, unknown>) => ({
  version: 1,
  agents: { [label]: { turns: [[{ toolCalls: [{ name: TOOL, arguments: input }] }, { text: 'done' }]] } },
});

describe('Tools other extensions contribute (vscode.lm.tools)', function () {
  this.timeout(90_000);
  let t: ArborTesting;
  let seen: ToolExtensionExports;
  const config = () => vscode.workspace.getConfiguration('arbor');

  before(async () => {
    t = await arborTesting();
    const extension = vscode.extensions.getExtension<ToolExtensionExports>('arbor-test.arbor-test-tools');
    assert.ok(extension, 'the test extension that contributes a tool is loaded beside Arbor');
    seen = await extension.activate();
  });
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
    for (const rule of t.approvalRules.rules()) await t.approvalRules.remove(rule);
  });
  after(async () => {
    await config().update('tools.vscode', undefined, vscode.ConfigurationTarget.Global);
    // The runs' "done" toasts would cover later suites' buttons.
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('offers none by default, and the tool once the setting names its tag', async () => {
    await waitFor(() => vscode.lm.tools.some((tool) => tool.name === TOOL), `${TOOL} in vscode.lm.tools`);
    assert.ok(!t.vscodeTools.names().includes(TOOL), 'not offered while the setting is "none"');
    await config().update('tools.vscode', ['arbor-test'], vscode.ConfigurationTarget.Global);
    await waitFor(() => t.vscodeTools.names().includes(TOOL), 'the tool to be offered');
    const agent = t.startScripted({ version: 1, agents: { Probe: { turns: [[{ text: 'done' }]] } } }, 'look', 'Probe');
    const spec = t.runtime.toolSpecs(agent).find((s) => s.name === TOOL);
    assert.ok(spec, 'the model is offered the tool');
    assert.deepStrictEqual(Object.keys((spec.parameters as { properties: object }).properties), ['text', 'wait_for_cancel'], "with the tool's own schema");
  });

  it('an interactive agent asks before the call with the whole input, and the result shows in the transcript and the conversation view', async () => {
    await config().update('tools.vscode', [TOOL], vscode.ConfigurationTarget.Global);
    await waitFor(() => t.vscodeTools.names().includes(TOOL), 'the tool to be offered');
    const agent = t.startScripted(callTool('ToolUser', { text: 'hello from Arbor' }), 'use the tool', 'ToolUser');
    await waitFor(() => t.runtime.interaction.pending().some((p) => p.agent?.id === agent.id), 'the approval prompt');
    const prompt = t.runtime.interaction.pending().find((p) => p.agent?.id === agent.id)!;
    assert.match(prompt.detail ?? '', /arbor_test_echo \{\n {2}"text": "hello from Arbor"\n\}/, 'the prompt shows the whole input');
    assert.strictEqual(seen.invocations.length, 0, 'nothing ran before the answer');
    await waitFor(() => t.observed.prompts.some((o) => o.agentId === agent.id), 'the quick pick');
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem'); // Allow once
    await agent.whenIdle();
    assert.deepStrictEqual(seen.invocations.at(-1), { text: 'hello from Arbor' });
    assert.strictEqual(toolResults(agent)[0].content, 'echo: hello from Arbor\n(from the test extension)');
    const transcript = t.transcripts.provideTextDocumentContent(t.transcripts.uriFor(agent));
    assert.ok(transcript.includes(`**Tool result** \`${TOOL}\``) && transcript.includes('echo: hello from Arbor'), 'the transcript shows the result');
    if (ui.available) {
      await vscode.commands.executeCommand('arbor.openConversation', agent.id);
      try {
        await ui.webviewHasText(TOOL, { within: 'ToolUser' });
      } catch {
        // The workbench can leave a new webview blank while its frame waits for the webview
        // service worker of an earlier view ("Waiting for controllerchange"); a person closes the
        // tab and opens the conversation again.
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
        await vscode.commands.executeCommand('arbor.openConversation', agent.id);
      }
      assert.ok(await ui.webviewHasText(TOOL, { within: 'ToolUser' }), 'the conversation view shows the call');
      await ui.webviewClick('.tool > summary', { within: 'ToolUser' }); // opens the call's details
      assert.ok(await ui.webviewHasText('echo: hello from Arbor', { within: 'ToolUser' }), 'the conversation view shows the result');
      // Only this view: another suite keeps its own view open across a window reload.
      t.conversations.close(agent.id);
    }
  });

  it('an unattended run is denied the tool without a prompt unless a "tool:" rule allows it', async () => {
    await config().update('tools.vscode', 'all', vscode.ConfigurationTarget.Global);
    await waitFor(() => t.vscodeTools.names().includes(TOOL), 'the tool to be offered');
    assert.ok(vscode.lm.tools.some((tool) => tool.name === 'arbor_run_agent'), "Arbor's own tool is in vscode.lm.tools");
    assert.ok(!t.vscodeTools.names().some((name) => name.startsWith('arbor_') && name !== TOOL), "but never offered back to Arbor's agents");
    const calls = seen.invocations.length;
    const denied = t.startScripted(callTool('Night', { text: 'unattended' }), 'go', 'Night', 'autonomous');
    await denied.whenIdle();
    const result = JSON.parse(toolResults(denied)[0].content) as Record<string, unknown>;
    assert.deepStrictEqual([result.code, result.subject, result.rule_that_would_allow], ['APPROVAL_DENIED', TOOL, `tool: ${TOOL}`]);
    assert.strictEqual(seen.invocations.length, calls, 'the tool never ran');

    await t.approvalRules.remember({ kind: 'tool', pattern: 'arbor_test_*' }, 'workspace');
    const allowed = t.startScripted(callTool('Night', { text: 'unattended' }), 'go', 'Night', 'autonomous');
    await allowed.whenIdle();
    assert.strictEqual(toolResults(allowed)[0].content, 'echo: unattended\n(from the test extension)');
  });

  it("Stop cancels the tool's invocation through its cancellation token", async () => {
    await config().update('tools.vscode', [TOOL], vscode.ConfigurationTarget.Global);
    await waitFor(() => t.vscodeTools.names().includes(TOOL), 'the tool to be offered');
    await t.approvalRules.remember({ kind: 'tool', pattern: TOOL }, 'workspace');
    const agent = t.startScripted(callTool('Waiter', { text: 'until stopped', wait_for_cancel: true }), 'go', 'Waiter');
    await waitFor(() => seen.invocations.some((i) => i.text === 'until stopped'), 'the invocation to start');
    t.runtime.stop(agent);
    await waitFor(() => seen.cancellations.some((i) => i.text === 'until stopped'), 'the tool to see the cancellation');
    await waitFor(() => turnEnds(agent).length === 1, 'the turn to end');
    assert.deepStrictEqual(turnEnds(agent), ['aborted:user']);
  });
});
