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
import type { CodeCacheUse } from './codeCache';
import * as vscode from 'vscode';
import * as z from 'zod';
import { registerAgentCommands } from './agents/agentCommands';
import type { ManageApprovals } from './approvals/manageApprovals';
import { createAgentRuns } from './agents/agentRuns';
import { notifyTurnEnds } from './agents/turnNotifications';
import { attentionOnDemand } from './attention/attentionOnDemand';
import { createArborApi, type ArborApi } from './api/arborApi';
import { notifyBudgets, UsageStatusBar } from './budgets';
import { registerConversationCommands } from './conversation/conversationCommands';
import { registerArborTools } from './lmTools/arborTools';
import { VscodeToolBridge } from './lmTools/vscodeToolBridge';
import { hostRuntime } from './runtimeHost';
import { schedulesOnDemand } from './schedules/schedulesOnDemand';
import { registerExternalAgents } from './external';
import { createViews } from './views';
import { reportError } from './errorReporting';
import { scriptedModelPart } from '../core/models';
import type { WorktreeRuns } from './worktrees/worktreeRuns';
import { AgentDefinitionFiles } from './definitions/definitionFiles';
import { once } from '../core';
import {
  HISTORY_COMMANDS,
  MANAGE_APPROVALS_COMMAND,
  MODEL_COMMANDS,
  NEW_DEFINITION_COMMAND,
  WORKTREE_BASE_SCHEME,
  WORKTREE_COMMANDS,
  commandsOnFirstUse,
  demoPart,
  definitionsPart,
  historyCommandsPart,
  manageApprovalsPart,
  modelCommandsPart,
  restoreAtStartPart,
  runLinksPart,
  testingPart,
  worktreeCommandsPart,
  worktreesPart,
} from './parts';

/** The part of Arbor's own package.json that activation reads. */
const manifestSchema = z.object({ version: z.string() });

/**
 * Starts Arbor: its runtime, views, commands and API. `activated` is when activate() was called
 * (process.cpuUsage() and performance.now() then): the log says what the start cost from there,
 * loading this bundle included, as the real extension host measured it.
 */
