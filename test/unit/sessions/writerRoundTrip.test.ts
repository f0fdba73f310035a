import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import * as path from 'node:path';
import { isArborError, type ArborError } from '../../../src/core/errors';
import { ScriptedModel } from '../../../src/core/models/scriptedModel';
import { Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore, sessionEventSchema, type SessionEvent } from '../../../src/core/sessions';
import { header, makeTempDir, tick } from '../../support/sessionFixtures';
import { forged } from '../../support/forged';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

/*
 * Any session the writer produces can be loaded back: random event sequences, many of them
 * with values a model or a bug could hand the writer (negative, fractional, huge and string
 * numbers, numeric ids, odd Unicode, NUL, huge strings), go through the real JSONL writer and
 * come back through the real loader.
 */

const hostileNumber = fc.oneof(
  fc.integer({ min: -1_000_000, max: -1 }),
  fc.double(),
  fc.constantFrom(1.5, -5, -0, 2 ** 53, 2 ** 60, Number.MAX_VALUE, Number.NaN, Number.POSITIVE_INFINITY),
  fc.nat().map(String),
  fc.constant('12'),
  fc.bigInt(),
);

/** Single UTF-16 units: lone surrogates, NUL, line and paragraph separators included. */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const hostileString = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: anyCodeUnit, maxLength: 40 }) },
  { weight: 5, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 5, arbitrary: fc.constantFrom('\0', 'a\0b', '\n', '\r\n', '\u2028\u2029', '\uD800', '\uDFFF\uD800', '{"type":"header"}\n', '\\', '"') },
  // Huge texts: a tool that returns a whole file, a model that never stops (larger than a batch).
  { weight: 1, arbitrary: fc.integer({ min: 70_000, max: 300_000 }).map((n) => 'x'.repeat(n) + '🌳\n') },
);
const anything: fc.Arbitrary<unknown> = fc.oneof(
  hostileNumber,
  hostileString,
  fc.constantFrom(null, undefined, true, false, {}, [], { id: 1 }),
  fc.integer(),
);

/** Mostly values of the right type, sometimes anything at all. */
const maybe = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: anything });
const count = maybe(fc.nat());
const text = maybe(fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 30 }) }, { weight: 2, arbitrary: hostileString }));
const at = maybe(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()));
const from = maybe(fc.constantFrom('user', 'parent', 'child', 'system'));
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const eventArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ type: fc.constant('user_message'), at, text, from, queuedId: optional(count) }),
  fc.record({ type: fc.constant('queued'), at, id: count, text, from, atNextStep: optional(maybe(fc.boolean())) }),
  fc.record({ type: fc.constant('queue_dropped'), at, ids: maybe(fc.array(count, { maxLength: 4 })) }),
  fc.record({ type: fc.constant('assistant_text'), at, text }),
  fc.record({ type: fc.constant('tool_call'), at, call: maybe(fc.record({ id: text, name: text, arguments: text })) }),
  fc.record({ type: fc.constant('tool_result'), at, toolCallId: text, name: text, content: text, isError: optional(maybe(fc.boolean())) }),
  fc.record({ type: fc.constant('turn_start'), at, turn: count }),
  fc.record({
    type: fc.constant('turn_end'),
    at,
    turn: count,
    reason: maybe(fc.constantFrom('completed', 'aborted', 'blocked', 'error', 'budget', 'paused', 'interrupted')),
    cause: optional(maybe(fc.constantFrom('user', 'parent', 'disposed', 'budget'))),
    message: optional(text),
  }),
  fc.record({ type: fc.constant('interrupt'), at, authority: maybe(fc.constantFrom('user', 'ancestor')), by: optional(text) }),
  fc.record({
    type: fc.constant('question'),
    at,
    questions: maybe(fc.array(fc.record({ id: text, question: text, options: maybe(fc.array(fc.record({ label: text }), { maxLength: 3 })) }), { maxLength: 2 })),
  }),
  fc.record({ type: fc.constant('answer'), at, answers: optional(maybe(fc.array(fc.record({ id: text, selected: maybe(fc.array(text, { maxLength: 3 })) }), { maxLength: 2 }))) }),
  fc.record({ type: fc.constant('approval'), at, action: text, decision: maybe(fc.constantFrom('allow-once', 'allow-session', 'deny')), reason: text }),
  fc.record({ type: fc.constant('usage'), at, inputTokens: count, outputTokens: count }),
  // Not an event at all.
  anything.map((value) => ({ type: 'usage', at: new Date(0).toISOString(), inputTokens: value, outputTokens: value, extra: value })),
  fc.record({ type: maybe(fc.constant('nonsense')), at }),
);

