import * as vscode from 'vscode';
import { ArborError } from '../../core';
import type { InteractionPrompt, InteractionProvider } from '../../core/interaction';
import type { Answer } from '../../core/sessions';
import { questionPromptsPart } from '../parts';
import type { ReviewPreviews } from './reviewPreview';

/** A question put in front of the human: which agent asks, and the picker's title. */
export interface OpenedPrompt {
  agentId?: string;
  title: string;
}

/** A prompt waiting for, or in front of, the human. */
export interface Queued {
  prompt: InteractionPrompt;
  resolve: (answers: Answer[]) => void;
  reject: (err: unknown) => void;
}

/**
 * The question UI: each question is one quick pick (title = the asking agent and the header,
 * placeholder = the question, options with descriptions, multi-select where asked, and an
 * "Other…" item for a free answer; an approval has none, its "Deny, and tell it why" takes the text). Enter always settles the question or says what to do (see
 * pickAccept.ts): on a multi-select question, Enter with nothing ticked answers "none of these".
 * Prompts from several agents are queued and shown one at a time. Escape dismisses
 * (ASK_CANCELLED); if the asking turn is aborted the prompt closes.
 * Only unowned agents (no runtime owner) ever reach this provider with a question: the interaction service rejects
 * everyone else; a subagent's approval reaches it only where arbor.approvals.subagents is `ask` (askHeldApproval).
 */
export class QuestionPicker implements InteractionProvider, vscode.Disposable {
  private readonly queue: Queued[] = [];
  private active: { item: Queued; picker?: vscode.QuickPick<vscode.QuickPickItem>; input?: vscode.InputBox } | undefined;
  private readonly opened = new vscode.EventEmitter<OpenedPrompt>();
  /** Fires as each question of a prompt opens in front of the human. */
  readonly onDidOpenPrompt = this.opened.event;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    /** Where a prompt's detail (a command, a plan) is shown whole before it can be answered. */
    private readonly previews?: ReviewPreviews,
  ) {}

  ask(prompt: InteractionPrompt): Promise<Answer[]> {
    return new Promise<Answer[]>((resolve, reject) => {
      const item: Queued = { prompt, resolve, reject };
      prompt.signal.addEventListener('abort', () => this.abandon(item), { once: true });
      this.queue.push(item);
      this.pump();
    });
  }

  /** Bring an agent's queued prompt to the front, or show its open prompt again. */
  focus(agentId: string): boolean {
    if (this.active?.item.prompt.agent?.id === agentId) {
      (this.active.picker ?? this.active.input)?.show();
      return true;
    }
    const i = this.queue.findIndex((q) => q.prompt.agent?.id === agentId);
    if (i < 0) return false;
    const [item] = this.queue.splice(i, 1);
    this.queue.unshift(item);
    if (!this.active) this.pump();
    return true;
  }

  dispose(): void {
    for (const item of this.queue.splice(0)) item.reject(new ArborError('ASK_ABORTED', 'Arbor is shutting down.'));
    if (this.active) this.abandon(this.active.item);
    this.opened.dispose();
  }

  private abandon(item: Queued): void {
    const i = this.queue.indexOf(item);
    if (i >= 0) this.queue.splice(i, 1);
    if (this.active?.item === item) {
      const { picker, input } = this.active;
      this.active = undefined;
      picker?.dispose();
      input?.dispose();
      this.pump();
    }
    item.reject(new ArborError('ASK_ABORTED', 'The asking turn ended before the question was answered.'));
  }

  private pump(): void {
    if (this.active) return;
    const item = this.queue.shift();
    if (!item) return;
    this.active = { item };
    void this.run(item).then(
      (answers) => this.settle(item, () => item.resolve(answers)),
      (err) => this.settle(item, () => item.reject(err)),
    );
  }

  private settle(item: Queued, done: () => void): void {
    if (this.active?.item === item) this.active = undefined;
    done();
    this.pump();
  }

  /**
   * Puts the prompt in front of the human (questionPrompts.ts, a part loaded by the first
   * question). Async, so that a part that fails to load rejects this prompt and the queue goes on.
   */
  private async run(item: Queued): Promise<Answer[]> {
    return questionPromptsPart().runPrompt(item, {
      log: this.log,
      previews: this.previews,
      isActive: (it) => this.active?.item === it,
      showing: (it, ui) => {
        this.active = { item: it, ...ui };
      },
      opened: (prompt) => this.opened.fire(prompt),
    });
  }
}
