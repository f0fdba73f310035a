import * as assert from 'assert';
import { getEventListeners } from 'node:events';
import { ArborError } from '../../../src/core/errors';
import {
  INTERNAL_RUN_KEYS,
  isInteractionMode,
  parsePublicRunRequest,
  parsePublicRunRequestFrom,
  parsePublicRunRequestStrict,
  persistableRunContext,
  resolveInteractionPolicy,
  UserInteractionService,
  type InteractionPrompt,
  type PendingChange,
} from '../../../src/core/interaction';
import { FakeDirectory, FakeProvider, makeAgent, oneQuestion, rejection } from '../../support/interactionFakes';
import { forged } from '../../support/forged';
import { disposeAfterEach } from '../../support/disposeAfterEach';

// The human-interaction seam as its callers see it: outcomes of a prompt, the signal the UI
// holds, which UI's prompts close with it, and the internal keys public callers cannot set.

function settledOutcomes(service: UserInteractionService): string[] {
  const outcomes: string[] = [];
  service.onDidChangePending((c: PendingChange) => {
    if (c.kind === 'settled') outcomes.push(c.outcome);
  });
  return outcomes;
}

describe('question prompts, pinned', () => {
  it("a human's dismissal settles as cancelled (not failed), with ASK_CANCELLED, and the UI's signal stays quiet", async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider().dismiss();
    service.registerProvider(provider);
    const outcomes = settledOutcomes(service);
    const err = await rejection(service.ask({ questions: oneQuestion() }));
    assert.strictEqual(err.code, 'ASK_CANCELLED');
    assert.deepStrictEqual(outcomes, ['cancelled']);
    assert.strictEqual(provider.prompts[0].signal.aborted, false, 'the UI closed the prompt itself');
  });

  it("an answered prompt's signal never aborts, and the outcome is answered", async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    service.registerProvider(provider);
    const outcomes = settledOutcomes(service);
    const answers = await service.ask({ questions: oneQuestion() });
    assert.deepStrictEqual(answers, [{ id: 'db', selected: ['Postgres'] }]);
    assert.deepStrictEqual(outcomes, ['answered']);
    assert.strictEqual(provider.prompts[0].signal.aborted, false);
    assert.deepStrictEqual(service.pending(), []);
  });

  it('a caller abort after the answer changes nothing', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    service.registerProvider(provider);
    const outcomes = settledOutcomes(service);
    const controller = new AbortController();
    await service.ask({ questions: oneQuestion(), signal: controller.signal });
    controller.abort();
    assert.deepStrictEqual(outcomes, ['answered']);
    assert.strictEqual(provider.prompts[0].signal.aborted, false);
  });

  it("a settled prompt leaves no listener on the caller's signal, which one turn may pass to many prompts", async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    const registration = service.registerProvider(provider);
    const controller = new AbortController();
    await service.ask({ questions: oneQuestion(), signal: controller.signal });
    assert.strictEqual(getEventListeners(controller.signal, 'abort').length, 0, 'answered');
    provider.dismiss();
    await rejection(service.ask({ questions: oneQuestion(), signal: controller.signal }));
    assert.strictEqual(getEventListeners(controller.signal, 'abort').length, 0, 'cancelled');
    provider.hang();
    const open = rejection(service.ask({ questions: oneQuestion(), signal: controller.signal }));
    assert.strictEqual(getEventListeners(controller.signal, 'abort').length, 1, 'listening while the prompt is open');
    registration.dispose();
    assert.strictEqual((await open).code, 'NO_PROVIDER');
    assert.strictEqual(getEventListeners(controller.signal, 'abort').length, 0, 'failed');
  });

  it('a UI that fails (ArborError or not) settles as failed, and its signal tells it nobody waits', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    service.registerProvider(provider);
    const outcomes = settledOutcomes(service);
    provider.respond = () => Promise.reject(new ArborError('NO_PROVIDER', 'boom'));
    const passedOn = await rejection(service.ask({ questions: oneQuestion() }));
    assert.deepStrictEqual([passedOn.code, passedOn.message], ['NO_PROVIDER', 'boom'], "the UI's own typed error is passed on as is");
    provider.respond = () => Promise.reject(new Error('crashed'));
    const plain = await rejection(service.ask({ questions: oneQuestion() }));
    assert.strictEqual(plain.code, 'INTERNAL');
    assert.strictEqual(plain.message, 'The question UI failed: crashed');
    provider.respond = () => {
      throw new Error('thrown at once');
    };
    assert.match((await rejection(service.ask({ questions: oneQuestion() }))).message, /thrown at once/);
    assert.deepStrictEqual(outcomes, ['failed', 'failed', 'failed']);
    assert.ok(provider.prompts.every((p: InteractionPrompt) => p.signal.aborted));
  });

  it("a stale registration of an earlier UI, disposed late, neither unregisters nor fails the current UI's questions", async () => {
    const service = new UserInteractionService();
    const stale = service.registerProvider(new FakeProvider());
    // The service is reset (every prompt withdrawn) while the earlier UI still holds its registration.
    service.dispose();
    const current = new FakeProvider().hang();
    service.registerProvider(current);
    const asked = service.ask({ questions: oneQuestion() });
    stale.dispose();
    assert.strictEqual(service.hasProvider, true, "the current UI's registration stands");
    assert.strictEqual(service.pending().length, 1, "the current UI's question is still open");
    assert.strictEqual(current.prompts[0].signal.aborted, false);
    service.dispose();
    assert.strictEqual((await rejection(asked)).code, 'ASK_ABORTED');
  });

  it('closing one UI fails only its own open questions', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider().hang();
    const registration = service.registerProvider(provider);
    const outcomes = settledOutcomes(service);
    const asked = service.ask({ questions: oneQuestion() });
    registration.dispose();
    const err = await rejection(asked);
    assert.strictEqual(err.code, 'NO_PROVIDER');
    assert.deepStrictEqual(outcomes, ['failed']);
    assert.strictEqual(service.hasProvider, false);
    registration.dispose();
    assert.deepStrictEqual(outcomes, ['failed'], 'a second dispose does nothing');
  });

  it('the prompt carries a frozen copy of the asking agent, its intent and detail, and the time it opened', async () => {
    const directory = new FakeDirectory();
    const agent = makeAgent('root-1', { label: 'Root' });
    directory.add(agent);
    const service = new UserInteractionService({ agents: directory, now: () => 1234 });
    const provider = new FakeProvider().hang();
    service.registerProvider(provider);
    const asked = service.ask({ questions: oneQuestion(), agent, intent: 'approval', detail: 'rm -rf build' });
    const [pending] = service.pending();
    assert.deepStrictEqual({ ...pending, questions: undefined }, {
      id: 'ask-1',
      questions: undefined,
      agent: { id: 'root-1', label: 'Root' },
      intent: 'approval',
      detail: 'rm -rf build',
      openedAt: 1234,
    });
    assert.notStrictEqual(provider.prompts[0].agent, agent, 'the UI never holds the live agent');
    assert.ok(Object.isFrozen(provider.prompts[0].agent));
    assert.ok(Object.isFrozen(pending.questions[0]));
    service.dispose();
    await rejection(asked);
  });
});

