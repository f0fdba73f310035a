import type * as vscode from 'vscode';
import type { Runtime } from '../../core';
import { budgetNotificationsPart, commandsOnFirstUse } from '../parts';

export const RAISE_BRANCH_LIMIT_COMMAND = 'arbor.raiseBranchLimit';

/**
 * Shows each event of the budget guard to the human (budgetNotifications.ts, a part loaded by
 * the first event: runs without limits and runaway guards that fire never need it), and
 * registers Raise limit on a node (its agent's own budget), which loads the same part.
 */
export function notifyBudgets(runtime: Runtime, log: vscode.LogOutputChannel, openTranscript: (agentId: string) => void): vscode.Disposable {
  const events = runtime.budgets.onEvent((event) => budgetNotificationsPart().showBudgetEvent(event, runtime, log, openTranscript));
  const commands = commandsOnFirstUse([RAISE_BRANCH_LIMIT_COMMAND], () => ({ [RAISE_BRANCH_LIMIT_COMMAND]: (node: unknown) => budgetNotificationsPart().raiseBranchLimit(runtime, log, node) }));
  return { dispose: () => [events, ...commands].forEach((d) => d.dispose()) };
}
