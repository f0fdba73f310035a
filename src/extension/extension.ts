// Arbor's activation: a short composition of its parts. Each part registers what it owns in
// context.subscriptions, so deactivation disposes everything in the reverse order.
//   runtimeHost   the core runtime on the chosen model, its session store, the settings
//   views         Agents and History views, transcripts, conversation views, question prompts
//   commands      agents/, conversation/, history/, models/ (each folder registers its own)
//   api/          the API exported to other extensions, and vscode://arbor.arbor links
//   testing       the handle Arbor's integration tests use (only with ARBOR_TESTING=1)
import * as vscode from 'vscode';
import * as z from 'zod';
import { registerAgentCommands } from './agents/agentCommands';
import { ManageApprovals } from './approvals/manageApprovals';
import { createAgentRuns } from './agents/agentRuns';
import { notifyTurnEnds } from './agents/turnNotifications';
import { showWaitingBadge } from './agents/waitingBadge';
import { createArborApi, type ArborApi } from './api/arborApi';
import { RunLinkHandler } from './api/runLinks';
import { registerConversationCommands } from './conversation/conversationCommands';
import { registerHistoryCommands } from './history/historyCommands';
import { VscodeToolBridge } from './lmTools/vscodeToolBridge';
import { registerModelCommands } from './models/modelCommands';
import { hostRuntime } from './runtimeHost';
import { createTestingHandle } from './testing';
import { registerExternalAgents } from './external';
import { createViews } from './views';
import { WORKTREE_BASE_SCHEME, WorktreeRuns, registerWorktreeCommands } from './worktrees';

export type { AgentSummary, ArborApi } from './api/arborApi';
export type { ArborObservations, ArborTesting } from './testing';

/** The part of Arbor's own package.json that activation reads. */
const manifestSchema = z.object({ version: z.string() });

export function activate(context: vscode.ExtensionContext): ArborApi {
  const log = vscode.window.createOutputChannel('Arbor', { log: true });
  context.subscriptions.push(log);
  const manifest: unknown = context.extension.packageJSON;
  const version = manifestSchema.parse(manifest).version;

  const host = hostRuntime(context, log);
  const { runtime, store } = host;
  const views = createViews(context, host, log);
  const { tree, treeView, history, picker, previews, transcripts, conversations } = views;
  const manageApprovals = new ManageApprovals(host.approvalRules, log);
  const vscodeTools = new VscodeToolBridge(runtime, log, (problem) => {
    log.warn(problem);
    void vscode.window.showWarningMessage(`Arbor: ${problem}`);
  });
  context.subscriptions.push(manageApprovals, manageApprovals.register(), vscodeTools);
  // Tools another extension registered since the last run (an MCP server that started) join at each start.
  const runs = createAgentRuns(runtime, log, () => vscodeTools.sync());
  const worktrees = new WorktreeRuns(runtime, runs, vscode.Uri.joinPath(context.globalStorageUri, 'worktrees').fsPath, log);
  const externalAgents = registerExternalAgents(context, runtime, log);
  const links = new RunLinkHandler(log, (request) => runs.start(request, 'interactive'), previews);

  context.subscriptions.push(
    vscode.window.registerUriHandler(links),
    showWaitingBadge(runtime.interaction, treeView),
    notifyTurnEnds(runtime, transcripts, log),
    ...registerConversationCommands({ runtime, tree, conversations, log }),
    ...registerHistoryCommands({ runtime, store, history, transcripts, agentsView: treeView, log }),
    ...registerModelCommands({ log, apiKeys: host.apiKeys, settings: host.settings }),
    vscode.workspace.registerTextDocumentContentProvider(WORKTREE_BASE_SCHEME, worktrees),
    ...registerWorktreeCommands(runtime, worktrees, log),
    ...registerAgentCommands({ runtime, tree, picker, transcripts, log, startRun: runs.start, startDemo: runs.startDemo }),
  );

  log.info(`Arbor ${version} activated in ${vscode.env.appName} ${vscode.version}; model: ${host.model.label}`);

  const api = createArborApi({ version, runtime, startInteractive: (request) => runs.start(request, 'interactive') });
  if (process.env.ARBOR_TESTING === '1') Object.assign(api, { testing: createTestingHandle({ context, host, views, runs, links, log, manageApprovals, vscodeTools, worktrees, externalAgents }) });
  return api;
}

export function deactivate(): void {
  // Everything Arbor creates is owned by context.subscriptions, which VS Code disposes.
}
