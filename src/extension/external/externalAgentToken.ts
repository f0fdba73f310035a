import * as vscode from 'vscode';
import { isRemoteAgent, type RemoteAgentConfig } from '../../core/external';
import type { ExternalAgentSettings } from './externalAgentSettings';

/**
 * **Arbor: Set External Agent Token...**: the token an agent served at a url expects, kept in
 * VS Code's secret storage under that entry's name (never in settings, never in a log) and sent
 * as `Authorization: Bearer` on its next connection. An empty value leaves it with none. The token is
 * read for each connection, so an agent refused for its token works with its next message once
 * the token is set.
 */
export async function setExternalAgentToken(settings: ExternalAgentSettings): Promise<boolean> {
  const served = settings.list().filter(isRemoteAgent);
  if (served.length === 0) {
    void vscode.window.showInformationMessage('No external agent is served at a url. Add one to the user setting arbor.externalAgents, for example { "name": "Remote", "url": "wss://agents.example.com/acp" }.');
    return false;
  }
  const picked = served.length === 1 ? { config: served[0] } : await vscode.window.showQuickPick(served.map((c) => ({ label: c.name, description: c.url, config: c })), { title: 'Set External Agent Token', placeHolder: 'Which agent?' });
  const config: RemoteAgentConfig | undefined = picked?.config;
  if (!config) return false;
  const token = await vscode.window.showInputBox({
    title: `${config.name}: token`,
    prompt: `The token ${config.url} expects, sent as "Authorization: Bearer". It is kept in VS Code's secret storage, never in settings. Leave it empty to remove it.`,
    password: true,
    ignoreFocusOut: true,
  });
  if (token === undefined) return false;
  await settings.storeToken(config, token.trim());
  return true;
}
