import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ModelChunk, ModelProvider, ModelRequest } from '../../src/core/models';
import type { ArborApi, ArborTesting } from '../../src/extension/extension';
import { EXTENSION_ID, arborTesting, toolResults, turnEnds, waitFor } from './support';

/** What the test extension (test/fixtures/chat-model-extension) exports. */
interface ChatModelExtension {
  model: { id: string; vendor: string; name: string };
  seen: {
    requests: Array<{ from: string; tools: string[]; lastText: string; toolResults: Array<{ callId: string; text: string }>; roles: number[] }>;
    cancellations: number;
    tokenCounts: number;
    reported: Array<{ text?: string; toolCall?: string }>;
  };
  register(): void;
  unregister(): void;
}

describe('A VS Code chat model end to end (a provider extension beside Arbor)', function () {
  this.timeout(90_000);
  let t: ArborTesting;
  let api: ArborApi;
  let chat: ChatModelExtension;
  let auto: ModelProvider;
  /** The chunks Arbor's turn loop read from the model, in order, per request. */
  const chunks: string[][] = [];

  before(async () => {
    t = await arborTesting();
    api = await vscode.extensions.getExtension<ArborApi>(EXTENSION_ID)!.activate();
    const extension = vscode.extensions.getExtension<ChatModelExtension>('arbor-test.arbor-test-chat-model');
    assert.ok(extension, 'the chat model extension is loaded beside Arbor');
    chat = await extension.activate();
    assert.strictEqual(t.model.provider.id, 'auto', 'the model setting is auto');
    auto = t.model.provider;
    // A tap between the turn loop and `auto`: it forwards every chunk and notes its kind.
    const tap: ModelProvider = {
      id: 'tap',
      get label() {
        return auto.label;
      },
      async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
        const seen: string[] = [];
        chunks.push(seen);
        for await (const chunk of auto.stream(request)) {
          seen.push(chunk.type === 'text' ? `text:${chunk.text}` : chunk.type);
          yield chunk;
        }
      },
    };
    t.model.use(tap);
  });
  afterEach(async () => {
    for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
  });
  after(async () => {
    chat?.unregister();
    if (auto) {
      t.model.use(auto);
      await waitFor(() => !auto.label.includes(chat.model.name), 'auto to fall back to the demo model');
    }
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('the provider API is proposed in this VS Code, enabled for the test extension only, and auto picks its model', async () => {
    assert.ok(!('registerLanguageModelChatProvider' in vscode.lm), 'not the stable API of later VS Code versions');
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as Record<string, unknown>;
    assert.strictEqual(manifest.enabledApiProposals, undefined, 'Arbor enables no proposed API');
    assert.strictEqual((await vscode.lm.selectChatModels({ vendor: chat.model.vendor })).length, 0, 'no model until the extension registers it');
    chat.register();
    await waitFor(() => auto.label === `Auto: ${chat.model.name} (${chat.model.vendor})`, 'auto to pick the chat model');
  });

  it('an agent streams its text, calls a tool, gets its result back and reports usage', async () => {
    const { id } = api.startAgent({ prompt: 'Please use a tool to see the agents.', label: 'LmUser' });
    const agent = t.runtime.agents.get(id)!;
    await agent.whenIdle();
    assert.deepStrictEqual(turnEnds(agent), ['completed'], agent.lastTurnEnd?.message);

    const requests = chat.seen.requests.filter((r) => r.from === 'arbor.arbor').slice(-2);
    assert.strictEqual(requests.length, 2, `one request for the tool call, one with its result; the provider saw ${JSON.stringify(chat.seen.requests)}`);
    assert.ok(requests[0].tools.includes('list_agents'), "Arbor's tools are offered to the model");
    assert.ok(requests[0].lastText.includes('Please use a tool'), 'the task reached the model');

    // Streamed: the three text parts arrived as three chunks, then the call, then the usage estimate.
    assert.deepStrictEqual(chunks.at(-2), ['text:Looking ', 'text:at the ', 'text:agents.', 'tool_call', 'usage']);
    const [call] = toolResults(agent);
    assert.strictEqual(call.name, 'list_agents');
    assert.deepStrictEqual(JSON.parse(call.content), { agents: [] }, 'the tool ran in Arbor (the agent has no subagents)');
    assert.strictEqual(call.isError, undefined);

    // The tool's result went back to the model as a tool result part for the same call.
    assert.strictEqual(requests[1].toolResults.length, 1);
    assert.strictEqual(requests[1].toolResults[0].text, call.content);
    const callId = agent.conversation.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])).find((c) => c.name === 'list_agents')?.id;
    assert.strictEqual(requests[1].toolResults[0].callId, callId);
    assert.strictEqual(agent.lastTurnEnd?.finalText, `The tool said: ${call.content}`);

    // Usage: the chat API reports none, so Arbor counts tokens with the model's own counter.
    assert.ok(chat.seen.tokenCounts > 0, "the provider's token counter was asked");
    assert.ok(agent.usage.inputTokens > 0 && agent.usage.outputTokens > 0, `usage recorded: ${JSON.stringify(agent.usage)}`);
    assert.ok(agent.log.events.some((e) => e.type === 'usage'), 'and written to the session');
  });

  it('Stop ends the turn at once while the chat model is still answering, and the model is not waited for', async () => {
    const { id } = api.startAgent({ prompt: 'Please hang until stopped.', label: 'LmHang' });
    const agent = t.runtime.agents.get(id)!;
    await waitFor(() => chat.seen.requests.some((r) => r.lastText.includes('Please hang')), 'the request to reach the provider');
    assert.deepStrictEqual(api.stopAgent(id), { accepted: true });
    await waitFor(() => turnEnds(agent).length === 1, 'the turn to end');
    assert.deepStrictEqual(turnEnds(agent), ['aborted:user']);
    // The provider's own token: VS Code 1.100 cancels it only while the request is being started
    // (see the README); once the answer streams, the consumer's cancellation stays in Arbor's
    // extension host, so Arbor stops reading the stream instead of waiting for the model.
    await agent.whenIdle();
    assert.strictEqual(agent.status, 'idle');
  });
});
