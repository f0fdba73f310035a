// The handle Arbor's own integration tests use to look inside, exported only when the extension
// host runs them (ARBOR_TESTING=1). What tests count (repaints, prompts, previews) is counted
// here, from the events the parts fire, so no production class keeps a tally for them.
import type * as vscode from 'vscode';
import type { RunLimitsInput, Runtime } from '../core';
import type { Agent } from '../core/agents';
import { ScriptedModel, type SwitchableModel } from '../core/models';
import type { JsonlSessionStore } from '../core/sessions';
import type { AgentsTreeNode, AgentsTreeProvider } from './agents/agentsTree';
import type { AgentRuns } from './agents/agentRuns';
import type { ManageApprovals } from './approvals/manageApprovals';
import type { EditorApprovalRuleStore } from './approvals/ruleStore';
import type { RunLinkHandler } from './api/runLinks';
import type { ConversationPanels } from './conversation/conversationPanels';
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
}

/** Handles the integration tests use to look inside; absent in normal use. */
export interface ArborTesting {
  runtime: Runtime;
  /** The Agents view's provider: agents, their ended subagents and, under each, the files it changed. */
  tree: AgentsTreeProvider;
  treeView: vscode.TreeView<AgentsTreeNode>;
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
  manageApprovals: ManageApprovals;
  /** The tools of other extensions (vscode.lm.tools) offered to agents. */
  vscodeTools: VscodeToolBridge;
  /** The Arbor log (the Output channel Show Log opens). */
  log: vscode.LogOutputChannel;
  /** The scheduler, the Schedules view and their runs' events. */
  schedules: ScheduledRuns;
  /** External agents: their settings and starting one as a root (tests bring the test agent). */
  externalAgents: ExternalAgents;
  /** Dispose everything Arbor registered, exactly as deactivation does. */
  deactivate(): void;
}

export interface TestingParts {
  context: vscode.ExtensionContext;
  host: RuntimeHost;
  views: ArborViews;
  runs: AgentRuns;
  links: RunLinkHandler;
  log: vscode.LogOutputChannel;
  manageApprovals: ManageApprovals;
  vscodeTools: VscodeToolBridge;
  worktrees: WorktreeRuns;
  schedules: ScheduledRuns;
  usageBar: UsageStatusBar;
  externalAgents: ExternalAgents;
}

export function createTestingHandle({ context, host, views, runs, links, log, manageApprovals, vscodeTools, worktrees, schedules, usageBar, externalAgents }: TestingParts): ArborTesting {
  const observed: ArborObservations = { repaints: 0, prompts: [], previews: [] };
  context.subscriptions.push(
    views.tree.onDidChangeTreeData(() => observed.repaints++),
    views.picker.onDidOpenPrompt((prompt) => observed.prompts.push(prompt)),
    views.previews.onDidOpenPreview((preview) => observed.previews.push(preview)),
  );
  return {
    ...views,
    runtime: host.runtime,
    sessions: host.store,
    model: host.model,
    observed,
    links,
    log,
    approvalRules: host.approvalRules,
    manageApprovals,
    vscodeTools,
    startScripted: (script, prompt, label, mode = 'interactive', limits) => runs.startScripted(script, { prompt, label }, mode, limits),
    usageBar,
    worktrees,
    schedules,
    externalAgents,
    startScriptedInWorktree: (script, prompt, label) => worktrees.start({ prompt, label }, new ScriptedModel(script)),
    deactivate: () => {
      for (const disposable of context.subscriptions.splice(0).reverse()) disposable.dispose();
    },
  };
}
