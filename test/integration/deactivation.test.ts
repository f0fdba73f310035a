import * as assert from 'assert';
import * as vscode from 'vscode';
import { arborTesting, waitFor } from './support';

// Tears Arbor down as deactivation does, so the mocha entry (index.ts) runs it after every other suite.
describe('Deactivation', function () {
  this.timeout(30_000);

  it('aborts every running turn, disposes every agent and leaves nothing running', async () => {
    const t = await arborTesting();
    const hanging = t.startScripted(
      {
        version: 1,
        agents: {
          Lead: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Busy', prompt: 'x' } }, { name: 'delegate_task', arguments: { label: 'Once', prompt: 'y' } }] }]] },
          Busy: { turns: [[{ hang: true }]] },
          Once: { turns: [[{ hang: true }]] },
        },
      },
      'go',
      'Lead',
    );
    await waitFor(() => t.runtime.agents.all().filter((a) => a.status === 'running').length >= 3, 'three running agents');
    const live = t.runtime.agents.all();
    t.deactivate();
    assert.strictEqual(t.runtime.isDisposed, true);
    assert.strictEqual(t.runtime.agents.size, 0, 'no agent is left in the registry');
    assert.ok(live.every((a) => a.disposed), 'every agent was disposed');
    await Promise.all(live.map((a) => a.whenIdle()));
    assert.ok(live.every((a) => a.status === 'idle'), 'every turn has ended');
    assert.strictEqual(hanging.lastTurnEnd?.reason, 'aborted');
    assert.strictEqual(hanging.lastTurnEnd?.cause, 'disposed');
    assert.strictEqual(t.runtime.subagents.liveContinuableCount(), 0, 'no Activation is left');
    const commands = await vscode.commands.getCommands(true);
    assert.ok(!commands.includes('arbor.stopAgent'), 'the commands were unregistered');
  });
});
