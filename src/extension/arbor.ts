// Everything Arbor does in the editor, composed: loaded and started right after activation
// (see extension.ts). Each part registers what it owns in context.subscriptions, so
// deactivation disposes everything in the reverse order.
//   runtimeHost   the core runtime on the chosen model, its session store, the settings
//   views         Agents and History views, transcripts, conversation views, question prompts
//   commands      agents/, conversation/, history/, models/ (each folder registers its own)
//   api/          the API exported to other extensions, and vscode://arbor.arbor links
//   lmTools/      VS Code's tools offered to agents, and Arbor offered as a tool to chat agents
//   schedules/    runs started on a cron schedule, and the Schedules view
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
import { notifyBudgets, UsageStatusBar } from './budgets';
import { registerConversationCommands } from './conversation/conversationCommands';
import { registerHistoryCommands } from './history/historyCommands';
import { registerArborTools } from './lmTools/arborTools';
import { VscodeToolBridge } from './lmTools/vscodeToolBridge';
import { registerModelCommands } from './models/modelCommands';
import { hostRuntime } from './runtimeHost';
import { createScheduledRuns } from './schedules';
import { createTestingHandle } from './testing';
import { registerExternalAgents } from './external';
import { createViews } from './views';
import { WORKTREE_BASE_SCHEME, WorktreeRuns, registerWorktreeCommands } from './worktrees';

/** The part of Arbor's own package.json that activation reads. */
const manifestSchema = z.object({ version: z.string() });

/** Starts Arbor: its runtime, views, commands and API. */
export function startArbor(context: vscode.ExtensionContext): ArborApi {
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
  const usageBar = new UsageStatusBar(runtime);

  context.subscriptions.push(
    vscode.window.registerUriHandler(links),
    showWaitingBadge(runtime.interaction, treeView),
    notifyTurnEnds(runtime, transcripts, log),
    usageBar,
    notifyBudgets(runtime, log, (id) => {
      const agent = runtime.agents.get(id);
      if (agent) void transcripts.show(agent, { preview: false, preserveFocus: false });
    }),
    ...registerConversationCommands({ runtime, conversations, log }),
    ...registerHistoryCommands({ runtime, store, history, transcripts, agentsView: treeView, log, externalEngine: externalAgents.engineForResume }),
    ...registerModelCommands({ log, apiKeys: host.apiKeys, settings: host.settings }),
    vscode.workspace.registerTextDocumentContentProvider(WORKTREE_BASE_SCHEME, worktrees),
    ...registerWorktreeCommands(runtime, worktrees, log),
    ...registerAgentCommands({ runtime, tree, picker, transcripts, log, startRun: (request, mode, limits) => runs.start(request, mode, undefined, limits), startDemo: runs.startDemo }),
    // Chat agents (Copilot's agent mode, other extensions) hand tasks to Arbor as autonomous runs.
    ...registerArborTools({ runtime, log, startDelegated: (request) => runs.start(request, 'autonomous') }),
  );

  // Schedules start unattended runs while the window is open: after every command is registered.
  const schedules = createScheduledRuns({ context, runtime, runs, log });

  log.info(`Arbor ${version} activated in ${vscode.env.appName} ${vscode.version}; model: ${host.model.label}`);

  const api = createArborApi({
    version,
    runtime,
    startInteractive: (request, limits) => runs.start(request, 'interactive', undefined, limits),
    subscriptions: context.subscriptions,
  });
  if (process.env.ARBOR_TESTING === '1') Object.assign(api, { testing: createTestingHandle({ context, host, views, runs, links, log, manageApprovals, vscodeTools, worktrees, schedules, usageBar, externalAgents }) });
  return api;
}