describe('question prompt refusals and withdrawals, pinned', () => {
  const track = disposeAfterEach();
  it('each refusal has its code and a message that tells the caller what happened', async () => {
    const directory = new FakeDirectory();
    const root = makeAgent('root');
    const child = makeAgent('child', { kind: 'one-shot' });
    directory.add(root);
    directory.add(child, root);
    const service = new UserInteractionService({ agents: directory });
    const aborted = AbortSignal.abort();
    const e1 = await rejection(service.ask({ questions: oneQuestion(), signal: aborted }));
    assert.strictEqual(e1.message, 'The question was not asked: the turn was cancelled.');
    assert.strictEqual((await rejection(service.ask({ questions: [] }))).message, 'Ask at least one question.');
    const stale = makeAgent('gone');
    const e3 = await rejection(service.ask({ questions: oneQuestion(), agent: stale }));
    assert.strictEqual(e3.code, 'CALLER_NOT_LIVE');
    assert.deepStrictEqual(e3.details, { agentId: 'gone' });
    const e4 = await rejection(service.ask({ questions: oneQuestion(), agent: child }));
    assert.strictEqual(e4.code, 'DELEGATED_CALLER');
    assert.deepStrictEqual(e4.details, { agentId: 'child' });
    const e5 = await rejection(service.ask({ questions: oneQuestion(), intent: 'bogus' as 'clarify' }));
    assert.strictEqual(e5.code, 'BAD_INTENT');
    assert.match(e5.message, /^The questions cannot be asked as written: .+\. Fix them and ask again\.$/);
    const e6 = await rejection(service.ask({ questions: oneQuestion() }));
    assert.strictEqual(e6.message, 'No question UI is available, so the human cannot be asked right now.');
    const first = service.registerProvider(new FakeProvider());
    track(first);
    assert.throws(
      () => service.registerProvider(new FakeProvider()),
      (e: unknown) =>
        e instanceof ArborError && e.message === 'A question provider is already registered; dispose it before registering another.',
    );
  });

  it('prompt ids count up, and a prompt without detail has no detail key', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    service.registerProvider(provider);
    await service.ask({ questions: oneQuestion() });
    await service.ask({ questions: oneQuestion(), detail: 'x' });
    assert.deepStrictEqual(
      provider.prompts.map((p) => p.id),
      ['ask-1', 'ask-2'],
    );
    assert.strictEqual('detail' in provider.prompts[0], false);
    assert.strictEqual(provider.prompts[1].detail, 'x');
  });

  it('a withdrawn prompt settles once: a late answer from the UI changes nothing', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    let answer!: () => void;
    provider.respond = (prompt) =>
      new Promise((resolve) => (answer = () => resolve(prompt.questions.map((q) => ({ id: q.id, selected: [q.options[0].label] })))));
    service.registerProvider(provider);
    const changes: string[] = [];
    service.onDidChangePending((c) => changes.push(c.kind === 'settled' ? `settled:${c.outcome}` : c.kind));
    const controller = new AbortController();
    const asked = service.ask({ questions: oneQuestion(), signal: controller.signal });
    controller.abort();
    const err = await rejection(asked);
    assert.strictEqual(err.message, 'The question was withdrawn: the turn was cancelled before the human answered.');
    assert.strictEqual(provider.prompts[0].signal.aborted, true);
    answer();
    await new Promise((r) => setTimeout(r, 0));
    assert.deepStrictEqual(changes, ['opened', 'settled:aborted']);
  });

  it('answers that do not fit fail with BAD_ANSWER; a shutdown withdraws open prompts with its own message', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    service.registerProvider(provider);
    provider.respond = () => Promise.resolve([{ id: 'nope', selected: [] }]);
    const outcomes = settledOutcomes(service);
    const bad = await rejection(service.ask({ questions: oneQuestion() }));
    assert.deepStrictEqual(outcomes, ['failed']);
    assert.strictEqual(bad.code, 'BAD_ANSWER');
    assert.match(bad.message, /^The question UI returned answers that do not fit the questions: .+\.$/);
    provider.hang();
    const asked = service.ask({ questions: oneQuestion() });
    service.dispose();
    assert.strictEqual((await rejection(asked)).message, 'The question was withdrawn: the runtime is shutting down.');
    assert.deepStrictEqual(outcomes, ['failed', 'aborted']);
  });

  it('disposing an old registration again does not unregister the same UI registered anew', () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    const first = service.registerProvider(provider);
    first.dispose();
    service.registerProvider(provider);
    first.dispose();
    assert.strictEqual(service.hasProvider, true);
  });

  it('closing the UI fails its open question with a message that says so', async () => {
    const service = new UserInteractionService();
    const registration = service.registerProvider(new FakeProvider().hang());
    const asked = service.ask({ questions: oneQuestion() });
    registration.dispose();
    assert.strictEqual((await rejection(asked)).message, 'The question UI closed before the human answered.');
  });
});

