import * as vscode from 'vscode';
import { ArborError } from '../../core';
import type { InteractionPrompt, InteractionProvider } from '../../core/interaction';
import type { Answer, Question } from '../../core/sessions';
import { acceptOutcome, OTHER_LABEL } from './pickAccept';
import type { OpenPreview, ReviewPreviews } from './reviewPreview';

/** A question put in front of the human: which agent asks, and the picker's title. */
export interface OpenedPrompt {
  agentId?: string;
  title: string;
}

interface Queued {
  prompt: InteractionPrompt;
  resolve: (answers: Answer[]) => void;
  reject: (err: unknown) => void;
}

/**
 * The question UI: each question is one quick pick (title = the asking agent and the header,
 * placeholder = the question, options with descriptions, multi-select where asked, and an
 * "Other…" item for a free answer). Enter always settles the question or says what to do (see
 * pickAccept.ts): on a multi-select question, Enter with nothing ticked answers "none of these".
 * Prompts from several agents are queued and shown one at a time. Escape dismisses
 * (ASK_CANCELLED); if the asking turn is aborted the prompt closes.
 * Only runtime roots ever reach this provider: the interaction service rejects everyone else.
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

  private async run(item: Queued): Promise<Answer[]> {
    const { prompt } = item;
    const who = prompt.agent?.label ?? 'Arbor';
    if (prompt.detail) this.log.info(`${who} asks (${prompt.intent}):\n${prompt.detail}`);
    // The whole detail is on screen before any option can be chosen; the quick pick shows one line.
    let preview: OpenPreview | undefined;
    if (prompt.detail !== undefined && this.previews) preview = await this.previews.open(`${who} ${prompt.intent}`, previewHeader(who, prompt), prompt.detail);
    try {
      const answers: Answer[] = [];
      for (let i = 0; i < prompt.questions.length; i++) {
        if (this.active?.item !== item) throw new ArborError('ASK_ABORTED', 'The question was withdrawn.');
        const q = prompt.questions[i];
        const step = prompt.questions.length > 1 ? ` (${i + 1}/${prompt.questions.length})` : '';
        const title = `${who} asks${q.header ? `: ${q.header}` : ''}${step}${preview ? ' (in full in the preview beside)' : ''}`;
        this.opened.fire({ agentId: prompt.agent?.id, title });
        answers.push(await this.pick(item, q, title));
      }
      return answers;
    } finally {
      void preview?.close();
    }
  }

  private pick(item: Queued, q: Question, title: string): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const picker = vscode.window.createQuickPick<vscode.QuickPickItem>();
      this.active = { item, picker };
      picker.title = title;
      picker.placeholder = q.question;
      picker.ignoreFocusOut = true;
      picker.canSelectMany = q.multiSelect === true;
      picker.matchOnDescription = true;
      const options: vscode.QuickPickItem[] = q.options.map((o) => ({ label: o.label, description: o.description }));
      picker.items = [...options, { label: OTHER_LABEL, description: 'Type your own answer', alwaysShow: true }];
      let accepted = false;
      // A hint about what to do stays in the title until the human does something else.
      const clearHint = (): void => {
        picker.title = title;
      };
      picker.onDidChangeValue(clearHint);
      picker.onDidChangeSelection(clearHint);
      picker.onDidAccept(async () => {
        const chosen = picker.canSelectMany ? picker.selectedItems : picker.activeItems.slice(0, 1);
        const outcome = acceptOutcome(q, chosen.map((c) => c.label));
        if (outcome.kind === 'explain') {
          picker.title = `${title}: ${outcome.message}`;
          return;
        }
        accepted = true;
        picker.hide();
        picker.dispose();
        if (outcome.kind === 'answer') return resolve({ id: q.id, selected: outcome.selected });
        try {
          const custom = await this.freeText(item, title, q.question);
          resolve({ id: q.id, selected: outcome.selected, custom });
        } catch (err) {
          reject(err);
        }
      });
      picker.onDidHide(() => {
        picker.dispose();
        if (!accepted) reject(new ArborError('ASK_CANCELLED', 'The question was dismissed without an answer.'));
      });
      picker.show();
    });
  }

  private freeText(item: Queued, title: string, question: string): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const input = vscode.window.createInputBox();
      this.active = { item, input };
      input.title = title;
      input.prompt = question;
      input.placeholder = 'Your answer';
      input.ignoreFocusOut = true;
      let accepted = false;
      input.onDidAccept(() => {
        if (!input.value.trim()) {
          input.validationMessage = 'Type an answer, or press Escape to dismiss the question.';
          return;
        }
        accepted = true;
        const value = input.value.trim();
        input.hide();
        input.dispose();
        resolve(value);
      });
      input.onDidHide(() => {
        input.dispose();
        if (!accepted) reject(new ArborError('ASK_CANCELLED', 'The question was dismissed without an answer.'));
      });
      input.show();
    });
  }
}

function previewHeader(who: string, prompt: InteractionPrompt): string {
  const size = `${prompt.detail?.length ?? 0} characters`;
  switch (prompt.intent) {
    case 'approval':
      return `${who} asks for your approval of the action below (${size}), exactly as it would run. Read all of it, then answer in the prompt.`;
    case 'plan-approval':
      return `${who} asks you to approve the plan below (${size}). Read all of it, then answer in the prompt.`;
    default:
      return `${who} asks a question about the text below (${size}).`;
  }
}