/** What JSON keeps of a value: the form in which the loader can return it. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

describe('durable sessions: whatever is appended, the session loads', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-roundtrip-')));
  afterEach(() => cleanup());

  it('writes random event sequences with hostile values through the writer and loads every saved event back', async function () {
    this.timeout(120_000);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(eventArb, { maxLength: 25 }), async (events) => {
        const id = `prop-${++n}`;
        // A folder per run, so a shrunk counterexample is judged on its own file only.
        const root = path.join(dir, id);
        const problems: ArborError[] = [];
        const writer = new JsonlSessionStore(root, { onError: (e) => problems.push(e) });
        const log = writer.create(header(id));
        for (const event of events) log.append(event as SessionEvent);
        const saved = log.events.slice();
        await log.close();

        // Exactly the events the loader's schema rejects are refused, each with a typed error.
        const valid = events.filter((e) => sessionEventSchema().safeParse(e).success);
        assert.equal(saved.length, valid.length);
        assert.equal(problems.length, events.length - valid.length);
        for (const p of problems) assert.ok(isArborError(p, 'SESSION_EVENT_INVALID'), p.message);

        const reader = new JsonlSessionStore(root);
        const loaded = await reader.loadSession(id);
        const repaired = loaded.repairs.interruptedTurn === undefined ? 0 : 1;
        assert.equal(loaded.events.length, saved.length + repaired);
        assert.deepEqual(asJson(loaded.events.slice(0, saved.length)), asJson(saved));
        const { diagnostics } = await reader.listSessions();
        assert.deepEqual(diagnostics, []);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses an event the loader would reject, reports it on the agent, and keeps the session loadable', async () => {
    const store = new JsonlSessionStore(dir, { flushDelayMs: 1 });
    track(store);
    const runtime = new Runtime({
      model: new ScriptedModel({ version: 1, agents: { Lead: { turns: [[{ text: 'done' }]] } } }),
      sessions: store,
      newId: () => 'lead-1',
    });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'Lead' });
    const problems: ArborError[] = [];
    runtime.onEvent((e) => {
      if (e.type === 'agent_changed' && e.change.type === 'session_problem' && e.change.problem) problems.push(e.change.problem);
    });
    await whenState(runtime, () => agent.status === 'idle' && agent.turnCount === 1, 'the first turn to end');
    const bad = [
      { type: 'usage', at: tick(), inputTokens: -5, outputTokens: 1 },
      { type: 'usage', at: tick(), inputTokens: 1.5, outputTokens: 1 },
      { type: 'usage', at: tick(), inputTokens: '12', outputTokens: 1 },
      { type: 'tool_call', at: tick(), call: { id: 7, name: 'read_file', arguments: '{}' } },
      { type: 'tool_call', at: tick(), call: { id: 'c1', name: 42, arguments: '{}' } },
    ];
    const before = agent.log.events.length;
    for (const event of bad) agent.append(forged<SessionEvent>(event));
    agent.append({ type: 'assistant_text', at: tick(), text: 'still saved' });
    await agent.log.flush();

    assert.equal(problems.length, bad.length);
    assert.ok(problems.every((p) => p.code === 'SESSION_EVENT_INVALID'));
    assert.equal(agent.sessionProblem?.code, 'SESSION_EVENT_INVALID');
    assert.match(agent.sessionProblem?.message ?? '', /tool_call event was not saved .*call\.name/);

    const loaded = await new JsonlSessionStore(dir).loadSession('lead-1');
    assert.equal(loaded.events.length, before + 1, 'no refused event reached the file');
    assert.deepEqual(loaded.events.at(-1), { type: 'assistant_text', at: loaded.events.at(-1)?.at, text: 'still saved' });
  });
});