describe('public entry points and internal keys, pinned', () => {
  const spellings: Array<[string, string]> = [
    ['interactionMode', 'interactionMode'],
    ['interaction_mode', 'interactionMode'],
    ['nonInteractive', 'nonInteractive'],
    ['non_interactive', 'nonInteractive'],
    ['disableClarification', 'disableClarification'],
    ['disable_clarification', 'disableClarification'],
    ['channelName', 'channelName'],
    ['channel_name', 'channelName'],
  ];

  for (const [spelling, key] of spellings) {
    it(`the strict entry points refuse "${spelling}" at the top level and inside a context container, naming ${key}`, () => {
      for (const entry of ['api', 'command', 'webview'] as const) {
        for (const input of [
          { prompt: 'hi', [spelling]: true },
          { prompt: 'hi', context: { [spelling]: true } },
          { prompt: 'hi', runContext: { [spelling]: true } },
          { prompt: 'hi', configurable: { [spelling]: true } },
          { prompt: 'hi', config: { [spelling]: true } },
          { prompt: 'hi', options: { [spelling]: true } },
        ]) {
          assert.throws(
            () => parsePublicRunRequestFrom(entry, input),
            (e: unknown) =>
              e instanceof ArborError &&
              e.code === 'INTERNAL_KEY_REJECTED' &&
              e.message === `A public run request cannot set ${key}; remove it and send the prompt alone.`,
            `${entry} ${JSON.stringify(input)}`,
          );
        }
      }
      let stripped: readonly string[] = [];
      const parsed = parsePublicRunRequestFrom('uri', { prompt: 'hi', [spelling]: 'x' }, { onStripped: (k) => (stripped = k) });
      assert.deepStrictEqual(parsed, { prompt: 'hi' });
      assert.deepStrictEqual(stripped, [key]);
    });
  }

  it('a refusal lists the keys it found in its details, and a bad request names each field', () => {
    try {
      parsePublicRunRequestStrict({ prompt: 'hi', non_interactive: true });
      assert.fail('accepted');
    } catch (e) {
      assert.deepStrictEqual((e as ArborError).details, { keys: ['nonInteractive'] });
    }
    assert.throws(
      () => parsePublicRunRequestStrict({ prompt: '', label: '  ' }),
      (e: unknown) =>
        e instanceof ArborError && /^The run request is invalid \(prompt: [^;]+; prompt: must not be blank; label: must not be blank\)\.$/.test(e.message),
    );
  });

  it('several internal keys are named together, in a fixed order', () => {
    assert.throws(
      () => parsePublicRunRequestStrict({ prompt: 'hi', channel_name: 'github', context: { interactionMode: 'autonomous' } }),
      (e: unknown) =>
        e instanceof ArborError && e.message === 'A public run request cannot set interactionMode, channelName; remove them and send the prompt alone.',
    );
    assert.deepStrictEqual([...INTERNAL_RUN_KEYS], ['interactionMode', 'nonInteractive', 'disableClarification', 'channelName']);
  });

  it('keys that merely look internal, arrays and non-objects are not internal keys', () => {
    assert.deepStrictEqual(parsePublicRunRequestStrict({ prompt: 'hi', toString: 1, context: ['nonInteractive'] }), { prompt: 'hi' });
    let called = false;
    assert.deepStrictEqual(parsePublicRunRequest({ prompt: 'hi', label: 'L' }, { onStripped: () => (called = true) }), { prompt: 'hi', label: 'L' });
    assert.strictEqual(called, false, 'nothing stripped, nothing reported');
    assert.throws(() => parsePublicRunRequestStrict('hi'), (e: unknown) => e instanceof ArborError && e.code === 'INPUT_INVALID');
    assert.throws(
      () => parsePublicRunRequestStrict({ prompt: '   ' }),
      (e: unknown) => e instanceof ArborError && e.message === 'The run request is invalid (prompt: must not be blank).',
    );
    assert.throws(
      () => parsePublicRunRequestStrict(null),
      (e: unknown) => e instanceof ArborError && /\(request\)/.test(e.message),
    );
  });

  it('a persisted run context keeps the resolved mode and drops the runtime-only hints', () => {
    assert.deepStrictEqual(persistableRunContext({ nonInteractive: true, channelName: 'x', disableClarification: false }), {
      interactionMode: 'scheduled',
    });
    assert.deepStrictEqual(persistableRunContext({}), { interactionMode: 'interactive' });
  });
});

