import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ArborTesting } from '../../src/extension/extension';
import { listLanguageModels } from '../../src/extension/models/languageModelProvider';
import type { AutoModel } from '../../src/extension/models/modelChoice';
import { arborTesting, EXTENSION_ID, sleep, waitFor } from './support';
import { ui } from './ui';
import { windowReload } from './windowReload';

const MODEL_KEYS = [
  'model.provider',
  'model.vscodeLm.family',
  'model.vscodeLm.id',
  'model.openaiCompatible.baseUrl',
  'model.openaiCompatible.model',
  'model.openaiCompatible.idleTimeoutSeconds',
];

async function setModelSettings(values: Record<string, string | number | undefined>): Promise<void> {
  const config = vscode.workspace.getConfiguration('arbor');
  for (const [key, value] of Object.entries(values)) await config.update(key, value, vscode.ConfigurationTarget.Workspace);
}

async function resetModelSettings(): Promise<void> {
  await setModelSettings(Object.fromEntries(MODEL_KEYS.map((k) => [k, undefined])));
}

/** A local OpenAI-compatible endpoint: records each request, answers with one streamed reply. */
class FakeEndpoint {
  readonly requests: Array<{ url: string; authorization: string; body: { model: string; messages: Array<{ role: string; content: unknown }> } }> = [];
  private readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      this.requests.push({ url: req.url ?? '', authorization: String(req.headers.authorization ?? ''), body: JSON.parse(body || '{}') });
      const chunk = (delta: object, finish: string | null = null) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] });
      const usage = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'test-model', choices: [], usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } };
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const data of [chunk({ role: 'assistant', content: 'Hello from ' }), chunk({ content: 'the endpoint.' }), chunk({}, 'stop'), usage]) res.write(`data: ${JSON.stringify(data)}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }
  close(): void {
    this.server.close();
  }
}

async function runAgent(t: ArborTesting, prompt: string, label: string) {
  const api = vscode.extensions.getExtension<{ startAgent(r: unknown): { id: string } }>(EXTENSION_ID)!.exports;
  const { id } = api.startAgent({ prompt, label });
  const agent = t.runtime.agents.get(id)!;
  await agent.whenIdle();
  return agent;
}

if (windowReload.phase() === 'before') {
  describe('Model choice', function () {
    this.timeout(60_000);
    let t: ArborTesting;

    before(async () => {
      t = await arborTesting();
      await resetModelSettings();
    });
    afterEach(async () => {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    });
    after(async () => {
      await resetModelSettings();
      for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
    });

    it('lists no VS Code chat model in this host, without throwing', async () => {
      // code-server ships no chat model provider (no Copilot): the list is empty, not an error.
      assert.deepStrictEqual(await listLanguageModels(), []);
      assert.deepStrictEqual(await vscode.lm.selectChatModels({ vendor: 'copilot' }), []);
    });

    it('auto, the default, falls back to the scripted demo model, says so in the log, and runs agents on it', async () => {
      assert.strictEqual(vscode.workspace.getConfiguration('arbor').get('model.provider'), 'auto');
      const auto = t.model.provider as AutoModel;
      assert.strictEqual(auto.id, 'auto');
      assert.strictEqual((await auto.resolve()).id, 'scripted');
      assert.strictEqual(t.model.label, 'Auto: Scripted demo model');
      const agent = await runAgent(t, 'Say hello.', 'Auto check');
      assert.strictEqual(agent.lastTurnEnd?.reason, 'completed');
      assert.ok(agent.log.events.some((e) => e.type === 'assistant_text'), 'the scripted model answered');
      if (ui.available) {
        // Choosing again logs again: the line is then the newest in the Output panel, in view.
        await setModelSettings({ 'model.provider': 'scripted' });
        await resetModelSettings();
        await waitFor(() => t.model.provider.id === 'auto', 'auto again');
        await (t.model.provider as AutoModel).resolve();
        await vscode.commands.executeCommand('notifications.clearAll');
        await vscode.commands.executeCommand('arbor.showLog');
        assert.ok(await ui.pageHasText('Model (auto): no VS Code chat model is available; using the scripted demo model.'), 'the log says which model auto chose');
      }
    });

    it('vscode-lm without a chat model ends the turn with an error that says what to do', async () => {
      await setModelSettings({ 'model.provider': 'vscode-lm', 'model.vscodeLm.family': 'gpt-4o' });
      await waitFor(() => t.model.provider.id.startsWith('vscode-lm'), 'the vscode-lm provider');
      const agent = await runAgent(t, 'Say hello.', 'LM check');
      assert.strictEqual(agent.lastTurnEnd?.reason, 'error');
      assert.match(agent.lastTurnEnd?.message ?? '', /No chat model matches gpt-4o/);
      await resetModelSettings();
    });

    it('an invalid endpoint setting falls back to the scripted demo model with a message naming the setting', async () => {
      await setModelSettings({ 'model.openaiCompatible.baseUrl': 'localhost:11434', 'model.openaiCompatible.model': 'llama3.1', 'model.provider': 'openai-compatible' });
      await waitFor(() => t.model.provider.id === 'scripted', 'the fallback to the scripted model');
      if (ui.available) assert.ok(await ui.pageHasText('arbor.model.openaiCompatible.baseUrl is invalid'), 'the warning names the setting');
      await resetModelSettings();
    });

    it('openai-compatible streams from the endpoint with the API key from SecretStorage, which never reaches the settings', async function () {
      const endpoint = new FakeEndpoint();
      const baseUrl = await endpoint.start();
      try {
        await setModelSettings({ 'model.openaiCompatible.baseUrl': baseUrl, 'model.openaiCompatible.model': 'test-model', 'model.provider': 'openai-compatible' });
        await waitFor(() => t.model.provider.id === `openai-compatible:test-model@${baseUrl}`, 'the OpenAI-compatible provider');
        const agent = await runAgent(t, 'Greet me.', 'Endpoint check');
        assert.strictEqual(agent.lastTurnEnd?.reason, 'completed', agent.lastTurnEnd?.message);
        assert.strictEqual(agent.lastTurnEnd?.finalText, 'Hello from the endpoint.');
        assert.deepStrictEqual({ ...agent.usage }, { inputTokens: 12, outputTokens: 4 });
        assert.strictEqual(endpoint.requests[0].url, '/v1/chat/completions');
        assert.strictEqual(endpoint.requests[0].body.model, 'test-model');
        assert.strictEqual(endpoint.requests[0].authorization, 'Bearer no-api-key-set', 'no key is set yet');

        ui.requireBrowser(this);
        const key = 'sk-arbor-integration-0123456789';
        const setting = vscode.commands.executeCommand<string>('arbor.setApiKey');
        assert.ok(await ui.pageHasText(`API key for ${baseUrl}`), 'the password box is open');
        await ui.typeText(key);
        await ui.pressKeys('Enter');
        assert.strictEqual(await setting, 'set');
        await runAgent(t, 'Greet me again.', 'Endpoint check 2');
        assert.strictEqual(endpoint.requests.at(-1)?.authorization, `Bearer ${key}`, 'the next request carries the key');
        const settingsFile = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'settings.json');
        assert.ok(!fs.readFileSync(settingsFile, 'utf8').includes(key), 'the key is not in the settings');

        const clearing = vscode.commands.executeCommand<string>('arbor.setApiKey');
        assert.ok(await ui.pageHasText('Clear the key'), 'a key is set: replace or clear');
        await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        assert.strictEqual(await clearing, 'cleared');
        await runAgent(t, 'Greet me once more.', 'Endpoint check 3');
        assert.strictEqual(endpoint.requests.at(-1)?.authorization, 'Bearer no-api-key-set', 'the cleared key is not sent');
      } finally {
        endpoint.close();
        await resetModelSettings();
      }
    });

    it('the idle timeout setting ends a turn against an endpoint that goes quiet with MODEL_TIMEOUT naming the setting', async () => {
      // Sends its headers, then nothing, until the test closes it.
      const quiet = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.flushHeaders();
        });
      });
      await new Promise<void>((resolve) => quiet.listen(0, '127.0.0.1', resolve));
      const baseUrl = `http://127.0.0.1:${(quiet.address() as AddressInfo).port}/v1`;
      try {
        // The provider is rebuilt on each change: the timeout goes first, the provider last.
        await setModelSettings({ 'model.openaiCompatible.idleTimeoutSeconds': 1, 'model.openaiCompatible.baseUrl': baseUrl, 'model.openaiCompatible.model': 'quiet-model', 'model.provider': 'openai-compatible' });
        await waitFor(() => t.model.provider.id === `openai-compatible:quiet-model@${baseUrl}`, 'the OpenAI-compatible provider');
        const agent = await runAgent(t, 'Say something.', 'Quiet endpoint');
        assert.strictEqual(agent.lastTurnEnd?.reason, 'error');
        assert.strictEqual(agent.lastTurnEnd?.code, 'MODEL_TIMEOUT');
        assert.match(agent.lastTurnEnd?.message ?? '', /sent its response headers, then nothing for 1 s .*idleTimeoutSeconds/);
      } finally {
        quiet.closeAllConnections();
        quiet.close();
        await resetModelSettings();
      }
    });

    it('Select Model lists the choices and writes the workspace setting', async function () {
      ui.requireBrowser(this);
      const picking = vscode.commands.executeCommand<string>('arbor.selectModel');
      assert.ok(await ui.pageHasText('Scripted demo model'), 'the quick pick lists the scripted model');
      assert.ok(await ui.pageHasText('No VS Code chat model is available'), 'it says why no chat model is listed');
      assert.ok(await ui.pageHasText('Configure an OpenAI-compatible endpoint'), 'it offers to configure an endpoint');
      await ui.screenshot('select-model');
      await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      assert.strictEqual(await picking, 'scripted');
      assert.strictEqual(vscode.workspace.getConfiguration('arbor').inspect('model.provider')?.workspaceValue, 'scripted');
      await waitFor(() => t.model.provider.id === 'scripted', 'the scripted model');
      await sleep(50);
    });
  });
}
