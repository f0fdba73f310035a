import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Agent } from '../core/agents';
import { ArborError } from '../core/errors';
import { parsePublicRunRequestFrom, type PublicRunRequest } from '../core/interaction';
import { Runtime, type RunLimitsInput } from '../core';
import { ScriptedModel, SwitchableModel, type ModelProvider } from '../core/models';
import { JsonlSessionStore } from '../core/sessions';
import { FileChangeSetStorage } from '../core/workspace';
import { AgentsTreeProvider } from './agentsTree';
import { registerCommands } from './commands';
import { registerConversationCommands } from './conversationCommands';
import { CONVERSATION_VIEW_TYPE, ConversationPanels } from './conversationPanels';
import { DEMO_ROOT_LABEL, demoScript } from './demo/demoScript';
import { registerHistoryCommands } from './historyCommands';
import type { HistoryNode } from './historyNodes';
import { HistoryTreeProvider } from './historyTree';
import { ApiKeyStore } from './models/apiKeys';
import { registerModelCommands } from './models/modelCommands';
import { ModelChoice } from './models/modelChoice';
import { QuestionPicker } from './questionPicker';
import { REVIEW_SCHEME, ReviewPreviews } from './reviewPreview';
import { readSettings, type ArborSettings } from './settings';
import { TRANSCRIPT_SCHEME, TranscriptProvider } from './transcripts';
import { RunLinkHandler } from './uriHandler';
import { AgentsWithChangesTree, ChangeReview, ChangedFilesIndex, ORIGINAL_SCHEME, OriginalContentProvider, type AgentsViewNode } from './review';
import { VsCodeWorkspace, findRipgrep } from './workspace';

/** A live agent as the exported API describes it. */
export interface AgentSummary {
  id: string;
  label: string;
  kind: 'root' | 'one-shot' | 'continuable';
  status: 'idle' | 'running';
  parentId?: string;
}

/**
 * What Arbor exports to other extensions. It is a public entry point: requests are parsed at
 * the trust boundary, so no caller can choose the interaction mode or disable clarification.
 */
export interface ArborApi {
  /** The version of the running Arbor extension (from its manifest). */
  readonly version: string;
  /** Start an interactive root agent: `{ prompt, label? }`. Internal run keys are rejected. */
  startAgent(request: unknown): { id: string };
  /** Stop one agent's current turn, as the tree's Stop does. */
  stopAgent(id: string): { accepted: true };
  listAgents(): AgentSummary[];
  /** Only when the extension host runs Arbor's own tests (ARBOR_TESTING=1). */
  readonly testing?: ArborTesting;
}

/** Handles the integration tests use to look inside; absent in normal use. */
export interface ArborTesting {
  runtime: Runtime;
  tree: AgentsTreeProvider;
  /** The Agents view: agents and, under each, the files it changed. */
  treeView: vscode.TreeView<AgentsViewNode>;
  changesTree: AgentsWithChangesTree;
  /** Review, Keep and Undo of each agent's changes (tests replace its modal confirmation). */
  review: ChangeReview;
  picker: QuestionPicker;
  /** The read-only previews prompts open for what they ask the human to decide on. */
  previews: ReviewPreviews;
  transcripts: TranscriptProvider;
  /** The agents' conversation views; `receive` injects a raw message as if a view had posted it. */
  conversations: ConversationPanels;
  history: HistoryTreeProvider;
  historyView: vscode.TreeView<HistoryNode>;
  /** The durable session store (absent when the editor gives Arbor no local storage folder). */
  sessions: JsonlSessionStore | undefined;
  /** The model new turns use (the current provider is `model.provider`). */
  model: SwitchableModel;
  /** Start a root on a scripted model (tests bring their own script). */
  startScripted(script: unknown, prompt: string, label: string, mode?: 'interactive' | 'autonomous'): Agent;
  /** The handler behind vscode://arbor.arbor/... links. */
  links: RunLinkHandler;
  /** The Arbor log (the Output channel Show Log opens). */
  log: vscode.LogOutputChannel;
  /** Dispose everything Arbor registered, exactly as deactivation does. */
  deactivate(): void;
}

