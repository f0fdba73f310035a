import '../../support/vscodeStub';
import * as assert from 'assert';
import type * as vscode from 'vscode';
import type { ExternalAgentConfig } from '../../../src/core/external';
import { ExternalAgentSettings } from '../../../src/extension/external/externalAgentSettings';
import { setExternalAgentToken } from '../../../src/extension/external/externalAgentToken';
import { vscodeStub } from '../../support/vscodeStub';

/** VS Code's secret storage, as a map. */
function secretStorage(): vscode.SecretStorage & { values: Map<string, string> } {
  const values = new Map<string, string>();
  const onDidChange: vscode.SecretStorage['onDidChange'] = () => ({ dispose: () => undefined });
  return {
    values,
    get: async (key: string) => values.get(key),
    store: async (key: string, value: string) => void values.set(key, value),
    delete: async (key: string) => void values.delete(key),
    onDidChange,
  };
}

/** Arbor: Set External Agent Token...: a token per served agent, in secret storage, read back for its connections. */
describe('Arbor: Set External Agent Token...', () => {
  const entries: ExternalAgentConfig[] = [
    { name: 'Local', command: 'opencode', args: ['acp'], env: {}, secretEnv: ['KEY'] },
    { name: 'Box', url: 'wss://box.example.com/acp' },
    { name: 'Lab', url: 'https://lab.example.com/acp' },
  ];
  const original = { ...vscodeStub.window };
  afterEach(() => Object.assign(vscodeStub.window, original));

  function settingsWith(agents: ExternalAgentConfig[]) {
    const storage = secretStorage();
    const settings = new ExternalAgentSettings(storage, () => undefined);
    settings.list = () => agents;
    return { settings, storage };
  }

  it('offers only the agents served at a url, keeps the token under the chosen one\'s name, and token() reads it back', async () => {
    const { settings, storage } = settingsWith(entries);
    const offered: string[] = [];
    vscodeStub.window.showQuickPick = async (items: unknown) => {
      const list = items as Array<{ label: string }>;
      offered.push(...list.map((i) => i.label));
      return list.find((i) => i.label === 'Lab');
    };
    let asked: { password?: boolean; prompt?: string } | undefined;
    vscodeStub.window.showInputBox = async (options?: unknown) => {
      asked = options as typeof asked;
      return '  s3cret-token  ';
    };
    assert.strictEqual(await setExternalAgentToken(settings), true);
    assert.deepStrictEqual(offered, ['Box', 'Lab']);
    assert.strictEqual(asked?.password, true, 'typed as a password');
    assert.match(asked?.prompt ?? '', /https:\/\/lab\.example\.com\/acp.*Authorization: Bearer/);
    assert.strictEqual(await settings.token(entries[2]), 's3cret-token');
    assert.strictEqual(await settings.token(entries[1]), undefined, 'another entry has none');
    assert.deepStrictEqual(await settings.secrets(entries[0]), {}, 'not one of a local agent\'s secrets');
    assert.ok([...storage.values.keys()].every((key) => key.includes(':Lab:')), [...storage.values.keys()].join(', '));
  });

  it('an empty value leaves the agent with no token; a dismissed box changes nothing', async () => {
    const { settings } = settingsWith([entries[1]]);
    vscodeStub.window.showInputBox = async () => 'first';
    await setExternalAgentToken(settings);
    assert.strictEqual(await settings.token(entries[1]), 'first', 'the only served agent is not asked for');
    vscodeStub.window.showInputBox = async () => undefined;
    assert.strictEqual(await setExternalAgentToken(settings), false);
    assert.strictEqual(await settings.token(entries[1]), 'first');
    vscodeStub.window.showInputBox = async () => '';
    await setExternalAgentToken(settings);
    assert.strictEqual(await settings.token(entries[1]), undefined);
  });

  it('with no agent served at a url it says how to add one and asks nothing', async () => {
    const { settings } = settingsWith([entries[0]]);
    const said: string[] = [];
    vscodeStub.window.showInformationMessage = async (...args: unknown[]) => void said.push(String(args[0]));
    vscodeStub.window.showInputBox = async () => assert.fail('nothing to ask');
    assert.strictEqual(await setExternalAgentToken(settings), false);
    assert.match(said[0] ?? '', /arbor\.externalAgents.*"url": "wss:/);
  });
});
