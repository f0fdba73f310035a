import * as vscode from 'vscode';
import type { UserInteractionService } from '../../core/interaction';

/** The Agents view's badge counts the agents waiting for the human's answer. */
export function showWaitingBadge(interaction: UserInteractionService, agentsView: Pick<vscode.TreeView<unknown>, 'badge'>): vscode.Disposable {
  const update = (): void => {
    const waiting = new Set(interaction.pending().map((p) => p.agent?.id ?? '')).size;
    agentsView.badge = waiting ? { value: waiting, tooltip: `${waiting} agent${waiting === 1 ? ' is' : 's are'} waiting for your answer` } : undefined;
  };
  return interaction.onDidChangePending(update);
}
