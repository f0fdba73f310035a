import type * as vscode from 'vscode';
import { ArborError } from '../../core';
import type { InteractionPrompt } from '../../core/interaction';
import type { Answer } from '../../core/sessions';
import { questionPromptsPart } from '../parts';
import type { OpenedPrompt, Queued } from './questionPicker';
import type { ReviewPreviews } from './reviewPreview';

/** What the queue needs from the editor's question UI (QuestionPicker hands it over). */
export interface PromptQueueHost {
  readonly log: vscode.LogOutputChannel;
  /** Where a prompt's detail (a command, a plan) is shown whole before it can be answered. */
  readonly previews: ReviewPreviews | undefined;
  /** `arbor.attention.openPrompts` is `manual`: no prompt opens by itself. */
  manual(): boolean;
  /** Each question of a prompt as it opens in front of the human. */
  opened(prompt: OpenedPrompt): void;
}

/**
 * The queue of the question UI (QuestionPicker): prompts from several agents wait here and are
 * shown one at a time, each by questionPrompts.ts. Escape dismisses (ASK_CANCELLED); if the
 * asking turn is aborted the prompt closes. Part of the attention part: made by the first question.
 *
 * What opens by itself: only the oldest prompt, only while `arbor.attention.openPrompts` is
 * `auto`, and never one the person put back (Later): that one stays open for its agent and waits
 * in "Waiting for you" until it is opened again (`open`), so prompts do not take the focus one
 * after another. Each showing of a prompt is an attempt of its own: what the pickers of an
 * attempt that was put back do afterwards is ignored.
 */
export class PromptQueue implements vscode.Disposable {
  private readonly queue: Queued[] = [];
  private asked = 0;
  private active: { item: Queued; attempt: object; picker?: vscode.QuickPick<vscode.QuickPickItem>; input?: vscode.InputBox } | undefined;

  constructor(private readonly host: PromptQueueHost) {}

  ask(prompt: InteractionPrompt): Promise<Answer[]> {
    return new Promise<Answer[]>((resolve, reject) => {
      const item: Queued = { prompt, resolve, reject, order: this.asked++ };
      prompt.signal.addEventListener('abort', () => this.abandon(item), { once: true });
      this.queue.push(item);
      this.pump();
    });
  }

  /** Opens the prompt `promptId` (the one in front is put back first), or shows it again. */
  open(promptId: string): boolean {
    if (this.active?.item.prompt.id === promptId) {
      (this.active.picker ?? this.active.input)?.show();
      return true;
    }
    const item = this.queue.find((q) => q.prompt.id === promptId);
    if (!item) return false;
    if (this.active) this.putBack(this.active.item);
    this.show(item);
    return true;
  }

  /** The prompt in front of the human, if any. */
  get shownId(): string | undefined {
    return this.active?.item.prompt.id;
  }

  /** Puts the prompt in front back (Later): it stays open, waiting, and nothing else opens in its place by itself. */
  putBack(item = this.active?.item): void {
    if (!item || this.active?.item !== item) return;
    const { picker, input } = this.active;
    this.active = undefined;
    item.later = true;
    // Back in the order it was asked in.
    this.queue.push(item);
    this.queue.sort((a, b) => a.order - b.order);
    picker?.dispose();
    input?.dispose();
  }

  dispose(): void {
    for (const item of this.queue.splice(0)) item.reject(new ArborError('ASK_ABORTED', 'Arbor is shutting down.'));
    if (this.active) this.abandon(this.active.item);
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

  /** Opens the oldest prompt if it may open by itself (see the class comment); the setting's change calls it too. */
  pump(): void {
    if (this.active || this.host.manual()) return;
    const item = this.queue[0];
    if (item && !item.later) this.show(item);
  }

  private show(item: Queued): void {
    this.queue.splice(this.queue.indexOf(item), 1);
    const attempt = {};
    this.active = { item, attempt };
    void this.run(item, attempt).then(
      (answers) => this.settle(attempt, () => item.resolve(answers)),
      (err) => this.settle(attempt, () => item.reject(err)),
    );
  }

  /** An attempt put back or withdrawn settles nothing: the prompt waits, or was rejected already. */
  private settle(attempt: object, done: () => void): void {
    if (this.active?.attempt !== attempt) return;
    this.active = undefined;
    done();
    this.pump();
  }

  /**
   * Puts the prompt in front of the human (questionPrompts.ts, a part loaded by the first
   * question). Async, so that a part that fails to load rejects this prompt and the queue goes on.
   */
  private async run(item: Queued, attempt: object): Promise<Answer[]> {
    const current = (): boolean => this.active?.attempt === attempt;
    return questionPromptsPart().runPrompt(item, {
      log: this.host.log,
      previews: this.host.previews,
      isActive: current,
      showing: (it, ui) => {
        if (current()) this.active = { item: it, attempt, ...ui };
      },
      opened: (prompt) => this.host.opened(prompt),
      later: (it) => this.putBack(it),
    });
  }
}
