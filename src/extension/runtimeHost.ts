// The core as the editor hosts it: the runtime on the model the settings choose, its durable
// session store, and the settings themselves, kept current. Deactivation disposes the runtime
// and closes every session file.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { messageOf, Runtime } from '../core';
import { CommandSandbox } from '../core/sandbox';
import { SwitchableModel } from '../core/models';
import type { JsonlSessionStore } from '../core/sessions';
import { FileChangeSetStorage } from '../core/workspace';
import { EditorApprovalRuleStore } from './approvals/ruleStore';
import { openSessionStore } from './history/sessionStorage';
import { ApiKeyStore } from './models/apiKeys';
import { ModelChoice } from './models/modelChoice';
import { sandboxSettingsPart } from './parts';
import { DefinitionModels } from './definitions/definitionModels';
import { readSettings, type ArborSettings } from './settings';
import { VsCodeWorkspace, findRipgrep } from './workspace';

/** The settings that choose the model. */
const MODEL_SETTINGS = ['arbor.model', 'arbor.scriptedModel'];

export interface RuntimeHost {
  runtime: Runtime;
  /** The model new turns use (the current provider is `model.provider`). */
  model: SwitchableModel;
  /** Absent when the editor gives Arbor no local storage folder. */
  store: JsonlSessionStore | undefined;
  apiKeys: ApiKeyStore;
  /** Remembered approval rules: the setting, this workspace's, and the user's ("always"). */
  approvalRules: EditorApprovalRuleStore;
  /** The settings as last read (they are read again whenever an `arbor.*` setting changes). */
  settings(): ArborSettings;
  /** The models agent definitions may name (see definitions/definitionModels.ts). */
  definitionModels: DefinitionModels;
}

export function hostRuntime(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): RuntimeHost {
  let settings: ArborSettings = readSettings((problem) => log.warn(problem));
  const apiKeys = new ApiKeyStore(context.secrets);
  const models = new ModelChoice({
    log,
    apiKeys,
    onProblem: (problem) => {
      log.warn(problem);
      void vscode.window.showWarningMessage(`Arbor: ${problem}`, 'Select Model...').then((pick) => {
        if (pick) void vscode.commands.executeCommand('arbor.selectModel');
      });
    },
  });
  const model = new SwitchableModel(models.providerFor(settings));
  const store = openSessionStore(context, log);
  const warn = (problem: string): void => {
    log.warn(problem);
    void vscode.window.showWarningMessage(`Arbor: ${problem}`);
  };
  const approvalRules = new EditorApprovalRuleStore(context, warn);
  context.subscriptions.push(approvalRules);
  // Looked up when an agent first lists or searches files: activation does not wait on the disk.
  const ripgrep = (): string | undefined => {
    const rg = findRipgrep(vscode.env.appRoot);
    log.info(rg ? `Agents search with ${rg}` : `No ripgrep under ${vscode.env.appRoot}: agents search by reading the files one by one`);
    return rg;
  };
  const definitionModels = new DefinitionModels(model, log);
  context.subscriptions.push(definitionModels);
  // Read at the first command, not while the editor starts. Commands cannot read the editor's
  // storage: its user data folder (settings, the state that holds the secret store, every
  // extension's storage, Arbor's sessions and worktrees) and this workspace's storage.
  const sandbox = new CommandSandbox({
    settings: () => sandboxSettingsPart().readSandboxSettings(warn),
    denyRead: [path.dirname(path.dirname(context.globalStorageUri.fsPath)), ...(context.storageUri ? [context.storageUri.fsPath] : [])],
    onUnsandboxed: (reason) => warn(`Agents' commands run unsandboxed: ${reason}.`),
  });
  const runtime = new Runtime({
    model,
    resolveModel: (id) => definitionModels.resolve(id),
    limits: settings.limits,
    prices: settings.prices,
    runaway: settings.runaway,
    workspace: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    sessions: store,
    workspaceFiles: new VsCodeWorkspace(ripgrep),
    changeSets: store ? new FileChangeSetStorage(store.root) : undefined,
    // Each live root's live-state record beside the sessions: the next window puts the tree back from it.
    liveRecordsFolder: store?.root,
    approvalRules,
    sandbox,
    onProblem: (problem, err) => log.error(`${problem}: ${messageOf(err)}`),
  });
  runtime.approvals.subagents = settings.approvalSubagents;

  context.subscriptions.push(
    // Deactivation disposes the runtime: every turn aborted, every listener released. Then
    // every session event still buffered is written before the extension host goes away.
    {
      dispose: () => {
        void runtime.dispose();
        // Closing (not only flushing) releases each session's lock, so another window can resume it.
        for (const error of store?.closeAllSync() ?? []) console.error(`Arbor: ${error.message}`);
      },
    },
    models,
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('arbor')) return;
      // A change is read (and a bad value reported) at once.
      if (e.affectsConfiguration('arbor.sandbox')) sandbox.setSettings(sandboxSettingsPart().readSandboxSettings(warn));
      settings = readSettings(warn);
      runtime.approvals.subagents = settings.approvalSubagents;
      // Only a change of the model's own settings picks the model again (and `auto` lists the chat models again).
      if (!MODEL_SETTINGS.some((section) => e.affectsConfiguration(section))) return;
      model.use(models.providerFor(settings));
      runtime.setDefaultLimits(settings.limits);
      runtime.budgets.setPrices(settings.prices);
      runtime.budgets.setRunaway(settings.runaway);
      log.info(`Model for new turns: ${model.label}`);
    }),
  );
  return { runtime, model, store, apiKeys, approvalRules, settings: () => settings, definitionModels };
}
