import * as vscode from 'vscode';
import { messageOf } from '../../core';
import { openAiCompatibleSettingsSchema } from '../../core/models';
import { reportError } from '../errorReporting';
import type { ArborSettings, ModelProviderSetting } from '../settings';
import { ApiKeyStore, normalizeBaseUrl } from './apiKeys';
import { listLanguageModels, type LanguageModelInfo } from './languageModelProvider';

export interface ModelCommandDeps {
  log: vscode.LogOutputChannel;
  apiKeys: ApiKeyStore;
  settings(): ArborSettings;
}

interface ModelItem extends vscode.QuickPickItem {
  apply?: () => Promise<ModelProviderSetting | undefined>;
}

/** Arbor: Select Model... and Arbor: Set API Key... */
export function registerModelCommands(deps: ModelCommandDeps): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('arbor.selectModel', () => reportFailure(deps, 'Could not change the model', () => selectModel(deps))),
    vscode.commands.registerCommand('arbor.setApiKey', () => reportFailure(deps, 'Could not store the API key', () => setApiKey(deps))),
  ];
}

/** Runs a command's work; a failure is shown with what to do next and the command returns undefined. */
async function reportFailure<T>(deps: ModelCommandDeps, what: string, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (err) {
    reportError(deps.log, what, err);
    return undefined;
  }
}

/** Lists every model Arbor can use and writes the choice to the workspace settings. */
async function selectModel(deps: ModelCommandDeps): Promise<ModelProviderSetting | undefined> {
  const settings = deps.settings();
  let models: LanguageModelInfo[] = [];
  try {
    models = await listLanguageModels();
  } catch (err) {
    deps.log.warn(`Could not list VS Code chat models: ${messageOf(err)}`);
  }
  const current = (is: boolean): string | undefined => (is ? 'current' : undefined);
  const items: ModelItem[] = [
    {
      label: '$(sparkle) Auto',
      description: current(settings.provider === 'auto'),
      detail: 'A VS Code chat model when one is available, else the scripted demo model',
      apply: () => write([['model.provider', 'auto']]),
    },
    {
      label: '$(beaker) Scripted demo model',
      description: current(settings.provider === 'scripted'),
      detail: 'Plays a script: no API key, no network',
      apply: () => write([['model.provider', 'scripted']]),
    },
    { label: 'VS Code chat models', kind: vscode.QuickPickItemKind.Separator },
  ];
  if (models.length === 0) {
    items.push({
      label: '$(info) No VS Code chat model is available',
      detail: 'Install or sign in to an extension that provides chat models, such as GitHub Copilot Chat',
    });
  }
  for (const model of models) {
    items.push({
      label: `$(hubot) ${model.name}`,
      description: [`${model.vendor} · ${model.family}`, current(settings.provider === 'vscode-lm' && settings.vscodeLm.id === model.id)].filter(Boolean).join(' · '),
      detail: model.id,
      apply: () =>
        write([
          ['model.vscodeLm.id', model.id],
          ['model.vscodeLm.family', undefined],
          ['model.provider', 'vscode-lm'],
        ]),
    });
  }
  items.push({ label: 'OpenAI-compatible endpoint', kind: vscode.QuickPickItemKind.Separator });
  const { baseUrl, model } = settings.openaiCompatible;
  if (baseUrl && model) {
    const keySet = await deps.apiKeys.has(baseUrl);
    items.push({
      label: `$(globe) ${model}`,
      description: [baseUrl, current(settings.provider === 'openai-compatible')].filter(Boolean).join(' · '),
      detail: keySet ? 'API key set (Arbor: Set API Key... changes or clears it)' : 'No API key set: local servers usually need none; Arbor: Set API Key... adds one',
      apply: () => write([['model.provider', 'openai-compatible']]),
    });
  }
  items.push({
    label: '$(gear) Configure an OpenAI-compatible endpoint...',
    detail: 'Ollama, LM Studio, vLLM, OpenAI...: a base URL such as http://localhost:11434/v1 and a model name',
    apply: () => configureOpenAiCompatible(deps),
  });

  const picked = await vscode.window.showQuickPick(items, { title: 'Arbor: Select Model', placeHolder: 'The model new turns of your agents use', matchOnDetail: true });
  if (!picked) return undefined;
  if (!picked.apply) {
    void vscode.window.showInformationMessage('No VS Code chat model is available. Install or sign in to an extension that provides one, then run Arbor: Select Model... again.');
    return undefined;
  }
  const chosen = await picked.apply();
  if (chosen) deps.log.info(`Model setting changed to ${chosen} (${target() === vscode.ConfigurationTarget.Workspace ? 'workspace' : 'user'} settings).`);
  return chosen;
}

