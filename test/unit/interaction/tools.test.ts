import assert from 'node:assert/strict';
import { z } from 'zod';
import {
  DELEGATED_CALLER_MESSAGE,
  UserInteractionService,
  resolveInteractionPolicy,
  type RunInteractionPolicy,
} from '../../../src/core/interaction';
import { askUserQuestionTool, type AskUserQuestionContext } from '../../../src/core/tools/askUserQuestion';
import { exitPlanModeTool, PLAN_APPROVAL_OPTIONS, type ExitPlanModeContext } from '../../../src/core/tools/exitPlanMode';
import { FakeDirectory, FakeProvider, makeAgent, oneQuestion, type FakeAgent } from '../../support/interactionFakes';

const interactive = resolveInteractionPolicy({});

function world(policy: RunInteractionPolicy = interactive) {
  const directory = new FakeDirectory();
  const interaction = new UserInteractionService({ agents: directory });
  const provider = new FakeProvider();
  interaction.registerProvider(provider);
  const parent = makeAgent('parent', { label: 'Lead' });
  directory.add(parent);
  const ctx = (agent: FakeAgent, signal: AbortSignal = new AbortController().signal): AskUserQuestionContext & ExitPlanModeContext => ({
    agent,
    signal,
    toolCallId: 'call-1',
    interaction,
    policy,
  });
  return { directory, interaction, provider, parent, ctx };
}

function ownedChild(w: ReturnType<typeof world>, options: { planMode?: boolean } = {}): FakeAgent {
  const child = makeAgent('child', { kind: 'one-shot', delegationDepth: 0, parentSession: 'parent', ...options });
  w.directory.add(child, w.parent);
  return child;
}

describe('ask_user_question tool', () => {
  it('returns the answers as JSON and logs the question and the answer', async () => {
    const w = world();
    w.provider.choose('SQLite');
    const result = await askUserQuestionTool.run({ questions: oneQuestion() }, w.ctx(w.parent));
    assert.equal(result.isError, undefined);
    assert.deepEqual(JSON.parse(result.content), { answers: [{ id: 'db', selected: ['SQLite'] }] });
    const events = w.parent.log.events.map((e) => e.type);
    assert.deepEqual(events, ['question', 'answer']);
    const answer = w.parent.log.events[1];
    assert.ok(answer.type === 'answer' && answer.answers?.[0].selected[0] === 'SQLite');
  });

  it('gives an owned child the neutral DELEGATED_CALLER result without reaching the provider', async () => {
    const w = world();
    const child = ownedChild(w);
    const result = await askUserQuestionTool.run({ questions: oneQuestion() }, w.ctx(child));
    assert.equal(result.isError, true);
    assert.deepEqual(JSON.parse(result.content), { code: 'DELEGATED_CALLER', message: DELEGATED_CALLER_MESSAGE });
    assert.equal(w.provider.calls, 0);
    const last = child.log.events.at(-1);
    assert.ok(last?.type === 'answer' && last.error === 'DELEGATED_CALLER');
  });

  it('reports a dismissed question as ASK_CANCELLED with guidance not to wait', async () => {
    const w = world();
    w.provider.dismiss();
    const result = await askUserQuestionTool.run({ questions: oneQuestion() }, w.ctx(w.parent));
    const body = JSON.parse(result.content) as { code: string; message: string };
    assert.equal(result.isError, true);
    assert.equal(body.code, 'ASK_CANCELLED');
    assert.match(body.message, /dismissed/);
  });

  it('surfaces BAD_INTENT from ask() when arguments that bypassed the schema are malformed', async () => {
    const w = world();
    const result = await askUserQuestionTool.run({ questions: oneQuestion({ header: 'h'.repeat(80) }) }, w.ctx(w.parent));
    assert.equal(result.isError, true);
    assert.equal(JSON.parse(result.content).code, 'BAD_INTENT');
    assert.equal(w.provider.calls, 0);
  });

  it('rejects malformed model arguments at its schema (the runtime parses them before run)', () => {
    const schema = askUserQuestionTool.schema();
    assert.equal(schema.safeParse({ questions: [] }).success, false);
    assert.equal(schema.safeParse({ questions: oneQuestion({ options: [{ label: '' }] }) }).success, false);
    assert.equal(schema.safeParse({ questions: [...oneQuestion(), ...oneQuestion()] }).success, false, 'duplicate ids');
    assert.equal(schema.safeParse({ questions: oneQuestion() }).success, true);
  });

  it('converts its schema to JSON Schema for the model and stays offered in plan mode', () => {
    const json = z.object({ properties: z.object({ questions: z.object({ maxItems: z.number(), minItems: z.number() }) }) }).parse(z.toJSONSchema(askUserQuestionTool.schema()));
    assert.equal(json.properties.questions.minItems, 1);
    assert.equal(json.properties.questions.maxItems, 4);
    assert.equal(askUserQuestionTool.readOnly, true);
  });

  it('returns the suppressed-clarification result without asking in an unattended run', async () => {
    const policy = resolveInteractionPolicy({ interactionMode: 'scheduled' });
    const w = world(policy);
    const result = await askUserQuestionTool.run({ questions: oneQuestion() }, w.ctx(w.parent));
    assert.equal(w.provider.calls, 0);
    assert.equal(result.content, policy.suppressedClarificationResult('Which database should the service use?'));
  });
});

