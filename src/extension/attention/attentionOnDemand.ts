import type * as vscode from 'vscode';
import type { Runtime } from '../../core';
import { attentionPart, commandsOnFirstUse } from '../parts';
import type { Attention, AttentionDeps } from './attentionPart';

const COMMANDS = ['arbor.showWaiting', 'arbor.openWaiting', 'arbor.answer'] as const;

/**
 * The inbox at start is only this: it loads the attention part (attentionPart.ts) when the
 * first prompt opens, a run or an agent is paused, a restore put back something that waits, or
 * one of its commands runs. Before that nothing waits, so there is nothing to show (and no
 * prompt waits for `arbor.attention.openPrompts` to change).
 */
export function attentionOnDemand(deps: AttentionDeps & { readonly runtime: Runtime; readonly restored: Promise<unknown> }): { attention: () => Attention; subscriptions: vscode.Disposable[] } {
  let started: Attention | undefined;
  const attention = (): Attention => (started ??= attentionPart().startAttention(deps));
  const { runtime } = deps;
  const subscriptions = [
    runtime.interaction.onDidChangePending(attention),
    runtime.budgets.onEvent((e) => {
      if (e.type !== 'warning') attention();
    }),
    ...commandsOnFirstUse(COMMANDS, () => attention().commands),
    {
      dispose: () => {
        started?.dispose();
      },
    },
  ];
  void deps.restored.then(() => {
    if (runtime.agents.all().some((a) => a.holds.length > 0)) attention().queue.refresh();
  });
  return { attention, subscriptions };
}