export function activate(context: vscode.ExtensionContext): ArborApi {
  const log = vscode.window.createOutputChannel('Arbor', { log: true });
  const version = String(context.extension.packageJSON.version);
  context.subscriptions.push(log);

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
  const runtime = new Runtime({
    model,
    limits: settings.limits,
    workspace: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    sessions: store,
    workspaceFiles: new VsCodeWorkspace(findRipgrep(vscode.env.appRoot)),
    changeSets: store ? new FileChangeSetStorage(store.root) : undefined,
  });
  const previews = new ReviewPreviews();
  const picker = new QuestionPicker(log, previews);
  const tree = new AgentsTreeProvider(runtime, runtime.interaction);
  const changedFiles = new ChangedFilesIndex(runtime.changes, (id, err) => log.warn(`The changes of session ${id} cannot be shown: ${err instanceof Error ? err.message : String(err)}`));
  const changesTree = new AgentsWithChangesTree(tree, runtime, changedFiles);
  const treeView = vscode.window.createTreeView('arbor.agents', { treeDataProvider: changesTree, showCollapseAll: true });
  const review = new ChangeReview({ runtime, index: changedFiles, store, log });
  const transcripts = new TranscriptProvider(runtime);
  const conversations = new ConversationPanels({
    runtime,
    interaction: runtime.interaction,
    extensionUri: context.extensionUri,
    log,
    loadSession: store && ((id) => store.loadSession(id)),
  });
  // Conversation views open at a window reload come back on their agent's session. This one
  // registration stays for the life of the extension host, outside context.subscriptions: VS
  // Code keeps an open view across a reload only while its serializer is registered, and the
  // window saves its editors while Arbor is being deactivated.
  vscode.window.registerWebviewPanelSerializer(CONVERSATION_VIEW_TYPE, { deserializeWebviewPanel: (panel, state) => conversations.restore(panel, state) });
  const history = new HistoryTreeProvider(runtime, store);
  const historyView = vscode.window.createTreeView('arbor.history', { treeDataProvider: history, showCollapseAll: true });
  history.attach(historyView);

  const updateBadge = (): void => {
    const waiting = new Set(runtime.interaction.pending().map((p) => p.agent?.id ?? '')).size;
    treeView.badge = waiting ? { value: waiting, tooltip: `${waiting} agent${waiting === 1 ? ' is' : 's are'} waiting for your answer` } : undefined;
  };

  const startRun = (request: PublicRunRequest, mode: 'interactive' | 'autonomous', runModel?: ModelProvider, limits?: RunLimitsInput): Agent => {
    const agent = runtime.startRoot({
      prompt: request.prompt,
      label: request.label,
      limits,
      // The extension is the internal caller here: the mode comes from which command the user
      // chose, never from the request.
      context: mode === 'autonomous' ? { interactionMode: 'autonomous' } : undefined,
      model: runModel,
    });
    log.info(`Started ${mode} agent "${agent.label}" (${agent.id})`);
    return agent;
  };

  const links = new RunLinkHandler(log, (request) => startRun(request, 'interactive'), previews);

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
    history,
    historyView,
    runtime.interaction.registerProvider(picker),
    picker,
    previews,
    vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, previews),
    tree,
    changedFiles,
    changesTree,
    treeView,
    vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, new OriginalContentProvider(runtime.changes)),
    ...review.register(),
    transcripts,
    conversations,
    ...registerConversationCommands({ runtime, tree, conversations, log }),
    vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, transcripts),
    vscode.window.registerUriHandler(links),
    runtime.interaction.onDidChangePending(updateBadge),
    runtime.onEvent((e) => {
      if (e.type !== 'agent_changed' || e.change.type !== 'turn_end') return;
      const { agent } = e;
      const end = e.change.end;
      log.info(`"${agent.label}" turn ${end.turn} ended: ${end.reason}${end.cause ? ` (${end.cause})` : ''}${end.message ? `: ${end.message}` : ''}`);
      if (agent.kind === 'root' && end.reason === 'completed' && end.finalText) {
        const text = end.finalText.length > 300 ? `${end.finalText.slice(0, 299)}…` : end.finalText;
        void vscode.window.showInformationMessage(`${agent.label}: ${text}`, 'Open Transcript').then((pick) => {
          if (pick) void transcripts.show(agent, { preview: false, preserveFocus: false });
        });
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('arbor')) return;
      settings = readSettings((problem) => {
        log.warn(problem);
        void vscode.window.showWarningMessage(`Arbor: ${problem}`);
      });
      model.use(models.providerFor(settings));
      log.info(`Model for new turns: ${model.label}`);
    }),
    ...registerHistoryCommands({ runtime, store, history, transcripts, agentsView: treeView, log }),
    ...registerModelCommands({ log, apiKeys, settings: () => settings }),
    ...registerCommands({
      runtime,
      tree,
      picker,
      transcripts,
      log,
      startRun: (request, mode) => startRun(request, mode),
      startDemo: () =>
        startRun(
          { prompt: 'Plan the weekly shopping: compare prices, keep an eye on the build, and summarise the list.', label: DEMO_ROOT_LABEL },
          'interactive',
          new ScriptedModel(demoScript),
          // The Watcher loops until you stop it: give it ten minutes of steps.
          { maxStepsPerTurn: 400 },
        ),
    }),
  );

  log.info(`Arbor ${version} activated in ${vscode.env.appName} ${vscode.version}; model: ${model.label}`);

  const api: ArborApi = {
    version,
    startAgent(request: unknown) {
      const parsed = parsePublicRunRequestFrom('api', request);
      return { id: startRun(parsed, 'interactive').id };
    },
    stopAgent(id: string) {
      if (typeof id !== 'string') throw new ArborError('INPUT_INVALID', 'stopAgent takes an agent id (a string).');
      const agent = runtime.agents.get(id);
      return agent ? runtime.stop(agent) : { accepted: true };
    },
    listAgents() {
      return runtime.agents.all().map((a) => ({ id: a.id, label: a.label, kind: a.kind, status: a.status, parentId: runtime.agents.parentOf(a)?.id }));
    },
  };
  if (process.env.ARBOR_TESTING === '1') {
    const testing: ArborTesting = {
      runtime,
      tree,
      treeView,
      changesTree,
      review,
      picker,
      previews,
      transcripts,
      conversations,
      history,
      historyView,
      sessions: store,
      model,
      links,
      log,
      startScripted: (script, prompt, label, mode = 'interactive') => startRun({ prompt, label }, mode, new ScriptedModel(script)),
      deactivate: () => {
        for (const disposable of context.subscriptions.splice(0).reverse()) disposable.dispose();
      },
    };
    Object.assign(api, { testing });
  }
  return api;
}

