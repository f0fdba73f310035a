import type * as vscode from 'vscode';
import type { Runtime } from '../../core';
import { budgetNotificationsPart } from '../parts';

/**
 * Shows each event of the budget guard to the human (budgetNotifications.ts, a part loaded by
 * the first event: runs without limits and runaway guards that fire never need it).
 */
export function notifyBudgets(runtime: Runtime, log: vscode.LogOutputChannel, openTranscript: (agentId: string) => void): vscode.Disposable {
  return runtime.budgets.onEvent((event) => budgetNotificationsPart().showBudgetEvent(event, runtime, log, openTranscript));
}