async function configureOpenAiCompatible(deps: ModelCommandDeps): Promise<ModelProviderSetting | undefined> {
  const current = deps.settings().openaiCompatible;
  const baseUrl = await vscode.window.showInputBox({
    title: 'OpenAI-compatible endpoint (1/2): base URL',
    prompt: 'The API root that /chat/completions is appended to',
    placeHolder: 'http://localhost:11434/v1',
    value: current.baseUrl ?? '',
    ignoreFocusOut: true,
    validateInput: (v) => {
      const parsed = openAiCompatibleSettingsSchema.shape.baseUrl.safeParse(v.trim());
      return parsed.success ? undefined : parsed.error.issues[0]?.message;
    },
  });
  if (baseUrl === undefined) return undefined;
  const model = await vscode.window.showInputBox({
    title: 'OpenAI-compatible endpoint (2/2): model',
    prompt: 'The model name the endpoint knows',
    placeHolder: 'llama3.1, gpt-4o-mini, ...',
    value: current.model ?? '',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Name the model to use.'),
  });
  if (model === undefined) return undefined;
  const chosen = await write([
    ['model.openaiCompatible.baseUrl', baseUrl.trim()],
    ['model.openaiCompatible.model', model.trim()],
    ['model.provider', 'openai-compatible'],
  ]);
  if (!(await deps.apiKeys.has(baseUrl))) {
    void vscode.window.showInformationMessage(`Arbor uses ${model.trim()} at ${baseUrl.trim()}. Does it need an API key?`, 'Set API Key...').then((pick) => {
      if (pick) void vscode.commands.executeCommand('arbor.setApiKey');
    });
  }
  return chosen;
}

/** Stores or clears the API key of the configured endpoint in SecretStorage. Returns what was done. */
async function setApiKey(deps: ModelCommandDeps): Promise<'set' | 'cleared' | undefined> {
  const { baseUrl } = deps.settings().openaiCompatible;
  if (!baseUrl) {
    const pick = await vscode.window.showInformationMessage('Configure an OpenAI-compatible endpoint first: its base URL says which key this is.', 'Select Model...');
    if (pick) void vscode.commands.executeCommand('arbor.selectModel');
    return undefined;
  }
  const endpoint = normalizeBaseUrl(baseUrl);
  if (await deps.apiKeys.has(endpoint)) {
    const action = await vscode.window.showQuickPick(
      [
        { label: '$(key) Replace the key', action: 'set' as const },
        { label: '$(trash) Clear the key', action: 'clear' as const, detail: 'Requests are then sent without one' },
      ],
      { title: `API key for ${endpoint}` },
    );
    if (!action) return undefined;
    if (action.action === 'clear') {
      await deps.apiKeys.clear(endpoint);
      deps.log.info(`API key for ${endpoint} cleared.`);
      return 'cleared';
    }
  }
  const key = await vscode.window.showInputBox({
    title: `API key for ${endpoint}`,
    prompt: "Kept in VS Code's secret storage, never in settings or logs.",
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Type the key, or press Escape to cancel.'),
  });
  if (key === undefined) return undefined;
  await deps.apiKeys.set(endpoint, key.trim());
  deps.log.info(`API key for ${endpoint} saved in VS Code's secret storage.`);
  return 'set';
}

type SettingWrite = [key: string, value: string | undefined];

/** Writes model settings for this workspace (user settings when no folder is open); the provider key goes last. */
async function write(entries: SettingWrite[]): Promise<ModelProviderSetting | undefined> {
  const config = vscode.workspace.getConfiguration('arbor');
  let provider: ModelProviderSetting | undefined;
  for (const [key, value] of entries) {
    await config.update(key, value, target());
    if (key === 'model.provider') provider = value as ModelProviderSetting;
  }
  return provider;
}

function target(): vscode.ConfigurationTarget {
  return vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
}
