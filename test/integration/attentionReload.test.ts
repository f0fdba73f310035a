import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ArborTesting } from '../../src/extension/extension';
import { isWaitingNode } from '../../src/extension/attention/waitingNode';
import { arborTesting, waitFor } from './support';
import { ui } from './ui';
import { windowReload } from './windowReload';

// What waits on the human survives a window reload: a run paused at its budget before the
// reload is listed in Waiting for you again once the tree is put back, and is let go on from there.
// This suite runs after the others of its phase (index.ts): their cleanup would end its agent.

const SUITE = path.basename(__filename);
const STATE_KEY = 'attentionReload';
const LABEL = 'Paused over the reload';

interface BeforeReload {
  agentId: string;
}

const spender = {
  version: 1,
  agents: { [LABEL]: { turns: [[{ toolCalls: [{ name: 'list_agents', arguments: {} }], usage: { inputTokens: 400, outputTokens: 400 } }, { text: 'done' }]] } },
};

if (windowReload.phase() === 'before') {
  describe('Waiting for you at a window reload', function () {
    this.timeout(60_000);

    it('before the reload: a run paused at its budget waits in the inbox, and the reload is asked for', async function () {
      if (!windowReload.available) {
        if (this.test) Reflect.set(this.test, Symbol.for('arbor.test.skipReason'), windowReload.unavailableReason);
        this.skip();
      }
      const t = await arborTesting();
      const agent = t.startScripted(spender, 'Spend your budget.', LABEL, 'interactive', { maxTokens: 100 });
      await waitFor(() => t.attention.queue.items().some((i) => i.kind === 'budget' && i.agentId === agent.id), 'the pause in the inbox');
      windowReload.request(SUITE, STATE_KEY, { agentId: agent.id } satisfies BeforeReload);
    });
  });
} else {
  describe('Waiting for you after a window reload', function () {
    this.timeout(120_000);
    let t: ArborTesting;
    let recorded: BeforeReload;

    before(async () => {
      t = await arborTesting();
      recorded = windowReload.state<BeforeReload>(STATE_KEY)!;
      assert.ok(recorded, 'the first phase left no state');
      await vscode.commands.executeCommand('workbench.view.extension.arbor');
    });
    after(async () => {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      const agent = t?.runtime.agents.get(recorded?.agentId ?? '');
      if (agent) await t.runtime.end(agent);
    });

    it('the paused run is listed again once the tree is put back, and Raise limit from its row lets it go on', async function () {
      ui.requireBrowser(this);
      await t.restored;
      const waiting = () => t.attention.queue.items().find((i) => i.agentId === recorded.agentId);
      await waitFor(() => waiting()?.kind === 'budget', 'the pause to be listed again');
      const [section] = t.tree.getChildren();
      assert.ok(section && isWaitingNode(section), 'the section is at the top of the view again');
      assert.ok(t.tree.getChildren(section).some((n) => 'label' in n && n.label === LABEL), 'its row names the paused run');
      assert.ok(await ui.pageHasText('run paused at its budget'), 'the row is on screen');
      // A click that lands while the view repaints its rows (another suite's agents ending a moment
      // ago) runs a command of the rows it replaced and is lost, as it would be for a person: click again.
      let asks = false;
      for (let click = 0; click < 3 && !asks; click++) {
        // Such a click can land on the section's own row and fold it: open it again before clicking.
        const [current] = t.tree.getChildren();
        if (current) await t.treeView.reveal(current, { select: false, focus: false, expand: true });
        await ui.clickRow('run paused at its budget');
        asks = await ui.pageHasText('Raise limit', { timeoutMs: 4_000 });
      }
      assert.ok(asks, 'the row asks what to do');
      await ui.pressKeys('Enter');
      await waitFor(() => waiting() === undefined, 'the raise to take the item off');
      const agent = t.runtime.agents.get(recorded.agentId)!;
      assert.strictEqual(t.runtime.budgets.holdOf(agent.run), undefined, 'the run goes on');
    });
  });
}
