// The handle Arbor's own integration tests use to look inside, exported only when the extension
// host runs them (ARBOR_TESTING=1). What tests count (repaints, prompts, previews, History's
// reads, what conversation views were sent) and what they read of open prompts is kept here,
// from the events the parts fire, so no production class keeps a tally or an accessor for them.
import type { CodeCacheUse } from './codeCache';
import type { Attention } from './attention/attentionPart';
import type * as vscode from 'vscode';
import type { RestoreReport, RunLimitsInput, Runtime } from '../core';
import type { Agent } from '../core/agents';
import { scriptedModelPart, type SwitchableModel } from '../core/models';
import type { JsonlSessionStore } from '../core/sessions';
import type { AgentsTreeNode, AgentsTreeProvider } from './agents/agentsTree';
import type { AgentRuns } from './agents/agentRuns';
import type { ManageApprovals, OpenApprovals, RuleItem } from './approvals/manageApprovals';
import type { EditorApprovalRuleStore } from './approvals/ruleStore';
import type { RunLinkHandler } from './api/runLinks';
import type { HostToWebviewMessage } from '../core/rpc';
import type { ConversationPanels, ConversationView } from './conversation/conversationPanels';
import type { TranscriptProvider } from './conversation/transcripts';
import type { HistoryNode } from './history/historyNodes';
import type { HistoryTreeProvider } from './history/historyTree';
import type { VscodeToolBridge } from './lmTools/vscodeToolBridge';
import type { OpenedPrompt, QuestionPicker } from './questions/questionPicker';
import type { ReviewPreviews } from './questions/reviewPreview';
import type { ChangeReview } from './review';
import type { RuntimeHost } from './runtimeHost';
import type { ScheduledRuns } from './schedules';
import type { UsageStatusBar } from './budgets';
import type { ExternalAgents } from './external';
import type { AgentDefinitionFiles } from './definitions/definitionFiles';
import type { ArborViews } from './views';
import type { WorktreeRuns } from './worktrees';

/** What the parts did that the human saw, counted since activation. */
export interface ArborObservations {
  /** Repaints the Agents view was asked for (tests check that bursts coalesce). */
  repaints: number;
  /** Every question put in front of the human (tests prove an owned child never opens one). */
  readonly prompts: OpenedPrompt[];
  /** Every preview a prompt opened, with its exact text (what the human was shown). */
  readonly previews: Array<{ uri: string; text: string }>;
  /** Reads of the session folder by History, in full or of the sessions that changed (tests check that bursts coalesce). */
  historyReads: number;
}

/** What one conversation view has been sent since it opened. */
export interface ConversationStats {
  snapshots: number;
  /** `items` messages: only the items that changed. */
  itemUpdates: number;
  states: number;
  errors: number;
  /** Size of everything posted, as JSON characters. */
  bytes: number;
}

/** The agents' conversation views, as tests drive and read them. */
export interface ConversationsUnderTest {
  open: ConversationPanels['open'];
  isOpen(agentId: string): boolean;
  /** Hands a raw message to the view's handler as if its webview had posted it; returns the replies posted at once. */
  receive(agentId: string, raw: unknown): HostToWebviewMessage[];
  /** What the agent's open view has been sent since it opened; undefined when none is open. */
  stats(agentId: string): ConversationStats | undefined;
  close(agentId: string): void;
}

/** What Manage Approvals has open: the list of rules and the "remove this rule?" question. */
export interface ApprovalsUnderTest {
  readonly current: vscode.QuickPick<RuleItem> | undefined;
  readonly confirmation: vscode.QuickPick<vscode.QuickPickItem> | undefined;
}

/** Handles the integration tests use to look inside; absent in normal use. */
export interface ArborTesting {
  runtime: Runtime;
  /** The Agents view's provider: agents, their ended subagents and, under each, the files it changed. */
  tree: AgentsTreeProvider;
  treeView: vscode.TreeView<AgentsTreeNode>;
  /** Review, Keep and Undo of each agent's changes (tests replace its modal confirmation); made when first asked for. */
  review: ChangeReview;
  picker: QuestionPicker;
  /** The read-only previews prompts open for what they ask the human to decide on. */
  previews: ReviewPreviews;
  transcripts: TranscriptProvider;
  /** The agents' conversation views; `receive` injects a raw message as if a view had posted it. */
  conversations: ConversationsUnderTest;
  history: HistoryTreeProvider;
  historyView: vscode.TreeView<HistoryNode>;
  /** The durable session store (absent when the editor gives Arbor no local storage folder). */
  sessions: JsonlSessionStore | undefined;
  /** The model new turns use (the current provider is `model.provider`). */
  model: SwitchableModel;
  /** Repaints, prompts and previews seen since activation. */
  observed: ArborObservations;
  /** Start a root on a scripted model (tests bring their own script), with limits of its own when given. */
  startScripted(script: unknown, prompt: string, label: string, mode?: 'interactive' | 'autonomous', limits?: RunLimitsInput): Agent;
  /** The status-bar item with what the live runs use. */
  usageBar: UsageStatusBar;
  /** Agents in a worktree of their own (tests replace its Discard confirmation). */
  worktrees: WorktreeRuns;
  /** Start a root in a new worktree on a scripted model. */
  startScriptedInWorktree(script: unknown, prompt: string, label: string): Promise<Agent>;
  /** The handler behind vscode://arbor.arbor/... links. */
  links: RunLinkHandler;
  /** Remembered approval rules (setting, workspace, always) and the Manage Approvals list. */
  approvalRules: EditorApprovalRuleStore;
  manageApprovals: ApprovalsUnderTest;
  /** The tools of other extensions (vscode.lm.tools) offered to agents. */
  vscodeTools: VscodeToolBridge;
  /** The Arbor log (the Output channel Show Log opens). */
  log: vscode.LogOutputChannel;
  /** The scheduler, the Schedules view and their runs' events. */
  schedules: ScheduledRuns;
  /** External agents: their settings and starting one as a root (tests bring the test agent). */
  externalAgents: ExternalAgents;
  /** The agent definition files, their diagnostics and the set in the runtime. */
  definitionFiles: AgentDefinitionFiles;
  /** Dispose everything Arbor registered, exactly as deactivation does. */
  deactivate(): void;
  /** Settles when the tree of the last window is put back (undefined when that failed as a whole). */
  restored: Promise<RestoreReport | undefined>;
  /** What waits on the human (its part is loaded by the first use of this). */
  readonly attention: Attention;
  /** How this start had dist/arbor.js's code (codeCache.ts: 'used' from the cache); undefined when loaded by require. */
  readonly codeCache: CodeCacheUse | undefined;
}

