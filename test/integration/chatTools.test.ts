import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ModelProvider } from '../../src/core/models';
import { ScriptedModel } from '../../src/core/models/scriptedModel';
import type { ArborAgentEvent, ArborApi, ArborTesting } from '../../src/extension/extension';
import { EXTENSION_ID, arborTesting, turnEnds, userMessages, waitFor } from './support';

const script = {
  version: 1,
  agents: {
    Delegated: { turns: [[{ toolCalls: [{ name: 'list_agents', arguments: {} }] }, { text: 'Renamed the helper.\nBLOCKED: whether to delete the old file' }]] },
    Hanger: { turns: [[{ hang: true }]] },
    ApiAgent: { turns: [[{ text: 'first answer' }], [{ text: 'second answer' }]] },
  },
};

const textOf = (result: vscode.LanguageModelToolResult): string =>
  result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');

describe('Arbor as a tool for chat agents (vscode.lm.invokeTool) and the exported API', function () {
  this.timeout(90_000);
  let t: ArborTesting;
  let api: ArborApi;
  let previous: ModelProvider;

  before(async () => {
    t = await arborTesting();
    api = await vscode.extensions.getExtension<ArborApi>(EXTENSION_ID)!.activate();
    previous = t.model.provider;
    // The delegated runs play on the model the settings choose: here, this suite's script.
    t.model.use(new ScriptedModel(script));
  });
  afterEach(async () => {
    for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
  });
  after(async () => {
    t.model.use(previous);
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('arbor_run_agent starts an unattended agent shown in the Agents view and returns its final result', async () => {
    await waitFor(() => vscode.lm.tools.some((tool) => tool.name === 'arbor_run_agent'), 'arbor_run_agent in vscode.lm.tools');
    const info = vscode.lm.tools.find((tool) => tool.name === 'arbor_run_agent')!;
    assert.deepStrictEqual((info.inputSchema as { required: string[] }).required, ['prompt']);
    const promptsBefore = t.observed.prompts.length;
    const source = new vscode.CancellationTokenSource();
    const call = vscode.lm.invokeTool('arbor_run_agent', { input: { prompt: 'Rename the helper everywhere.', label: 'Delegated' }, toolInvocationToken: undefined }, source.token);
    await waitFor(() => t.tree.getChildren().some((a) => a.label === 'Delegated'), 'the delegated agent in the Agents view');
    const agent = t.runtime.agents.topLevel().find((a) => a.label === 'Delegated')!;
    assert.strictEqual(agent.kind, 'root');
    assert.strictEqual(agent.log.header.interactionMode, 'autonomous', 'a delegated run never asks through Arbor');
    assert.ok(!t.runtime.toolSpecs(agent).some((s) => s.name === 'ask_user_question'), 'it is not offered the question tool');
    const text = textOf(await call);
    assert.match(text, /^Arbor agent "Delegated" \(.+\) finished with 1 BLOCKED item\./);
    assert.ok(text.includes('- whether to delete the old file'), text);
    assert.ok(text.endsWith('Final result:\nRenamed the helper.\nBLOCKED: whether to delete the old file'), text);
    assert.deepStrictEqual(userMessages(agent), ['Rename the helper everywhere.']);
    assert.strictEqual(t.observed.prompts.length, promptsBefore, 'no question reached the human');
    source.dispose();
  });

  it("the caller's cancelled token stops the agent's turn and the call ends cancelled", async () => {
    const source = new vscode.CancellationTokenSource();
    const call = vscode.lm.invokeTool('arbor_run_agent', { input: { prompt: 'Work until stopped.', label: 'Hanger' }, toolInvocationToken: undefined }, source.token);
    const settled = call.then(
      () => 'resolved',
      (err: unknown) => (err instanceof Error ? err.name || err.message : String(err)),
    );
    await waitFor(() => t.runtime.agents.all().some((a) => a.label === 'Hanger' && a.status === 'running'), 'the agent to run');
    const agent = t.runtime.agents.all().find((a) => a.label === 'Hanger')!;
    source.cancel();
    await waitFor(() => turnEnds(agent).length === 1, 'the turn to end');
    assert.deepStrictEqual(turnEnds(agent), ['aborted:user']);
    assert.match(await settled, /Cancel/i, 'the call ends with a cancellation');
    assert.ok(t.runtime.agents.isLive(agent), 'the stopped agent stays in the tree for the user to read or resume');
    source.dispose();
  });

  it('refuses input that tries to choose how the run interacts, and starts nothing', async () => {
    const before = t.runtime.agents.size;
    await assert.rejects(
      Promise.resolve(vscode.lm.invokeTool('arbor_run_agent', { input: { prompt: 'x', interactionMode: 'interactive' }, toolInvocationToken: undefined })),
      /interactionMode/,
    );
    await assert.rejects(Promise.resolve(vscode.lm.invokeTool('arbor_run_agent', { input: { label: 'no task' }, toolInvocationToken: undefined })), /prompt/);
    assert.strictEqual(t.runtime.agents.size, before);
  });

  it('arbor_list_agents lists the live agents with their state and mode', async () => {
    const agent = t.startScripted(script, 'go', 'ApiAgent');
    await agent.whenIdle();
    const result = JSON.parse(textOf(await vscode.lm.invokeTool('arbor_list_agents', { input: {}, toolInvocationToken: undefined }))) as {
      agents: Array<{ id: string; label: string; status: string; mode: string; last_result?: { reason: string; text: string } }>;
    };
    const listed = result.agents.find((a) => a.id === agent.id);
    assert.deepStrictEqual(listed && { label: listed.label, status: listed.status, mode: listed.mode, last: listed.last_result }, {
      label: 'ApiAgent',
      status: 'idle',
      mode: 'interactive',
      last: { reason: 'completed', text: 'first answer' },
    });
  });

  it('the exported API starts, lists, sends to and stops agents and reports their events', async () => {
    const events: ArborAgentEvent[] = [];
    const subscription = api.onDidChangeAgent((e) => events.push(e));
    try {
      const { id } = api.startAgent({ prompt: 'hello', label: 'ApiAgent' });
      await waitFor(() => events.some((e) => e.type === 'turnEnded' && e.agent.id === id), 'the first turn end event');
      assert.ok(api.listAgents().some((a) => a.id === id && a.kind === 'root' && a.status === 'idle'));
      api.sendMessage(id, 'again');
      await waitFor(() => events.filter((e) => e.type === 'turnEnded' && e.agent.id === id).length === 2, 'the second turn end event');
      const ends = events.filter((e): e is Extract<ArborAgentEvent, { type: 'turnEnded' }> => e.type === 'turnEnded' && e.agent.id === id);
      assert.deepStrictEqual(
        ends.map((e) => [e.turn, e.reason, e.result]),
        [
          [1, 'completed', 'first answer'],
          [2, 'completed', 'second answer'],
        ],
      );
      assert.deepStrictEqual(
        events.filter((e) => e.agent.id === id).map((e) => e.type),
        ['started', 'turnStarted', 'turnEnded', 'turnStarted', 'turnEnded'],
      );
      assert.deepStrictEqual(api.stopAgent(id), { accepted: true });
      const code = (expected: string) => (e: unknown) => (e as { code?: string }).code === expected;
      assert.throws(() => api.sendMessage(id, '   '), code('INPUT_INVALID'));
      assert.throws(() => api.sendMessage('no-such-agent', 'hi'), code('AGENT_DISPOSED'));
      assert.throws(() => Reflect.apply(api.stopAgent, api, [42]), code('INPUT_INVALID'), 'a caller without types is parsed too');
      await t.runtime.end(t.runtime.agents.get(id)!);
      await waitFor(() => events.some((e) => e.type === 'ended' && e.agent.id === id), 'the ended event');
    } finally {
      subscription.dispose();
    }
  });
});
