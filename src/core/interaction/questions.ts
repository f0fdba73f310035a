import * as z from 'zod';
import { lazySchema } from '../lazySchema';
import type { Answer, Question } from '../sessions/types';

/**
 * The one schema of a question batch. The ask_user_question tool shows it to the model (as
 * JSON Schema) and UserInteractionService.ask() checks every caller against it, so a question
 * the UI receives always has this shape.
 */

export const MAX_QUESTIONS = 4;
export const MAX_OPTIONS = 8;
export const MAX_HEADER_LENGTH = 40;
export const MAX_QUESTION_LENGTH = 4_000;
export const MAX_LABEL_LENGTH = 120;
export const MAX_OPTION_DESCRIPTION_LENGTH = 500;
export const MAX_CUSTOM_ANSWER_LENGTH = 10_000;

const notBlank = /\S/;

export const questionOptionSchema = lazySchema(() => z.object({
  label: z.string().min(1).max(MAX_LABEL_LENGTH).regex(notBlank, 'must not be blank').describe('What the human picks.'),
  description: z
    .string()
    .max(MAX_OPTION_DESCRIPTION_LENGTH)
    .optional()
    .describe('What choosing this option means, in one sentence.'),
}));

export const questionSchema = lazySchema(() => z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .regex(notBlank, 'must not be blank')
    .describe('Your name for this question; the answer carries the same id.'),
  question: z.string().min(1).max(MAX_QUESTION_LENGTH).regex(notBlank, 'must not be blank').describe('The question, complete in itself.'),
  header: z
    .string()
    .max(MAX_HEADER_LENGTH)
    .optional()
    .describe(`A short tag shown above the question (at most ${MAX_HEADER_LENGTH} characters).`),
  options: z
    .array(questionOptionSchema)
    .max(MAX_OPTIONS)
    .superRefine((options, ctx) => {
      const seen = new Set<string>();
      for (const option of options) {
        if (seen.has(option.label)) ctx.addIssue({ code: 'custom', message: `option label "${option.label}" appears twice` });
        seen.add(option.label);
      }
    })
    .describe('The choices offered. The human may always type a free-text answer instead; an empty list asks for text only.'),
  multiSelect: z.boolean().optional().describe('Allow choosing more than one option.'),
}));

export const questionBatchSchema = lazySchema(() => z
  .array(questionSchema)
  .min(1)
  .max(MAX_QUESTIONS)
  .superRefine((questions, ctx) => {
    const seen = new Set<string>();
    for (const q of questions) {
      if (seen.has(q.id)) ctx.addIssue({ code: 'custom', message: `question id "${q.id}" appears twice` });
      seen.add(q.id);
    }
  }));

/**
 * A question as a model may send it. Models that follow the widely used question-tool shape
 * (question, header, options, multiSelect) send no id; the batch derives one (`q1`, `q2`, ...)
 * before the strict batch schema checks it, so such a question is asked instead of refused.
 */
const modelQuestionSchema = lazySchema(() => questionSchema.extend({
  id: questionSchema.shape.id.optional().describe('Optional name for this question; the answer carries it. Defaults to q1, q2, ... in order.'),
  options: questionSchema.shape.options.optional().describe(
    'The choices offered. The human may always type a free-text answer instead; leave it out (or empty) to ask for text only.',
  ),
}));

/** Gives every question without an id the first free `q<position>` name. */
function withIds(questions: z.infer<typeof modelQuestionSchema>[]): Question[] {
  const taken = new Set(questions.flatMap((q) => (q.id === undefined ? [] : [q.id])));
  return questions.map((q, index) => {
    let id = q.id;
    if (id === undefined) {
      id = `q${index + 1}`;
      for (let n = 2; taken.has(id); n++) id = `q${index + 1}_${n}`;
      taken.add(id);
    }
    return { ...q, id, options: q.options ?? [] };
  });
}

/** The arguments of the ask_user_question tool. */
export const askUserQuestionArgsSchema = lazySchema(() => z.object({
  questions: z
    .array(modelQuestionSchema)
    .min(1)
    .max(MAX_QUESTIONS)
    .transform(withIds)
    .pipe(questionBatchSchema)
    .describe(`1 to ${MAX_QUESTIONS} questions asked together.`),
}));

export const answerSchema = lazySchema(() => z.object({
  id: z.string(),
  selected: z.array(z.string()),
  custom: z.string().max(MAX_CUSTOM_ANSWER_LENGTH).optional(),
}));

/** One line per problem, with where it is: readable by a model and by a person. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(input)';
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}

/**
 * Checks answers against the questions they answer; returns them in question order, or a
 * description of what is wrong. Every question gets exactly one answer; chosen labels must
 * be offered options; a single-choice question gets at most one; an answer with no choice
 * must carry free text, except on a multi-select question that offers options, where choosing
 * none of them is an answer of its own (an empty `selected`).
 */
export function checkAnswers(
  questions: readonly Question[],
  raw: unknown,
): { ok: true; answers: Answer[] } | { ok: false; problem: string } {
  const parsed = z.array(answerSchema).safeParse(raw);
  if (!parsed.success) return { ok: false, problem: describeIssues(parsed.error) };
  const byId = new Map<string, Answer>();
  for (const answer of parsed.data) {
    if (byId.has(answer.id)) return { ok: false, problem: `question "${answer.id}" was answered twice` };
    byId.set(answer.id, answer);
  }
  const ordered: Answer[] = [];
  for (const question of questions) {
    const answer = byId.get(question.id);
    if (!answer) return { ok: false, problem: `question "${question.id}" has no answer` };
    byId.delete(question.id);
    const offered = new Set(question.options.map((o) => o.label));
    const unknown = answer.selected.filter((label) => !offered.has(label));
    if (unknown.length > 0) return { ok: false, problem: `question "${question.id}": "${unknown[0]}" is not one of its options` };
    if (new Set(answer.selected).size !== answer.selected.length) {
      return { ok: false, problem: `question "${question.id}": an option was chosen twice` };
    }
    if (!question.multiSelect && answer.selected.length > 1) {
      return { ok: false, problem: `question "${question.id}" allows one choice, got ${answer.selected.length}` };
    }
    const custom = answer.custom !== undefined && notBlank.test(answer.custom) ? answer.custom : undefined;
    const noneOfThem = question.multiSelect === true && question.options.length > 0;
    if (answer.selected.length === 0 && custom === undefined && !noneOfThem) {
      return { ok: false, problem: `question "${question.id}" was answered with neither a choice nor text` };
    }
    ordered.push(custom === undefined ? { id: answer.id, selected: answer.selected } : { id: answer.id, selected: answer.selected, custom });
  }
  const extra = [...byId.keys()];
  if (extra.length > 0) return { ok: false, problem: `answer for unknown question "${extra[0]}"` };
  return { ok: true, answers: ordered };
}