describe('exit_plan_mode tool', () => {
  const plan = '1. Add the table.\n2. Migrate.\n3. Test.';

  it('asks for approval with one "Plan" question and leaves plan mode when approved', async () => {
    const w = world();
    w.parent.planMode = true;
    w.provider.choose(PLAN_APPROVAL_OPTIONS.approve);
    const result = await exitPlanModeTool.run({ plan }, w.ctx(w.parent));
    assert.equal(w.parent.planMode, false);
    assert.equal(JSON.parse(result.content).status, 'approved');
    const prompt = w.provider.prompts[0];
    assert.equal(prompt.intent, 'plan-approval');
    assert.equal(prompt.detail, plan);
    assert.equal(prompt.questions.length, 1);
    assert.equal(prompt.questions[0].header, 'Plan');
    assert.deepEqual(prompt.questions[0].options.map((o) => o.label), ['Approve plan', 'Keep planning']);
  });

  it('stays in plan mode when the human keeps planning, passing feedback on', async () => {
    const w = world();
    w.parent.planMode = true;
    w.provider.choose(PLAN_APPROVAL_OPTIONS.keepPlanning, 'Split step 2.');
    const body = JSON.parse((await exitPlanModeTool.run({ plan }, w.ctx(w.parent))).content);
    assert.equal(w.parent.planMode, true);
    assert.equal(body.status, 'kept-planning');
    assert.equal(body.planMode, true);
    assert.equal(body.feedback, 'Split step 2.');
    assert.match(body.message, /still in plan mode/);
  });

  it('treats free text without a choice as not approved', async () => {
    const w = world();
    w.parent.planMode = true;
    w.provider.choose('', 'looks fine I guess');
    await exitPlanModeTool.run({ plan }, w.ctx(w.parent));
    assert.equal(w.parent.planMode, true);
  });

  it('stays in plan mode when the prompt is dismissed, and says so', async () => {
    const w = world();
    w.parent.planMode = true;
    w.provider.dismiss();
    const result = await exitPlanModeTool.run({ plan }, w.ctx(w.parent));
    const body = JSON.parse(result.content);
    assert.equal(w.parent.planMode, true);
    assert.equal(result.isError, true);
    assert.equal(body.code, 'ASK_CANCELLED');
    assert.equal(body.planMode, true);
    assert.match(body.message, /still in plan mode/);
  });

  it('gives an owned child the same DELEGATED_CALLER text as ask_user_question, without reaching the provider', async () => {
    const w = world();
    const child = ownedChild(w, { planMode: true });
    const fromPlan = await exitPlanModeTool.run({ plan }, w.ctx(child));
    const fromAsk = await askUserQuestionTool.run({ questions: oneQuestion() }, w.ctx(child));
    const planBody = JSON.parse(fromPlan.content) as { code: string; message: string };
    const askBody = JSON.parse(fromAsk.content) as { code: string; message: string };
    assert.equal(fromPlan.isError, true);
    assert.equal(planBody.code, 'DELEGATED_CALLER');
    assert.equal(planBody.message, askBody.message);
    assert.equal(planBody.message, DELEGATED_CALLER_MESSAGE);
    assert.equal(child.planMode, true);
    assert.equal(w.provider.calls, 0);
  });

  it('stays in plan mode in an unattended run without opening UI, and tells the agent to finish with the plan as BLOCKED', async () => {
    const w = world(resolveInteractionPolicy({ nonInteractive: true }));
    w.parent.planMode = true;
    const body = JSON.parse((await exitPlanModeTool.run({ plan }, w.ctx(w.parent))).content);
    assert.equal(w.provider.calls, 0);
    assert.equal(w.parent.planMode, true);
    assert.equal(body.status, 'blocked');
    assert.match(body.message, /BLOCKED: plan approval/);
  });

  it('does not ask when the agent is not in plan mode', async () => {
    const w = world();
    const body = JSON.parse((await exitPlanModeTool.run({ plan }, w.ctx(w.parent))).content);
    assert.equal(body.status, 'not-in-plan-mode');
    assert.equal(w.provider.calls, 0);
  });

  it('is offered in plan mode (read-only) and its schema converts to JSON Schema', () => {
    assert.equal(exitPlanModeTool.readOnly, true);
    const json = z.toJSONSchema(exitPlanModeTool.schema()) as { required: string[] };
    assert.deepEqual(json.required, ['plan']);
  });
});
