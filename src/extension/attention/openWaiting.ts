import * as vscode from 'vscode';
import type { Runtime } from '../../core';
import type { Agent } from '../../core/agents';
import { KIND_TEXT, pathText, type AttentionItem, type AttentionQueue } from '../../core/attention';
import type { QuestionPicker } from '../questions/questionPicker';
import { parseAgentArgument } from '../commandArguments';
import { parsedArgument, reportError } from '../errorReporting';
import { KIND_ICON, sinceText } from './waitingRows';

export interface OpenWaitingDeps {
  readonly runtime: Runtime;
  readonly queue: Pick<AttentionQueue, 'items'>;
  readonly picker: Pick<QuestionPicker, 'open' | 'putBack'>;
  readonly log: vscode.LogOutputChannel;
  /** Shows the agent's row in the Agents view. */
  reveal(agent: Agent): Thenable<void> | void;
}

export const NOTHING_WAITING = 'Nothing is waiting for you. Questions, approvals and plans your agents ask, and runs or agents paused until you let them go on, are listed here as they come.';

/**
 * Arbor: Show What Is Waiting... and a click on a waiting row: every open item, oldest first;
 * the one chosen opens. A prompt opens its own quick pick (the one in front is put back first,
 * never dismissed); a paused run or agent is revealed in the tree, and a quick pick offers what
 * lets it go on.
 */
export class WaitingCommands {
  constructor(private readonly deps: OpenWaitingDeps) {}

  async show(): Promise<string | undefined> {
    const items = this.deps.queue.items();
    if (items.length === 0) {
      void vscode.window.showInformationMessage(NOTHING_WAITING);
      return undefined;
    }
    // Our own quick pick would hide the prompt in front: it goes back, unanswered, first.
    this.deps.picker.putBack();
    const picks = items.map((item) => ({
      label: `$(${KIND_ICON[item.kind]}) ${pathText(item)}`,
      description: `${KIND_TEXT[item.kind]}, ${sinceText(item)}`,
      detail: item.asks,
      key: item.key,
    }));
    const chosen = await vscode.window.showQuickPick(picks, { title: 'Arbor: Waiting for you', placeHolder: `${items.length} waiting, oldest first: choose one to open it`, matchOnDescription: true, matchOnDetail: true });
    if (!chosen) return undefined;
    await this.open(chosen.key);
    return chosen.key;
  }

  /** Answer: the oldest prompt of the agent on this row (of any agent, without one). */
  answer(node: unknown): boolean {
    const agent = node === undefined ? undefined : parsedArgument(this.deps.log, () => parseAgentArgument(this.deps.runtime, 'Arbor: Answer', node));
    if (node !== undefined && !agent) return false;
    const item = this.deps.queue.items().find((i) => i.promptId !== undefined && (!agent || i.agentId === agent.id));
    if (item?.promptId !== undefined && this.deps.picker.open(item.promptId)) return true;
    void vscode.window.showInformationMessage('No question is waiting for you.');
    return false;
  }

  /** Opens the item with this key; says so when it no longer waits. */
  async open(key: unknown): Promise<boolean> {
    const item = typeof key === 'string' ? this.deps.queue.items().find((i) => i.key === key) : undefined;
    if (!item) {
      void vscode.window.showInformationMessage('That no longer waits for you.');
      return false;
    }
    if (item.promptId !== undefined) return this.deps.picker.open(item.promptId);
    const agent = item.agentId === undefined ? undefined : this.deps.runtime.agents.get(item.agentId);
    if (!agent) return false;
    this.deps.picker.putBack();
    await this.deps.reveal(agent);
    await this.decide(item, agent);
    return true;
  }

  /** A pause's own prompt: what lets it go on, or leave it waiting. */
  private async decide(item: AttentionItem, agent: Agent): Promise<void> {
    const go = item.kind === 'budget' ? 'Raise limit' : 'Resume';
    const stay = item.kind === 'interrupted' ? 'Keep stopped' : 'Keep paused';
    const pick = await vscode.window.showQuickPick([go, stay], { title: `Arbor: ${pathText(item)}: ${KIND_TEXT[item.kind]}`, placeHolder: item.asks });
    if (pick !== go) return;
    try {
      if (item.kind === 'budget' && item.slice) this.deps.runtime.budgets.slices.raise(agent);
      else if (item.kind === 'budget') this.deps.runtime.budgets.raise(agent.run);
      else if (item.kind === 'runaway') this.deps.runtime.budgets.resumeAgent(agent);
      else this.deps.runtime.resumeInterrupted(agent);
      this.deps.log.info(`"${agent.label}" goes on (${go} from Waiting for you)`);
    } catch (err) {
      reportError(this.deps.log, `Could not let "${agent.label}" go on`, err);
    }
  }
}
