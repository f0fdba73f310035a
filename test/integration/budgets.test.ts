import * as assert from 'assert';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import { arborTesting, childNamed, turnEnds, waitFor } from './support';
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
      assert.deepStrictEqual(turnEnds(root), ['paused']);
      assert.ok(t.runtime.agents.isLive(root), 'a paused run is not killed');
      await waitFor(() => String(t.tree.getTreeItem(root).description).includes('run paused: budget spent'), 'the node to say the run is paused');

      assert.ok(await ui.pageHasText('"Budgeted" is paused', { timeoutMs: 20_000 }), 'the notification did not appear');
      await ui.clickNotificationButton('"Budgeted" is paused', 'Raise limit');

      await waitFor(() => said(root, 'Resumed after the raise'), 'the run to go on after Raise limit');
      assert.strictEqual(t.runtime.budgets.holdOf(root.run), undefined);
      assert.strictEqual(root.run.budget.limits.maxTokens, 200);
      assert.deepStrictEqual(turnEnds(root), ['paused', 'completed']);
    } finally {
      await t.runtime.end(root);
      await vscode.commands.executeCommand('notifications.clearAll');
    }
  });

  it('a spent slice pauses only its branch, and a real click on Raise limit on that node resumes it', async function () {
    ui.requireBrowser(this);
    this.timeout(120_000);
    const t = await arborTesting();
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.view.extension.arbor');
    const start = (label: string, budget?: unknown) => ({ name: 'start_subagent', arguments: { label, prompt: `work as ${label}`, ...(budget ? { budget } : {}) } });
    const root = t.startScripted(
      {
        version: 1,
        agents: {
          'Slice lead': { turns: [[{ toolCalls: [start('Sliced branch', { tokens: 100 }), start('Free sibling')], usage: { inputTokens: 0, outputTokens: 0 } }, { hang: true }]], afterLastTurn: 'repeat-last' },
          'Sliced branch': {
            turns: [
              [
                { toolCalls: [listAgents], usage: { inputTokens: 60, outputTokens: 0 } },
                { delayMs: 50, toolCalls: [listAgents], usage: { inputTokens: 50, outputTokens: 0 } },
                { text: 'never reached', usage: { inputTokens: 0, outputTokens: 0 } },
              ],
              [{ text: 'The branch goes on after its raise', usage: { inputTokens: 0, outputTokens: 0 } }],
            ],
          },
          'Free sibling': { turns: [[{ hang: true }]] },
        },
      },
      'give one branch its own budget',
      'Slice lead',
    );
    try {
      await waitFor(() => childNamed(t, root, 'Sliced branch') !== undefined && childNamed(t, root, 'Free sibling')?.status === 'running', 'both children to start');
      const branch = childNamed(t, root, 'Sliced branch')!;
      const sibling = childNamed(t, root, 'Free sibling')!;
      await waitFor(() => branch.status === 'idle' && branch.holds.some((h) => h.reason === 'slice'), 'the branch to pause');
      assert.deepStrictEqual(turnEnds(branch), ['paused']);
      assert.strictEqual(root.status, 'running', 'the lead goes on');
      assert.strictEqual(sibling.status, 'running', 'the sibling goes on');
      assert.strictEqual(t.runtime.budgets.holdOf(root.run), undefined, 'the run is not paused');
      await waitFor(() => String(t.tree.getTreeItem(branch).description).includes('branch paused: its budget spent'), 'the node to say its branch is paused');
      assert.match(String(t.tree.getTreeItem(branch).contextValue), /:slice$/);

      const raised: number[] = [];
      const listening = t.runtime.budgets.onEvent((e) => {
        if (e.type === 'slice_resumed' && e.agent === branch) raised.push(e.slice.limits.tokens);
      });
      await t.treeView.reveal(branch, { select: false, focus: false });
      await ui.clickInlineAction('Sliced branch', 'Raise limit');
      await waitFor(() => said(branch, 'The branch goes on after its raise'), 'the branch to go on after Raise limit');
      listening.dispose();
      // Its turn done, the branch may settle (and its slice close) at once: the raise's event says what it was raised to.
      assert.deepStrictEqual(raised, [200], 'its slice was raised, once');
      assert.strictEqual(root.run.budget.limits.maxTokens, 0, "the run's limits are as they were");
      assert.strictEqual(sibling.status, 'running', 'the sibling was not touched');
    } finally {
      await t.runtime.end(root);
      for (const agent of t.runtime.agents.all()) if (agent.run === root.run && agent.kind !== 'one-shot') await t.runtime.end(agent);
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
      await waitFor(() => root.run.budget.tokensUsed === 1234 && root.status === 'running', 'the run to use its tokens');
      const tooltip = (): string => {
        const value = t.usageBar.item.tooltip;
        return value instanceof vscode.MarkdownString ? value.value : String(value);
      };
      // The item is updated once per burst of events: wait for the update that includes this run.
      await waitFor(() => tooltip().includes('**Meter**: 1.2k tokens'), 'the status bar to count the run');
      assert.match(t.usageBar.item.text, /Arbor: [\d.]+k? tok · (\$[\d.]+ · )?[1-9]\d* running/);
      assert.strictEqual(t.usageBar.item.command, 'arbor.agents.focus');
      assert.ok(await ui.pageHasText(' tok · ', { timeoutMs: 20_000 }), 'the status bar item is not on the page');
    } finally {
      await t.runtime.end(root);
    }
  });
});
