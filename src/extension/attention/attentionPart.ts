// Everything that waits on the human, in the editor: the "Waiting for you" section of the Agents
// view, the view's badge, the status-bar item, one notice per kind, and Arbor: Show What Is
// Waiting.... A part (dist/attentionPart.js), loaded when the first thing waits or the first of
// its commands runs (attentionOnDemand.ts): a window where nothing ever waits never loads it.
import * as vscode from 'vscode';
import type { Runtime } from '../../core';
import type { Agent } from '../../core/agents';
import { AttentionQueue, pathText, type AttentionItem } from '../../core/attention';
import type { AgentsTreeNode, AgentsTreeProvider } from '../agents/agentsTree';
import type { QuestionPicker } from '../questions/questionPicker';
import { AttentionNotices, SHOW_WAITING_COMMAND } from './attentionNotices';
import { WaitingCommands } from './openWaiting';

// The queue of the question prompts is made by the first question, as this part loads.
export { PromptQueue } from '../questions/promptQueue';
import { ANSWER_COMMAND, OPEN_WAITING_COMMAND, WaitingSectionRows } from './waitingRows';

export interface AttentionDeps {
  readonly runtime: Runtime;
  readonly tree: Pick<AgentsTreeProvider, 'showWaiting'>;
  readonly treeView: Pick<vscode.TreeView<AgentsTreeNode>, 'badge' | 'reveal'>;
  readonly picker: Pick<QuestionPicker, 'open' | 'putBack' | 'shownId' | 'pump'>;
  readonly log: vscode.LogOutputChannel;
}

export interface Attention extends vscode.Disposable {
  readonly queue: AttentionQueue;
  readonly commands: Record<typeof SHOW_WAITING_COMMAND | typeof OPEN_WAITING_COMMAND | typeof ANSWER_COMMAND, (...args: unknown[]) => unknown>;
  readonly statusBar: vscode.StatusBarItem;
}

/** Starts the inbox over the runtime: its list is the core's attention queue, shown four ways. */
export function startAttention(deps: AttentionDeps): Attention {
  const { runtime, tree, treeView, picker, log } = deps;
  const queue = new AttentionQueue({
    interaction: runtime.interaction,
    agents: runtime.agents,
    onEvents: runtime.onEvents,
    onBudgetEvent: runtime.budgets.onEvent,
    onProblem: (problem, err) => log.warn(`${problem}: ${String(err)}`),
  });
  const rows = new WaitingSectionRows();
  const reveal = async (agent: Agent): Promise<void> => {
    await treeView.reveal(agent, { select: true, focus: true });
  };
  const waiting = new WaitingCommands({ runtime, queue, picker, log, reveal });
  const notices = new AttentionNotices({ shownId: () => picker.shownId, open: (key) => waiting.open(key), showInformationMessage: (m, ...a) => vscode.window.showInformationMessage(m, ...a) });
  const statusBar = vscode.window.createStatusBarItem('arbor.waiting', vscode.StatusBarAlignment.Left, 1);
  statusBar.name = 'Arbor Waiting for You';
  statusBar.command = SHOW_WAITING_COMMAND;

  const show = (items: readonly AttentionItem[]): void => {
    rows.update(items);
    tree.showWaiting(rows);
    const n = items.length;
    treeView.badge = n > 0 ? { value: n, tooltip: `${n} waiting for you` } : undefined;
    if (n > 0) {
      statusBar.text = `$(bell-dot) ${n} waiting`;
      statusBar.tooltip = `${n} waiting for you, the oldest from ${pathText(items[0])}. Click to see them all.`;
      statusBar.show();
    } else statusBar.hide();
    notices.update(items);
  };
  const subscriptions = [
    queue.onDidChange(show),
    // `manual` to `auto`: the oldest prompt may open now.
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('arbor.attention')) picker.pump();
    }),
  ];
  show(queue.items());

  return {
    queue,
    statusBar,
    commands: {
      [SHOW_WAITING_COMMAND]: () => waiting.show(),
      [OPEN_WAITING_COMMAND]: (key?: unknown) => waiting.open(key),
      [ANSWER_COMMAND]: (node?: unknown) => waiting.answer(node),
    },
    dispose: () => {
      for (const s of subscriptions) s.dispose();
      queue.dispose();
      statusBar.dispose();
    },
  };
}