describe('interaction policy, pinned', () => {
  it('each hint resolves to its mode with its source, in precedence order', () => {
    const cases: Array<[object, string, string]> = [
      [{ interactionMode: 'webhook', nonInteractive: true }, 'webhook', 'interactionMode'],
      [{ nonInteractive: true, channelName: 'github' }, 'scheduled', 'nonInteractive'],
      [{ nonInteractive: false, channelName: 'github', disableClarification: true }, 'webhook', 'channelName'],
      [{ channelName: 'slack', disableClarification: true }, 'autonomous', 'disableClarification'],
      [{ disableClarification: false }, 'interactive', 'default'],
      [{}, 'interactive', 'default'],
    ];
    for (const [ctx, mode, source] of cases) {
      const policy = resolveInteractionPolicy(ctx);
      assert.strictEqual(policy.mode, mode, JSON.stringify(ctx));
      assert.strictEqual(policy.source, source, JSON.stringify(ctx));
      assert.strictEqual(policy.unattended, mode !== 'interactive');
    }
    assert.strictEqual(resolveInteractionPolicy().mode, 'interactive');
  });

  it('isInteractionMode accepts exactly the four modes', () => {
    for (const mode of ['interactive', 'scheduled', 'webhook', 'autonomous']) assert.strictEqual(isInteractionMode(mode), true);
    for (const other of ['robot', '', 5, undefined]) assert.strictEqual(isInteractionMode(other), false);
  });

  it('errors name the bad key and the known modes', () => {
    try {
      resolveInteractionPolicy({ interactionMode: 'robot' });
      assert.fail('accepted');
    } catch (e) {
      assert.deepStrictEqual((e as ArborError).details, { interactionMode: 'robot' });
    }
    assert.throws(
      () => resolveInteractionPolicy({ nonInteractive: forged<boolean>('yes'), channelName: forged<string>(5) }),
      (e: unknown) => e instanceof ArborError && /^The run context is invalid \(nonInteractive: [^;]+; channelName: [^;]+\)\.$/.test(e.message),
    );
    assert.throws(
      () => resolveInteractionPolicy({ interactionMode: 'robot' }),
      (e: unknown) =>
        e instanceof ArborError &&
        e.code === 'POLICY_INVALID' &&
        e.message === 'Unknown interaction mode "robot"; expected one of interactive, scheduled, webhook, autonomous.',
    );
    assert.throws(
      () => resolveInteractionPolicy({ nonInteractive: forged<boolean>('true') }),
      (e: unknown) => e instanceof ArborError && e.code === 'POLICY_INVALID' && /^The run context is invalid \(nonInteractive: /.test(e.message),
    );
  });

  it('unattended runs hide both human tools, say why they started, and deny approvals; interactive runs ask', () => {
    const tools = ['read_file', 'ask_user_question', 'exit_plan_mode', { name: 'ask_user_question' }, { name: 'x' }];
    const scheduled = resolveInteractionPolicy({ nonInteractive: true });
    assert.deepStrictEqual(scheduled.visibleTools(tools), ['read_file', { name: 'x' }]);
    assert.strictEqual(scheduled.approvalEligibility({ isSubagent: false }), 'deny');
    assert.match(scheduled.systemPromptGuidance(), /^This run was started on a schedule: no human will answer/);
    assert.match(scheduled.systemPromptGuidance(), /In plan mode, your plan is your final result\.$/);
    assert.match(resolveInteractionPolicy({ channelName: 'github' }).systemPromptGuidance(), /^This run was started by a GitHub event:/);
    assert.match(resolveInteractionPolicy({ disableClarification: true }).systemPromptGuidance(), /^This run was started to work on its own:/);
    assert.strictEqual(
      scheduled.suppressedClarificationResult('  Which DB?  '),
      'This run was started on a schedule, so no human can answer: the question was not asked and no answer will come. Do not wait for one. ' +
        'Unanswered question: "Which DB?". ' +
        'Use the context you have. Where a gap remains, make the smallest reversible assumption and list every material assumption in your final result. ' +
        'If the work is high-risk or irreversible and the decision it needs is not authorized, do not do that part: ' +
        'end with a result that starts with "BLOCKED:" and names the missing decision.',
    );
    assert.strictEqual(scheduled.suppressedClarificationResult('   '), scheduled.suppressedClarificationResult(), 'a blank question is no question');
    assert.ok(
      scheduled.suppressedClarificationResult().startsWith(
        'This run was started on a schedule, so no human can answer: the question was not asked and no answer will come. Do not wait for one. Use the context',
      ),
      'no question, no "Unanswered question" sentence',
    );

    const interactive = resolveInteractionPolicy({});
    assert.deepStrictEqual(interactive.visibleTools(tools), tools);
    assert.strictEqual(interactive.isToolVisible('ask_user_question'), true);
    assert.strictEqual(interactive.approvalEligibility({ isSubagent: false }), 'ask');
    assert.strictEqual(interactive.approvalEligibility({ isSubagent: true }), 'deny');
    assert.match(interactive.suppressedClarificationResult(), /^No human can answer right now: the question was not asked/);
    assert.match(interactive.systemPromptGuidance(), /^A human is available\./);
    assert.ok(Object.isFrozen(interactive));
  });
});