export interface TestingParts {
  context: vscode.ExtensionContext;
  host: RuntimeHost;
  views: ArborViews;
  runs: AgentRuns;
  links: RunLinkHandler;
  log: vscode.LogOutputChannel;
  manageApprovals: () => ManageApprovals;
  vscodeTools: VscodeToolBridge;
  /** The worktree runs, made (and their part loaded) when first asked for. */
  worktrees: () => WorktreeRuns;
  /** The scheduled runs, loaded when first asked for. */
  schedules: () => ScheduledRuns;
  usageBar: UsageStatusBar;
  externalAgents: ExternalAgents;
  restored: Promise<RestoreReport | undefined>;
  definitionFiles: AgentDefinitionFiles;
  attention: () => Attention;
  codeCache: CodeCacheUse | undefined;
}

export function createTestingHandle({ context, host, views, runs, links, log, manageApprovals, vscodeTools, worktrees, schedules, usageBar, externalAgents, definitionFiles, restored, attention, codeCache }: TestingParts): ArborTesting {
  const observed: ArborObservations = { repaints: 0, prompts: [], previews: [], historyReads: 0 };
  context.subscriptions.push(
    views.tree.onDidChangeTreeData(() => observed.repaints++),
    views.picker.onDidOpenPrompt((prompt) => observed.prompts.push(prompt)),
    views.previews.onDidOpenPreview((preview) => observed.previews.push(preview)),
    views.history.onDidRead(() => observed.historyReads++),
  );
  return {
    ...views,
    get review() {
      return views.review();
    },
    conversations: conversationsUnderTest(context, views.conversations),
    manageApprovals: approvalsUnderTest(context, manageApprovals),
    runtime: host.runtime,
    sessions: host.store,
    model: host.model,
    observed,
    links,
    log,
    approvalRules: host.approvalRules,
    vscodeTools,
    startScripted: (script, prompt, label, mode = 'interactive', limits) => runs.startScripted(script, { prompt, label }, mode, limits),
    usageBar,
    get worktrees() {
      return worktrees();
    },
    get schedules() {
      return schedules();
    },
    externalAgents,
    restored,
    codeCache,
    definitionFiles,
    get attention() {
      return attention();
    },
    startScriptedInWorktree: (script, prompt, label) => worktrees().start({ prompt, label }, new (scriptedModelPart().ScriptedModel)(script)),
    deactivate: () => {
      for (const disposable of context.subscriptions.splice(0).reverse()) disposable.dispose();
    },
  };
}

function conversationsUnderTest(context: vscode.ExtensionContext, loadConversations: () => ConversationPanels): ConversationsUnderTest {
  // Tests count what every view is sent from the first one on: the views are made now.
  const conversations = loadConversations();
  const sent = new WeakMap<ConversationView, ConversationStats>();
  context.subscriptions.push(
    conversations.onDidPost(({ view, message }) => {
      const stats = sent.get(view) ?? { snapshots: 0, itemUpdates: 0, states: 0, errors: 0, bytes: 0 };
      sent.set(view, stats);
      stats.bytes += JSON.stringify(message).length;
      if (message.type === 'snapshot') stats.snapshots++;
      else if (message.type === 'items') stats.itemUpdates++;
      else if (message.type === 'state') stats.states++;
      else stats.errors++;
    }),
  );
  return {
    open: (agent, options) => conversations.open(agent, options),
    isOpen: (agentId) => conversations.view(agentId) !== undefined,
    receive: (agentId, raw) => {
      const view = conversations.view(agentId);
      if (!view) throw new Error(`No conversation view is open for agent ${agentId}.`);
      return view.receive(raw);
    },
    stats: (agentId) => {
      const view = conversations.view(agentId);
      return view && { ...(sent.get(view) ?? { snapshots: 0, itemUpdates: 0, states: 0, errors: 0, bytes: 0 }) };
    },
    close: (agentId) => conversations.view(agentId)?.dispose(),
  };
}

function approvalsUnderTest(context: vscode.ExtensionContext, manageApprovals: () => ManageApprovals): ApprovalsUnderTest {
  let open: OpenApprovals = {};
  // Tests read what the list shows from the first time it opens: Manage Approvals is made now.
  context.subscriptions.push(manageApprovals().onDidChangeOpen((now) => (open = now)));
  return {
    get current() {
      return open.list;
    },
    get confirmation() {
      return open.confirmation;
    },
  };
}
