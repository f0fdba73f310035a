import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, childNamed, waitFor } from './support';
import { ui } from './ui';
import { windowReload } from './windowReload';

// The extension host killed with SIGKILL in the middle of two turns (no deactivate, no last
// write, as a crash or an out-of-memory kill): the host the workbench starts next puts the tree
// back by itself, each turn that was in flight marked interrupted. The kill comes after the window
// reload of the other reload suites (windowReload.ts), so this suite runs in three hosts: it asks
// for the reload, starts its agents after it, and checks after the crash.

const SUITE = path.basename(__filename);
const STATE_KEY = 'crashRestore';
const LEAD = 'Crash lead';
const WORKER = 'Crash worker';

interface BeforeCrash {
  leadId: string;
  workerId: string;
}

const script = {
  version: 1,
  agents: {
    [LEAD]: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: WORKER, prompt: 'Index the repository.' } }] }, { hang: true }]] },
    [WORKER]: { turns: [[{ hang: true }]] },
  },
};

const description = (t: ArborTesting, agent: Agent): string => String(t.tree.getTreeItem(agent).description ?? '');

const phase = windowReload.phase();
if (phase === 'before') {
  describe('the Agents tree at an extension host crash', () => {
    it('asks for the window reload, after which it starts the turns the crash cuts short', function () {
      if (!windowReload.available) {
        if (this.test) Reflect.set(this.test, Symbol.for('arbor.test.skipReason'), windowReload.unavailableReason);
        this.skip();
      }
      windowReload.request(SUITE, STATE_KEY, {});
    });
  });
} else if (phase === 'after') {
  describe('the Agents tree at an extension host crash', function () {
    this.timeout(60_000);
    it('before the crash: a lead and its worker are each in the middle of a turn, and the crash is asked for', async () => {
      const t = await arborTesting();
      await t.restored;
      const lead = t.startScripted(script, 'Index everything.', LEAD);
      await waitFor(() => childNamed(t, lead, WORKER)?.status === 'running' && lead.status === 'running', 'the lead and its worker both mid-turn');
      const worker = childNamed(t, lead, WORKER)!;
      // What a crash leaves is what was written before it: the records are written a moment after
      // each change; the test waits for that write rather than for the moment to pass.
      await t.runtime.liveRecords?.flush();
      windowReload.requestCrash(SUITE, STATE_KEY, { leadId: lead.id, workerId: worker.id } satisfies BeforeCrash);
    });
  });
} else {
  describe('the Agents tree after an extension host crash', function () {
    this.timeout(120_000);
    let t: ArborTesting;
    let recorded: BeforeCrash;

    before(async () => {
      t = await arborTesting();
      recorded = windowReload.state<BeforeCrash>(STATE_KEY)!;
      assert.ok(recorded?.leadId, 'the phase before the crash left no state');
      await t.restored;
    });
    after(async () => {
      const lead = t?.runtime.agents.get(recorded?.leadId ?? '');
      if (lead) await t.runtime.end(lead);
    });

    it('puts the lead and its worker back by themselves, each turn that was in flight marked interrupted', async () => {
      const lead = t.runtime.agents.get(recorded.leadId);
      assert.ok(lead && t.tree.getChildren().includes(lead), 'the lead is back at the top of the Agents view');
      const worker = t.runtime.agents.get(recorded.workerId);
      assert.ok(worker && t.tree.getChildren(lead).includes(worker), 'its worker is back under it');
      for (const agent of [lead, worker]) {
        assert.strictEqual(agent.status, 'idle', `${agent.label} runs no turn until it is resumed`);
        await waitFor(() => /interrupted \(window closed\)/.test(description(t, agent)), `${agent.label}'s row to say it was interrupted: ${description(t, agent)}`);
      }
      if (ui.available) {
        await vscode.commands.executeCommand('arbor.agents.focus');
        assert.ok(await ui.pageHasText(LEAD), 'the lead row is on screen');
        await ui.screenshot('tree-after-crash');
      }
    });
  });
}
