import assert from 'node:assert/strict';
import {
  CALLER_NOT_LIVE_MESSAGE,
  DELEGATED_CALLER_MESSAGE,
  UserInteractionService,
  type PendingChange,
} from '../../../src/core/interaction';
import { FakeDirectory, FakeProvider, makeAgent, oneQuestion, rejection } from '../../support/interactionFakes';
import { forged } from '../../support/forged';

function setup() {
  const directory = new FakeDirectory();
  const service = new UserInteractionService({ agents: directory });
  const provider = new FakeProvider();
  service.registerProvider(provider);
  return { directory, service, provider };
}

describe('UserInteractionService.ask guards', () => {
  it('rejects an already aborted signal with ASK_ABORTED before looking at anything else', async () => {
    const { service, provider } = setup();
    const signal = AbortSignal.abort();
    // Even with an empty batch and an unknown caller, the abort is reported first.
    const err = await rejection(service.ask({ questions: [], agent: makeAgent('ghost'), signal }));
    assert.equal(err.code, 'ASK_ABORTED');
    assert.equal(provider.calls, 0);
  });

  it('rejects an empty batch with EMPTY_QUESTIONS before authenticating the caller', async () => {
    const { service, provider } = setup();
    const err = await rejection(service.ask({ questions: [], agent: makeAgent('ghost') }));
    assert.equal(err.code, 'EMPTY_QUESTIONS');
    assert.equal(provider.calls, 0);
  });

  it('rejects a caller when no agent directory was given with CALLER_NOT_LIVE', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    service.registerProvider(provider);
    const err = await rejection(service.ask({ questions: oneQuestion(), agent: makeAgent('root') }));
    assert.equal(err.code, 'CALLER_NOT_LIVE');
    assert.equal(err.message, CALLER_NOT_LIVE_MESSAGE);
    assert.equal(provider.calls, 0);
  });

  it('rejects a stale object that reuses a live id with CALLER_NOT_LIVE', async () => {
    const { directory, service, provider } = setup();
    const live = makeAgent('a1');
    directory.add(live);
    const stale = makeAgent('a1');
    const err = await rejection(service.ask({ questions: oneQuestion(), agent: stale }));
    assert.equal(err.code, 'CALLER_NOT_LIVE');
    assert.equal(provider.calls, 0);
  });

  it('rejects an agent that is no longer live with CALLER_NOT_LIVE', async () => {
    const { directory, service, provider } = setup();
    const agent = makeAgent('gone');
    directory.add(agent);
    directory.remove('gone');
    assert.equal((await rejection(service.ask({ questions: oneQuestion(), agent }))).code, 'CALLER_NOT_LIVE');
    assert.equal(provider.calls, 0);
  });

  it('rejects a live owned child with a zero durable delegation depth with DELEGATED_CALLER', async () => {
    const { directory, service, provider } = setup();
    const parent = makeAgent('parent');
    const child = makeAgent('child', { kind: 'one-shot', delegationDepth: 0 });
    directory.add(parent);
    directory.add(child, parent);
    const err = await rejection(service.ask({ questions: oneQuestion(), agent: child }));
    assert.equal(err.code, 'DELEGATED_CALLER');
    assert.equal(err.message, DELEGATED_CALLER_MESSAGE);
    assert.equal(provider.calls, 0);
  });

  it('admits a resumed root whose header records a parent and depth 1 but which has no owner', async () => {
    const { directory, service, provider } = setup();
    const resumed = makeAgent('resumed', { kind: 'root', parentSession: 'old-parent', delegationDepth: 1 });
    directory.add(resumed);
    const answers = await service.ask({ questions: oneQuestion(), agent: resumed });
    assert.deepEqual(answers, [{ id: 'db', selected: ['Postgres'] }]);
    assert.equal(provider.calls, 1);
    assert.deepEqual(provider.prompts[0].agent, { id: 'resumed', label: 'resumed' });
  });

  it('checks the caller before the questions: a delegated caller with malformed questions gets DELEGATED_CALLER', async () => {
    const { directory, service, provider } = setup();
    const parent = makeAgent('parent');
    const child = makeAgent('child');
    directory.add(parent);
    directory.add(child, parent);
    const err = await rejection(service.ask({ questions: oneQuestion({ id: '' }), agent: child }));
    assert.equal(err.code, 'DELEGATED_CALLER');
    assert.equal(provider.calls, 0);
  });

  it('rejects malformed questions with BAD_INTENT', async () => {
    const { directory, service, provider } = setup();
    const root = makeAgent('root');
    directory.add(root);
    const cases: unknown[] = [
      oneQuestion({ question: '   ' }),
      oneQuestion({ header: 'x'.repeat(41) }),
      oneQuestion({ options: [{ label: 'Same' }, { label: 'Same' }] }),
      [...oneQuestion(), ...oneQuestion()],
      Array.from({ length: 5 }, (_, i) => oneQuestion({ id: `q${i}` })[0]),
      oneQuestion({ multiSelect: forged<boolean>('yes') }),
      'not a list',
    ];
    for (const questions of cases) {
      const err = await rejection(service.ask({ questions: questions as never, agent: root }));
      assert.equal(err.code, 'BAD_INTENT', JSON.stringify(questions));
    }
    assert.equal(provider.calls, 0);
  });

  it('rejects an unknown intent with BAD_INTENT', async () => {
    const { service, provider } = setup();
    const err = await rejection(service.ask({ questions: oneQuestion(), intent: 'shout' as never }));
    assert.equal(err.code, 'BAD_INTENT');
    assert.equal(provider.calls, 0);
  });

  it('rejects with NO_PROVIDER when no question UI is registered', async () => {
    const directory = new FakeDirectory();
    const root = makeAgent('root');
    directory.add(root);
    const service = new UserInteractionService({ agents: directory });
    assert.equal((await rejection(service.ask({ questions: oneQuestion(), agent: root }))).code, 'NO_PROVIDER');
  });

  it('keeps the provider path for agentless programmatic calls', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    service.registerProvider(provider);
    const answers = await service.ask({ questions: oneQuestion() });
    assert.deepEqual(answers, [{ id: 'db', selected: ['Postgres'] }]);
    assert.equal(provider.prompts[0].agent, undefined);
    assert.equal(provider.prompts[0].intent, 'clarify');
  });

  it('does not claim an upward messaging or forwarding channel in the caller rejections', () => {
    for (const text of [DELEGATED_CALLER_MESSAGE, CALLER_NOT_LIVE_MESSAGE]) {
      assert.match(text, /cannot ask the human directly/);
      assert.match(text, /final result/);
      assert.doesNotMatch(text, /send_message|forward|message (to )?your parent|ask your parent|wait for (an|the) (answer|reply) from/i);
      assert.doesNotMatch(text, /ask_user_question|exit_plan_mode/, 'the text must fit every consumer');
    }
    assert.match(DELEGATED_CALLER_MESSAGE, /your parent receives/);
  });
});

