import * as assert from 'assert';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import { arborTesting, turnEnds, waitFor } from './support';
import { ui } from './ui';

// Run budgets as a user meets them: a run that spends its budget is paused (not killed) and a
// notification offers Raise limit, clicked in the real workbench; the status bar shows usage.

const listAgents = { name: 'list_agents', arguments: {} };
const said = (agent: Agent, text: string): boolean => agent.log.events.some((e) => e.type === 'assistant_text' && e.text === text);

describe('Budgets', () => {
  it('a run that reaches 100% of its budget is paused, and Raise limit on the notification resumes it', async function () {
    ui.requireBrowser(this);
    this.timeout(120_000);
    const t = await arborTesting();
    await vscode.commands.executeCommand('notifications.clearAll');
    const root = t.startScripted(
      {
        version: 1,
        agents: {
          Budgeted: {
            turns: [
              [
                { toolCalls: [listAgents], usage: { inputTokens: 60, outputTokens: 0 } },
                { delayMs: 50, toolCalls: [listAgents], usage: { inputTokens: 50, outputTokens: 0 } },
                { text: 'never reached', usage: { inputTokens: 0, outputTokens: 0 } },
              ],
              [{ text: 'Resumed after the raise', usage: { inputTokens: 0, outputTokens: 0 } }],
            ],
          },
        },
      },
      'spend the budget',
      'Budgeted',
      'interactive',
      { maxTokens: 100 },
    );
    try {
      await waitFor(() => t.runtime.budgets.holdOf(root.run) !== undefined && root.status === 'idle', 'the run to pause');
      assert.deepStrictEqual(turnEnds(root), ['budget']);
      assert.ok(t.runtime.agents.isLive(root), 'a paused run is not killed');
      await waitFor(() => String(t.tree.getTreeItem(root).description).includes('run paused: budget spent'), 'the node to say the run is paused');

      assert.ok(await ui.pageHasText('"Budgeted" is paused', { timeoutMs: 20_000 }), 'the notification did not appear');
      await ui.clickNotificationButton('"Budgeted" is paused', 'Raise limit');

      await waitFor(() => said(root, 'Resumed after the raise'), 'the run to go on after Raise limit');
      assert.strictEqual(t.runtime.budgets.holdOf(root.run), undefined);
      assert.strictEqual(root.run.limits.maxTokens, 200);
      assert.deepStrictEqual(turnEnds(root), ['budget', 'completed']);
    } finally {
      await t.runtime.end(root);
      await vscode.commands.executeCommand('notifications.clearAll');
    }
  });

  it('the status bar shows what the running agents use', async function () {
    ui.requireBrowser(this);
    this.timeout(60_000);
    const t = await arborTesting();
    const root = t.startScripted(
      { version: 1, agents: { Meter: { turns: [[{ toolCalls: [listAgents], usage: { inputTokens: 1200, outputTokens: 34 } }, { hang: true }]] } } },
      'use some tokens',
      'Meter',
    );
    try {
      await waitFor(() => root.run.tokensUsed === 1234 && root.status === 'running', 'the run to use its tokens');
      const tooltip = (): string => {
        const value = t.usageBar.item.tooltip;
        return value instanceof vscode.MarkdownString ? value.value : String(value);
      };
      // The item is updated once per burst of events: wait for the update that includes this run.
      await waitFor(() => tooltip().includes('**Meter**: 1.2k tokens'), 'the status bar to count the run');
      assert.match(t.usageBar.text, /Arbor: [\d.]+k? tok · (\$[\d.]+ · )?[1-9]\d* running/);
      assert.strictEqual(t.usageBar.item.command, 'arbor.agents.focus');
      assert.ok(await ui.pageHasText(' tok · ', { timeoutMs: 20_000 }), 'the status bar item is not on the page');
    } finally {
      await t.runtime.end(root);
    }
  });
});