export function startArbor(context: vscode.ExtensionContext, activated?: StartedFrom): ArborApi {
  const log = vscode.window.createOutputChannel('Arbor', { log: true });
  context.subscriptions.push(log);
  const manifest: unknown = context.extension.packageJSON;
  const version = manifestSchema.parse(manifest).version;

  const host = hostRuntime(context, log);
  const { runtime, store } = host;
  const views = createViews(context, host, log);
  const { tree, treeView, history, picker, previews, transcripts, conversations } = views;
  // Made by the first Manage Approvals... (its part loads then).
  let approvals: ManageApprovals | undefined;
  const manageApprovals = (): ManageApprovals => (approvals ??= new (manageApprovalsPart().ManageApprovals)(host.approvalRules, log, runtime.approvals.grants));
  const vscodeTools = new VscodeToolBridge(runtime, log, (problem) => {
    log.warn(problem);
    void vscode.window.showWarningMessage(`Arbor: ${problem}`);
  });
  context.subscriptions.push({ dispose: () => approvals?.dispose() }, ...commandsOnFirstUse([MANAGE_APPROVALS_COMMAND], () => ({ [MANAGE_APPROVALS_COMMAND]: () => manageApprovals().show() })), vscodeTools);
  // Tools another extension registered since the last run (an MCP server that started) join at each start.
  const runs = createAgentRuns(runtime, log, () => vscodeTools.sync());
  // Made the first time a worktree command runs (or a restored root had a worktree): only then does its part load.
  let worktreeRuns: WorktreeRuns | undefined;
  const worktrees = once(() => (worktreeRuns = new (worktreesPart().WorktreeRuns)(runtime, runs, vscode.Uri.joinPath(context.globalStorageUri, 'worktrees').fsPath, log)));
  const externalAgents = registerExternalAgents(context, runtime, log);
  // Made by the first link followed (its part loads then).
  const links = once(() => new (runLinksPart().RunLinkHandler)(log, (request) => runs.start(request, 'interactive'), previews));
  const usageBar = new UsageStatusBar(runtime);
  const definitionFiles = new AgentDefinitionFiles(runtime, log, (resolved) => {
    if (resolved.definitions.some((d) => d.model !== undefined)) void host.definitionModels.refresh();
  });

  context.subscriptions.push(
    vscode.window.registerUriHandler({ handleUri: (uri) => links().handleUri(uri) }),
    notifyTurnEnds(runtime, transcripts, log),
    usageBar,
    notifyBudgets(runtime, log, (id) => {
      const agent = runtime.agents.get(id);
      if (agent) void transcripts.show(agent, { preview: false, preserveFocus: false });
    }),
    ...registerConversationCommands({ runtime, conversations, log }),
    ...commandsOnFirstUse(HISTORY_COMMANDS, once(() => historyCommandsPart().historyCommands({ runtime, store, history, transcripts, agentsView: treeView, log, externalEngine: externalAgents.engineForResume }))),
    ...commandsOnFirstUse(MODEL_COMMANDS, once(() => modelCommandsPart().modelCommands({ log, apiKeys: host.apiKeys, settings: host.settings }))),
    vscode.workspace.registerTextDocumentContentProvider(WORKTREE_BASE_SCHEME, { provideTextDocumentContent: (uri) => worktrees().provideTextDocumentContent(uri) }),
    ...commandsOnFirstUse(WORKTREE_COMMANDS, once(() => worktreeCommandsPart().worktreeCommands(runtime, worktrees, log))),
    ...registerAgentCommands({ runtime, tree, transcripts, log, startRun: (request, mode, limits, definition) => runs.start(request, mode, undefined, limits, undefined, definition), startDemo: runs.startDemo, readDefinitions: () => definitionFiles.reload() }),
    definitionFiles,
    ...commandsOnFirstUse([NEW_DEFINITION_COMMAND], () => ({
      // The new file is read at once, not only when the file watcher reports it.
      [NEW_DEFINITION_COMMAND]: (name?: unknown) => definitionsPart().newAgentDefinition(log, name).then((file) => definitionFiles.reload().then(() => file)),
    })),
    // Chat agents (Copilot's agent mode, other extensions) hand tasks to Arbor as autonomous runs.
    ...registerArborTools({ runtime, log, startDelegated: (request) => runs.start(request, 'autonomous') }),
  );

  // Schedules start unattended runs while the window is open: after every command is registered.
  const schedules = schedulesOnDemand({ context, runtime, runs, log });

  log.info(`Arbor ${version} activated in ${vscode.env.appName} ${vscode.version}; model: ${host.model.label}${activated ? `; ${startCost(activated)}` : ''}`);

  const api = createArborApi({
    version,
    runtime,
    startInteractive: (request, limits) => runs.start(request, 'interactive', undefined, limits),
    subscriptions: context.subscriptions,
  });
  // The tree the window had when it last went away comes back by itself, after the start (its part loads then).
  const restored = new Promise<void>((resolve) => setImmediate(resolve)).then(() => restoreAtStartPart().restoreAtStart({
    runtime,
    ended: tree.ended,
    worktreeOf: (root) => worktreeRuns?.get(root.id)?.worktree,
    adoptWorktree: (root, worktree) => worktrees().adopt(root, worktree),
    log,
    warn: (message) => void vscode.window.showWarningMessage(message),
    // Only the demo's own run gets its scripted model back (its part loads then); other runs use the window's model.
    modelFor: (run, label) => {
      if (run.model !== 'scripted') return undefined;
      const demo = demoPart();
      return label === demo.DEMO_ROOT_LABEL ? new (scriptedModelPart().ScriptedModel)(demo.demoScript) : undefined;
    },
    externalEngine: (past, run) => externalAgents.engineForRestore(past, run.folder),
    onRestored: (agent) => void externalAgents.restartProcess(agent),
    afterReload: {
      setting: () => host.settings().afterReload,
      notifications: vscode.window,
      reveal: async (agent) => {
        await treeView.reveal(agent, { select: true, focus: true });
      },
    },
  })).catch((err: unknown) => {
    reportError(log, 'Could not put back the agents of the last window', err);
    return undefined;
  });
  // What waits on the human: loaded when the first thing waits (a restore may put some back).
  const { attention, subscriptions } = attentionOnDemand({ runtime, tree, treeView, picker, log, restored });
  context.subscriptions.push(...subscriptions);
  if (process.env.ARBOR_TESTING === '1') Object.assign(api, { testing: testingPart().createTestingHandle({ context, host, views, runs, links: links(), log, manageApprovals, vscodeTools, worktrees, schedules, usageBar, externalAgents, definitionFiles, restored, attention, codeCache: activated?.codeCache }) });
  return api;
}

/** What the start cost since activate() was called: CPU time of the process, and the time it took. */
/** When activate() was called, and how this bundle's code was had (codeCache.ts; none: loaded by require). */
export interface StartedFrom {
  cpu: NodeJS.CpuUsage;
  at: number;
  codeCache?: CodeCacheUse;
}

function startCost(activated: StartedFrom): string {
  const cpu = process.cpuUsage(activated.cpu);
  const code = activated.codeCache === undefined ? '' : activated.codeCache === 'used' ? ', its code from the code cache' : `, its code compiled (code cache: ${activated.codeCache})`;
  return `started ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms of CPU (${(performance.now() - activated.at).toFixed(1)} ms) after activate()${code}`;
}