describe('UserInteractionService providers and prompts', () => {
  it('refuses a second provider while one is registered, and accepts one after disposal', () => {
    const service = new UserInteractionService();
    const first = service.registerProvider(new FakeProvider());
    assert.throws(() => service.registerProvider(new FakeProvider()), (e: { code?: string }) => e.code === 'DUPLICATE_PROVIDER');
    first.dispose();
    assert.doesNotThrow(() => service.registerProvider(new FakeProvider()));
  });

  it('reports a dismissed prompt as ASK_CANCELLED', async () => {
    const service = new UserInteractionService();
    service.registerProvider(new FakeProvider().dismiss());
    assert.equal((await rejection(service.ask({ questions: oneQuestion() }))).code, 'ASK_CANCELLED');
    assert.equal(service.pending().length, 0);
  });

  it('settles at once with ASK_ABORTED when the caller aborts while the prompt is open, and aborts the provider signal', async () => {
    const { directory, service, provider } = setup();
    provider.respond = () => new Promise(() => undefined); // a UI that would never answer by itself
    const root = makeAgent('root');
    directory.add(root);
    const turn = new AbortController();
    const asked = service.ask({ questions: oneQuestion(), agent: root, signal: turn.signal });
    assert.equal(provider.calls, 1);
    assert.equal(provider.prompts[0].signal.aborted, false);
    turn.abort();
    const err = await rejection(asked);
    assert.equal(err.code, 'ASK_ABORTED');
    assert.equal(provider.prompts[0].signal.aborted, true, 'the UI is told to close the prompt');
    assert.equal(service.pending().length, 0);
  });

  it('closes open prompts with NO_PROVIDER when the provider is unregistered', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    provider.respond = () => new Promise(() => undefined);
    const registration = service.registerProvider(provider);
    const asked = service.ask({ questions: oneQuestion() });
    registration.dispose();
    assert.equal((await rejection(asked)).code, 'NO_PROVIDER');
    assert.equal(provider.prompts[0].signal.aborted, true);
  });

  it('lists open prompts with the asking agent and fires opened/settled events for the badge', async () => {
    const { directory, service, provider } = setup();
    const root = makeAgent('root', { label: 'Planner' });
    directory.add(root);
    let answer!: (a: { id: string; selected: string[] }[]) => void;
    provider.respond = () => new Promise((resolve) => (answer = resolve));
    const changes: PendingChange[] = [];
    service.onDidChangePending((c) => changes.push(c));

    const asked = service.ask({ questions: oneQuestion(), agent: root });
    assert.equal(service.pending().length, 1);
    assert.deepEqual(service.pending()[0].agent, { id: 'root', label: 'Planner' });
    assert.equal(service.pending()[0].questions[0].id, 'db');
    assert.deepEqual(changes.map((c) => c.kind), ['opened']);

    answer([{ id: 'db', selected: ['SQLite'] }]);
    assert.deepEqual(await asked, [{ id: 'db', selected: ['SQLite'] }]);
    assert.equal(service.pending().length, 0);
    assert.deepEqual(
      changes.map((c) => (c.kind === 'settled' ? `settled:${c.outcome}` : c.kind)),
      ['opened', 'settled:answered'],
    );
  });

  it('rejects answers that do not fit the questions with BAD_ANSWER', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    service.registerProvider(provider);
    const bad: unknown[] = [
      [{ id: 'db', selected: ['MySQL'] }], // not an offered option
      [{ id: 'db', selected: ['Postgres', 'SQLite'] }], // two choices on a single-choice question
      [], // unanswered
      [{ id: 'db', selected: [] }], // neither a choice nor text
      [{ id: 'db', selected: ['Postgres'] }, { id: 'other', selected: [] }], // unknown question
    ];
    for (const answers of bad) {
      provider.respond = () => Promise.resolve(answers as never);
      assert.equal((await rejection(service.ask({ questions: oneQuestion() }))).code, 'BAD_ANSWER', JSON.stringify(answers));
    }
  });

  it('accepts a free-text custom answer without a chosen option, and several choices on a multi-select question', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    service.registerProvider(provider);
    provider.respond = () => Promise.resolve([{ id: 'db', selected: [], custom: 'DuckDB' }]);
    assert.deepEqual(await service.ask({ questions: oneQuestion() }), [{ id: 'db', selected: [], custom: 'DuckDB' }]);
    provider.respond = () => Promise.resolve([{ id: 'db', selected: ['Postgres', 'SQLite'] }]);
    assert.deepEqual(await service.ask({ questions: oneQuestion({ multiSelect: true }) }), [{ id: 'db', selected: ['Postgres', 'SQLite'] }]);
  });

  it('accepts none of the options as the answer to a multi-select question, and only there', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    service.registerProvider(provider);
    provider.respond = () => Promise.resolve([{ id: 'db', selected: [] }]);
    assert.deepEqual(await service.ask({ questions: oneQuestion({ multiSelect: true }) }), [{ id: 'db', selected: [] }]);
    assert.equal((await rejection(service.ask({ questions: oneQuestion({ multiSelect: false }) }))).code, 'BAD_ANSWER', 'a single-choice question needs a choice or text');
    assert.equal((await rejection(service.ask({ questions: oneQuestion({ multiSelect: true, options: [] }) }))).code, 'BAD_ANSWER', 'a text-only question has no options to choose none of');
  });

  it('aborts open prompts with ASK_ABORTED when the service is disposed', async () => {
    const service = new UserInteractionService();
    const provider = new FakeProvider();
    provider.respond = () => new Promise(() => undefined);
    service.registerProvider(provider);
    const asked = service.ask({ questions: oneQuestion() });
    service.dispose();
    assert.equal((await rejection(asked)).code, 'ASK_ABORTED');
    assert.equal(provider.prompts[0].signal.aborted, true);
  });
});
