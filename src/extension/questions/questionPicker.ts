import * as vscode from 'vscode';
import type { InteractionPrompt, InteractionProvider } from '../../core/interaction';
import type { Answer } from '../../core/sessions';
import { attentionPart } from '../parts';
import type { PromptQueue } from './promptQueue';
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
  /** Its place in the order prompts were asked in. */
  order: number;
  /** The person put it back (Later): it waits until they open it again. */
  later?: boolean;
}

/**
 * The question UI: each question is one quick pick (title = the asking agent and the header,
 * placeholder = the question, options with descriptions, multi-select where asked, and an
 * "Other…" item for a free answer; an approval has none, its "Deny, and tell it why" takes the text). Enter always settles the question or says what to do (see
 * pickAccept.ts): on a multi-select question, Enter with nothing ticked answers "none of these".
 * Only unowned agents (no runtime owner) ever reach this provider with a question: the interaction service rejects
 * everyone else; a subagent's approval reaches it only where arbor.approvals.subagents is `ask` (askHeldApproval).
 *
 * This is what the start holds of it: the queue that decides which prompt is in front, and when
 * one opens by itself (promptQueue.ts), is made by the first question, with the rest of what
 * waits on the human (the attention part); a part that fails to load rejects that question.
 */
export class QuestionPicker implements InteractionProvider, vscode.Disposable {
  private queue: PromptQueue | undefined;
  private readonly opened = new vscode.EventEmitter<OpenedPrompt>();
  /** Fires as each question of a prompt opens in front of the human. */
  readonly onDidOpenPrompt = this.opened.event;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    /** Where a prompt's detail (a command, a plan) is shown whole before it can be answered. */
    private readonly previews: ReviewPreviews | undefined,
    /** `arbor.attention.openPrompts` is `manual`: no prompt opens by itself. */
    private readonly manual: () => boolean,
  ) {}

  async ask(prompt: InteractionPrompt): Promise<Answer[]> {
    this.queue ??= new (attentionPart().PromptQueue)({ log: this.log, previews: this.previews, manual: this.manual, opened: (p) => this.opened.fire(p) });
    return this.queue.ask(prompt);
  }

  /** Opens the prompt `promptId` (the one in front is put back first), or shows it again. */
  open(promptId: string): boolean {
    return this.queue?.open(promptId) ?? false;
  }

  /** The prompt in front of the human, if any. */
  get shownId(): string | undefined {
    return this.queue?.shownId;
  }

  /** Puts the prompt in front back, unanswered (Later). */
  putBack(): void {
    this.queue?.putBack();
  }

  /** Opens the oldest prompt if it may open by itself (the setting changed). */
  pump(): void {
    this.queue?.pump();
  }

  dispose(): void {
    this.queue?.dispose();
    this.opened.dispose();
  }
}
