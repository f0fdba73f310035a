import assert from 'node:assert/strict';
import { askUserQuestionArgsSchema } from '../../../src/core/interaction';
import { delegateTaskTool, startSubagentTool } from '../../../src/core/tools/subagentTools';

/** What models that follow the widely used question-tool shape send: no ids. */
const commonShape = {
  questions: [
    {
      question: 'Which database should the service use?',
      header: 'Database',
      options: [
        { label: 'SQLite', description: 'A file, no server.' },
        { label: 'Postgres', description: 'A server.' },
      ],
      multiSelect: false,
    },
    { question: 'Which features first?', header: 'Scope', options: [{ label: 'Auth' }, { label: 'Billing' }], multiSelect: true },
  ],
};

describe('tool schemas accept what models send and refuse what is really invalid', () => {
  describe('ask_user_question', () => {
    it('asks questions in the common shape without ids, naming them q1, q2 in order', () => {
      const parsed = askUserQuestionArgsSchema().parse(commonShape);
      assert.deepEqual(
        parsed.questions.map((q) => q.id),
        ['q1', 'q2'],
      );
      assert.equal(parsed.questions[1].multiSelect, true);
    });

    it('keeps the ids a model gives and never derives one that collides with them', () => {
      const parsed = askUserQuestionArgsSchema().parse({
        questions: [{ question: 'A?', options: [] }, { id: 'q1', question: 'B?', options: [] }],
      });
      assert.deepEqual(
        parsed.questions.map((q) => q.id),
        ['q1_2', 'q1'],
      );
    });

    it('a question without options asks for free text', () => {
      const parsed = askUserQuestionArgsSchema().parse({ questions: [{ question: 'What should it be called?' }] });
      assert.deepEqual(parsed.questions[0].options, []);
    });

    it('still refuses what is really invalid', () => {
      const invalid = [
        { questions: [] },
        { questions: [{ question: '   ' }] },
        { questions: [{ question: 'A?', options: [{ label: 'x' }, { label: 'x' }] }] },
        { questions: [{ id: 'a', question: 'A?' }, { id: 'a', question: 'B?' }] },
        { questions: Array.from({ length: 5 }, (_, i) => ({ question: `Q${i}?` })) },
        { questions: [{ question: 'A?', header: 'x'.repeat(41) }] },
        { questions: [{ question: 'A?', multiSelect: 'yes' }] },
      ];
      for (const args of invalid) assert.equal(askUserQuestionArgsSchema().safeParse(args).success, false, JSON.stringify(args).slice(0, 80));
    });

    it('shows the model a schema in which only the question text is required', () => {
      const spec = JSON.stringify(askUserQuestionArgsSchema().shape.questions.toJSONSchema({ io: 'input' }));
      assert.match(spec, /"required":\["question"\]/);
    });
  });

  describe('delegate_task and start_subagent', () => {
    for (const tool of [delegateTaskTool, startSubagentTool]) {
      it(`${tool.name}: a missing label is taken from the task's first words`, () => {
        const parsed = tool.schema().parse({ prompt: 'Count the apples in the basket and report the number' });
        assert.equal(parsed.label, 'Count the apples in the basket and report the number');
      });

      it(`${tool.name}: a sentence-long label is shortened at a word, not refused`, () => {
        const parsed = tool.schema().parse({ label: 'A researcher who reads every file in the repository and summarises the architecture', prompt: 'go' });
        assert.ok(parsed.label !== undefined && parsed.label.length <= 60, parsed.label);
        assert.ok(parsed.label.endsWith('…'));
        assert.ok(parsed.label.startsWith('A researcher who reads every file'));
      });

      it(`${tool.name}: still refuses a missing or blank task`, () => {
        assert.equal(tool.schema().safeParse({ label: 'x' }).success, false);
        assert.equal(tool.schema().safeParse({ label: 'x', prompt: '  ' }).success, false);
      });
    }
  });
});
