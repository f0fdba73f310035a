import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, waitFor } from './support';

/** A rejection with an ArborError of this code (commands run in this host keep the error as thrown). */
function code(expected: string) {
  return (e: unknown): boolean => {
    const got = (e as { code?: unknown } | null)?.code;
    assert.strictEqual(got, expected, `expected ${expected}, got ${String(e)}`);
    assert.ok(!(e instanceof TypeError), 'never a raw TypeError');
    return true;
  };
}

describe('command arguments', function () {
  this.timeout(60_000);
  let t: ArborTesting;

  before(async () => {
    t = await arborTesting();
  });
  after(async () => {
    for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
    await waitFor(() => t.runtime.agents.size === 0, 'every agent to end');
  });

  const forgedHistoryNodes: unknown[] = [
    { type: 'session' },
    { type: 'session', entry: {} },
    { type: 'session', entry: { header: null } },
    { type: 'session', entry: { header: { id: 42 } } },
    { type: 'session', entry: { header: { id: '' } } },
    { type: 'bogus' },
    42,
    null,
    ['a', 'b'],
  ];

  for (const command of ['arbor.resumeSession', 'arbor.openSessionTranscript']) {
    it(`${command} refuses a forged History node with INPUT_INVALID and starts nothing`, async () => {
      const before = t.runtime.agents.size;
      for (const forged of forgedHistoryNodes) {
        await assert.rejects(Promise.resolve(vscode.commands.executeCommand(command, forged)), code('INPUT_INVALID'), JSON.stringify(forged));
      }
      assert.strictEqual(t.runtime.agents.size, before, 'nothing was resumed');
    });
  }

  it('a well-formed node naming no stored session is a typed SESSION_NOT_FOUND, reported, not thrown as a TypeError', async () => {
    const before = t.runtime.agents.size;
    const result = await vscode.commands.executeCommand('arbor.resumeSession', { type: 'session', entry: { header: { id: 'no-such-session' } } });
    assert.strictEqual(result, undefined);
    assert.strictEqual(t.runtime.agents.size, before);
  });

  const forgedAgentNodes: unknown[] = [{ id: 5 }, { id: 'x', label: 'forged', kind: 'root' }, 7, null, { toString: () => 'x' }, 'no-such-agent'];

  for (const command of ['arbor.stopAgent', 'arbor.stop', 'arbor.sendMessage', 'arbor.endAgent', 'arbor.answer', 'arbor.openTranscript', 'arbor.openConversation']) {
    it(`${command} refuses a forged agent node with INPUT_INVALID`, async () => {
      for (const forged of forgedAgentNodes) {
        await assert.rejects(Promise.resolve(vscode.commands.executeCommand(command, forged)), code('INPUT_INVALID'), `${command} ${JSON.stringify(forged)}`);
      }
    });
  }

  it("a forged copy of a live agent's fields is not that agent: End refuses it and the agent lives on", async () => {
    const agent = t.startScripted({ version: 1, agents: { Forgery: { turns: [[{ hang: true }]] } } }, 'wait', 'Forgery');
    await waitFor(() => agent.status === 'running', 'the agent to run');
    const forged = { id: agent.id, label: agent.label, kind: agent.kind, status: agent.status };
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('arbor.endAgent', forged)), code('INPUT_INVALID'));
    assert.ok(t.runtime.agents.isLive(agent), 'the real agent was not ended');
    assert.strictEqual(await vscode.commands.executeCommand('arbor.stopAgent', agent.id), agent.id, 'its id is a valid argument');
    await agent.whenIdle();
    await t.runtime.end(agent);
  });

  it('arbor.runAgent takes this run\'s limits as its second argument, and bad options start nothing', async () => {
    const id = await vscode.commands.executeCommand<string>('arbor.runAgent', { prompt: 'Say hello', label: 'Limited' }, { limits: { maxTokens: 50_000, maxCost: 2 } });
    const agent = t.runtime.agents.get(id)!;
    assert.ok(agent, 'the run started');
    assert.strictEqual(agent.run.budget.limits.maxTokens, 50_000);
    assert.strictEqual(agent.run.budget.limits.maxCost, 2);
    assert.strictEqual(agent.log.header.interactionMode, 'interactive');
    await t.runtime.end(agent);
    const before = t.runtime.agents.size;
    for (const bad of [{ limits: { maxTokens: -1 } }, { limits: { maxTokens: 'lots' } }, { limits: { bogus: 1 } }, { interactionMode: 'autonomous' }, 'fast', 42]) {
      assert.strictEqual(await vscode.commands.executeCommand('arbor.runAgent', { prompt: 'x' }, bad), undefined, JSON.stringify(bad));
    }
    assert.strictEqual(t.runtime.agents.size, before, 'nothing was started');
    // Each refusal is a notification; left open they cover the next suites' views.
    await vscode.commands.executeCommand('notifications.clearAll');
  });
});
