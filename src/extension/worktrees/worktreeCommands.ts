// Start Agent in a Worktree, and Review / Keep / Discard of a worktree agent's changes. The
// commands are registered at start (src/extension/parts.ts); what they do is this part, loaded
// by the first of them, and the worktree runs themselves load when a command needs them.
import * as vscode from 'vscode';
import type { Runtime } from '../../core';
import { parsePublicRunRequestFrom, type PublicRunRequest } from '../../core/interaction';
import { parseAgentArgument } from '../commandArguments';
import { parsedArgument, reportError } from '../errorReporting';
import type { WORKTREE_COMMANDS } from '../parts';
import type { WorktreeEntry, WorktreeRuns } from './worktreeRuns';

export function worktreeCommands(runtime: Runtime, loadWorktrees: () => WorktreeRuns, log: vscode.LogOutputChannel): Record<(typeof WORKTREE_COMMANDS)[number], (arg?: unknown) => unknown> {
  const worktrees = { get: (id: string) => loadWorktrees().get(id), list: () => loadWorktrees().list() };
  /** The node's worktree agent, or (from the palette) the one the user picks. */
  const entryOf = async (title: string, arg: unknown): Promise<WorktreeEntry | undefined> => {
    const node = arg === undefined ? undefined : parsedArgument(log, () => parseAgentArgument(runtime, title, arg));
    const own = node && worktrees.get(node.id);
    if (own) return own;
    const all = worktrees.list();
    if (all.length === 0) {
      void vscode.window.showInformationMessage('No agent works in a worktree. Start one with Arbor: Start Agent in a Worktree.');
      return undefined;
    }
    const chosen = await vscode.window.showQuickPick(
      all.map((entry) => ({ label: entry.agent.label, description: entry.worktree.branch, entry })),
      { title, placeHolder: 'Choose a worktree agent' },
    );
    return chosen?.entry;
  };

  const guarded =
    <T>(title: string, action: (entry: WorktreeEntry) => Promise<T>) =>
    async (arg?: unknown): Promise<T | undefined> => {
      const entry = await entryOf(title, arg);
      if (!entry) return undefined;
      try {
        return await action(entry);
      } catch (err) {
        reportError(log, `${title.replace(/^Arbor: /, '')} failed for "${entry.agent.label}"`, err);
        return undefined;
      }
    };

  const askTask = async (request: unknown): Promise<PublicRunRequest | undefined> => {
    if (request !== undefined) return parsePublicRunRequestFrom('command', request);
    const prompt = await vscode.window.showInputBox({
      title: 'Arbor: Start Agent in a Worktree',
      prompt: 'What should the agent do? It works on a new branch in a worktree of its own; your files change only when you Keep its work.',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : 'Describe the task for the agent.'),
    });
    return prompt === undefined ? undefined : { prompt };
  };

  return {
    'arbor.runAgentInWorktree': async (request?: unknown) => {
      try {
        const parsed = await askTask(request);
        if (!parsed) return undefined;
        const agent = await loadWorktrees().start(parsed);
        void vscode.commands.executeCommand('arbor.agents.focus');
        return agent.id;
      } catch (err) {
        reportError(log, 'Could not start the agent in a worktree', err);
        return undefined;
      }
    },
    'arbor.reviewWorktree': guarded('Arbor: Review Worktree Changes', async (entry) => (await loadWorktrees().review(entry.agent.id)).length),
    'arbor.keepWorktree': guarded('Arbor: Keep Worktree Changes', async (entry) => {
        const applied = await loadWorktrees().keep(entry.agent.id);
        void vscode.window.showInformationMessage(
          applied.length === 0 ? `"${entry.agent.label}" changed nothing; its worktree is removed.` : `Applied ${applied.length} change(s) of "${entry.agent.label}" to your files.`,
        );
        return applied.length;
      }),
    'arbor.discardWorktree': guarded('Arbor: Discard Worktree', (entry) => loadWorktrees().discard(entry.agent.id)),
  };
}