/**
 * Durable sessions live in the extension's storage folder: per workspace when one is open,
 * else the global one. Without a local folder (a web-only editor) they stay in memory.
 */
function openSessionStore(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): JsonlSessionStore | undefined {
  const base = context.storageUri ?? context.globalStorageUri;
  if (base.scheme !== 'file') {
    log.warn(`Sessions are kept in memory only: the storage folder ${base.toString()} is not on a local disk.`);
    return undefined;
  }
  const folder = path.join(base.fsPath, 'sessions');
  log.info(`Sessions are saved in ${folder}`);
  // Write problems also show on the agent's node; a file Arbor had to write again is a warning.
  const where = vscode.workspace.name ? `for "${vscode.workspace.name}"` : 'with no folder open';
  const fsyncAtFlush = vscode.workspace.getConfiguration('arbor').get<unknown>('sessions.fsyncAtTurnEnd', false) === true;
  return new JsonlSessionStore(folder, {
    owner: `the ${vscode.env.appName} window ${where}`,
    fsyncAtFlush,
    onError: (error) => (error.code === 'SESSION_FILE_LOST' ? log.warn(error.message) : log.error(error.message)),
  });
}

export function deactivate(): void {
  // Everything Arbor creates is owned by context.subscriptions, which VS Code disposes.
}
