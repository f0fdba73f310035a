// What Enter on a question's quick pick does, given what is chosen. Pure (no 'vscode' import),
// so the decision the picker acts on is unit-tested in Node.
import { APPROVAL_OPTIONS } from '../../core/interaction';
import type { Question } from '../../core/sessions';

/** The item that opens the free-text box. */
export const OTHER_LABEL = 'Other…';

/**
 * Which free answers a pick offers. A question offers "Other…" (type your own answer); an
 * approval does not (typed text is not consent), and its one answer that takes text is "Deny,
 * and tell it why": the person's words go to the agent in the denial.
 */
export interface PickAnswers {
  other: boolean;
  /** The option that, chosen, asks for text next (the answer carries both). */
  withText?: string;
}

const FREE_ANSWERS: PickAnswers = { other: true };

/** The free answers of a prompt of this intent. */
export function pickAnswersFor(intent: string): PickAnswers {
  return intent === 'approval' ? { other: false, withText: APPROVAL_OPTIONS.denyWhy } : FREE_ANSWERS;
}

export type AcceptOutcome =
  /** Settle the question with these option labels (none, on a multi-select question, is an answer). */
  | { kind: 'answer'; selected: string[] }
  /** Ask for the free text next; the answer carries these labels beside it. */
  | { kind: 'text'; selected: string[] }
  /** Nothing to settle: keep the pick open and tell the human what to do. */
  | { kind: 'explain'; message: string };

/**
 * Enter with `chosen` labels (the ticked items of a multi-select pick, the highlighted item of
 * a single-choice one). Enter always does something the human can see:
 * - a multi-select question that offers options, with none ticked, is answered with none of
 *   them (an empty selection): "none of these" is a valid answer to "what else should...?";
 * - a question with no options (text only) goes to the free-text box, its only answer;
 * - a single-choice question with nothing highlighted (a filter that matches no option) keeps
 *   the pick open and says how to answer or dismiss it.
 */
export function acceptOutcome(question: Pick<Question, 'multiSelect' | 'options'>, chosen: readonly string[], answers: PickAnswers = FREE_ANSWERS): AcceptOutcome {
  const selected = chosen.filter((label) => label !== OTHER_LABEL);
  if (answers.other && chosen.includes(OTHER_LABEL)) return { kind: 'text', selected };
  if (answers.withText !== undefined && selected.includes(answers.withText)) return { kind: 'text', selected };
  if (!answers.other) return selected.length > 0 ? { kind: 'answer', selected } : { kind: 'explain', message: 'Choose an answer, or press Escape to dismiss the prompt.' };
  if (selected.length > 0) return { kind: 'answer', selected };
  if (question.options.length === 0) return { kind: 'text', selected: [] };
  if (question.multiSelect === true) return { kind: 'answer', selected: [] };
  return { kind: 'explain', message: 'Choose an option (or Other… to type an answer), or press Escape to dismiss the question.' };
}
