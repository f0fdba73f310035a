import * as vscode from 'vscode';
import { ArborError } from '../../core';
import type { InteractionPrompt } from '../../core/interaction';
import type { Answer, Question } from '../../core/sessions';
import { offerLater } from './laterButton';
import { acceptOutcome, OTHER_LABEL, pickAnswersFor } from './pickAccept';
import type { OpenedPrompt, Queued } from './questionPicker';
import type { OpenPreview, ReviewPreviews } from './reviewPreview';

/**
 * One prompt in front of the human: its detail in a preview beside, then each question as a
 * quick pick (and an input box for "Other…"). The queue of prompts (questionPicker.ts) decides
 * which prompt is in front; this part, loaded by the first question an agent asks, shows it and
 * tells the queue each picker it opens, so that a withdrawn prompt closes at once.
 */
export interface PromptHost {
  readonly log: vscode.LogOutputChannel;
  readonly previews?: ReviewPreviews;
  /** Whether `item` is still the prompt in front of the human. */
  isActive(item: Queued): boolean;
  /** The picker or input box now showing `item`, for the queue to show again or close. */
  showing(item: Queued, ui: { picker?: vscode.QuickPick<vscode.QuickPickItem>; input?: vscode.InputBox }): void;
  opened(prompt: OpenedPrompt): void;
  /** The person chose Later: the prompt goes back, unanswered. */
  later(item: Queued): void;
}

/** Asks `item`'s questions one after the other; settles with the answers, ASK_CANCELLED or ASK_ABORTED. */
export function runPrompt(item: Queued, host: PromptHost): Promise<Answer[]> {
  return new PromptRun(host).run(item);
}

class PromptRun {
  constructor(private readonly host: PromptHost) {}

  async run(item: Queued): Promise<Answer[]> {
    const { prompt } = item;
    // An approval names who asks in full (kind, definition, place in the tree): one of ten agents is told apart.
    const who = prompt.asker ?? prompt.agent?.label ?? 'Arbor';
    if (prompt.detail) this.host.log.info(`${who} asks (${prompt.intent}):\n${prompt.detail}`);
    // The whole detail is on screen before any option can be chosen; the quick pick shows one line.
    let preview: OpenPreview | undefined;
    if (prompt.detail !== undefined && this.host.previews) preview = await this.host.previews.open(`${who} ${prompt.intent}`, previewHeader(who, prompt), prompt.detail);
    try {
      const answers: Answer[] = [];
      for (let i = 0; i < prompt.questions.length; i++) {
        if (!this.host.isActive(item)) throw new ArborError('ASK_ABORTED', 'The question was withdrawn.');
        const q = prompt.questions[i];
        const step = prompt.questions.length > 1 ? ` (${i + 1}/${prompt.questions.length})` : '';
        const title = `${who} asks${q.header ? `: ${q.header}` : ''}${step}${preview ? ' (in full in the preview beside)' : ''}`;
        this.host.opened({ agentId: prompt.agent?.id, title });
        answers.push(await this.pick(item, q, title));
      }
      return answers;
    } finally {
      void preview?.close();
    }
  }

  pick(item: Queued, q: Question, title: string): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const picker = vscode.window.createQuickPick<vscode.QuickPickItem>();
      this.host.showing(item, { picker });
      offerLater(picker, () => this.host.later(item));
      picker.title = title;
      picker.placeholder = q.question;
      picker.ignoreFocusOut = true;
      picker.canSelectMany = q.multiSelect === true;
      picker.matchOnDescription = true;
      const options: vscode.QuickPickItem[] = q.options.map((o) => ({ label: o.label, description: o.description }));
      const answers = pickAnswersFor(item.prompt.intent);
      picker.items = answers.other ? [...options, { label: OTHER_LABEL, description: 'Type your own answer', alwaysShow: true }] : options;
      let accepted = false;
      // A hint about what to do stays in the title until the human does something else.
      const clearHint = (): void => {
        picker.title = title;
      };
      picker.onDidChangeValue(clearHint);
      picker.onDidChangeSelection(clearHint);
      picker.onDidAccept(async () => {
        const chosen = picker.canSelectMany ? picker.selectedItems : picker.activeItems.slice(0, 1);
        const outcome = acceptOutcome(q, chosen.map((c) => c.label), answers);
        if (outcome.kind === 'explain') {
          picker.title = `${title}: ${outcome.message}`;
          return;
        }
        accepted = true;
        picker.hide();
        picker.dispose();
        if (outcome.kind === 'answer') return resolve({ id: q.id, selected: outcome.selected });
        try {
          const custom = await this.freeText(item, title, answers.other ? q.question : WHY_PROMPT);
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

  freeText(item: Queued, title: string, question: string): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const input = vscode.window.createInputBox();
      this.host.showing(item, { input });
      offerLater(input, () => this.host.later(item));
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


/** What the box after "Deny, and tell it why" asks. */
const WHY_PROMPT = 'Why do you deny it? The agent reads your words with the denial.';

function previewHeader(who: string, prompt: InteractionPrompt): string {
  const size = `${prompt.detail?.length ?? 0} characters`;
  switch (prompt.intent) {
    case 'approval':
      return `${who} asks for your approval of the action below (${size}), exactly as it would run. Read all of it, then answer in the prompt.`;
    case 'plan-approval':
      return `${who} asks you to approve the plan below (${size}). Read all of it, then answer in the prompt.`;
    case 'clarify':
      return `${who} asks a question about the text below (${size}).`;
  }
}
