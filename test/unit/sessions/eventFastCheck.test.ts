import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { fastCheckedEvent, isValidHeaderAtAGlance } from '../../../src/core/sessions/eventFastCheck';
import { sessionEventSchema, sessionHeaderSchema } from '../../../src/core/sessions/schema';

/*
 * The writer's quick check stands in for the session schema on the common events: it must
 * never accept what the schema rejects, and what it accepts it must copy exactly as the schema
 * does (same keys, same order, same values), so the written line is the same either way.
 */
describe('durable sessions: the quick event check agrees with the schema', () => {
  const TYPES = ['user_message', 'queued', 'queue_dropped', 'assistant_text', 'tool_call', 'tool_result', 'turn_start', 'turn_end', 'interrupt', 'approval', 'usage'];
  const validIso = fc.oneof(
    fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom('2026-11-30T14:00:00Z', '2026-11-30T14:00:00+02:00', '2026-11-30T14:00:00.123456-05:30'),
  );
  const badIso = fc.constantFrom('', 'now', '2026-13-01T00:00:00.000Z', '2026-02-30T00:00:00.000Z', '2026-11-30 14:00:00Z', '2026-11-30T25:00:00.000Z', '2026-11-30T14:00:00.000', '2026-11-30T14:00:00.000Zx');
  const count = fc.oneof(fc.nat(), fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER));
  const badNumber = fc.constantFrom(-1, 1.5, NaN, Infinity, -Infinity, 2 ** 53, 1e300, '3');
  const word = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('user', 'parent', 'child', 'system', 'completed', 'aborted', 'error', 'budget', 'paused', 'interrupted', 'disposed', 'ancestor', 'deny', 'allow-once', 'allow-rule', 'workspace', 'setting', 'blocked'));
  const anyJunk = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.boolean(),
    badNumber,
    count,
    word,
    fc.constant([]),
    fc.constant({}),
    fc.array(fc.oneof(count, badNumber), { maxLength: 4 }),
    fc.record({ id: fc.oneof(word, count), name: fc.oneof(word, count), arguments: fc.oneof(word, fc.constant(undefined)) }, { requiredKeys: [] }),
  );
  const fieldValue = (key: string): fc.Arbitrary<unknown> => {
    const good: Record<string, fc.Arbitrary<unknown>> = {
      at: fc.oneof(validIso, badIso),
      turn: count,
      id: count,
      queuedId: count,
      inputTokens: count,
      outputTokens: count,
      ids: fc.array(count, { maxLength: 4 }),
      atNextStep: fc.boolean(),
      isError: fc.boolean(),
      call: fc.record({ id: fc.string({ maxLength: 6 }), name: fc.string({ maxLength: 6 }), arguments: fc.string({ maxLength: 6 }) }),
    };
    return fc.oneof({ weight: 4, arbitrary: good[key] ?? word }, { weight: 1, arbitrary: anyJunk });
  };
  const KEYS = ['at', 'text', 'from', 'queuedId', 'id', 'atNextStep', 'ids', 'call', 'toolCallId', 'name', 'content', 'isError', 'turn', 'reason', 'cause', 'message', 'authority', 'by', 'action', 'detail', 'decision', 'rule', 'ruleScope', 'inputTokens', 'outputTokens', 'questions', 'answers', 'extra'];
  const eventLike = fc
    .record({
      type: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...TYPES) }, { weight: 1, arbitrary: fc.oneof(fc.constantFrom('question', 'answer', 'header', 'nope'), anyJunk) }),
      fields: fc.uniqueArray(fc.constantFrom(...KEYS), { maxLength: 9 }).chain((keys) => fc.tuple(...keys.map((k) => fieldValue(k).map((v) => [k, v] as const)))),
      shape: fc.constantFrom('plain', 'plain', 'plain', 'plain', 'null-proto', 'class'),
    })
    .map(({ type, fields, shape }) => {
      const base: Record<string, unknown> = shape === 'null-proto' ? (Object.create(null) as Record<string, unknown>) : shape === 'class' ? new (class Event {})() as Record<string, unknown> : {};
      base.type = type;
      for (const [k, v] of fields) base[k] = v;
      return base;
    });

  /** A valid event of each common type, with optional keys present, absent or undefined. */
  const optional = <T>(value: fc.Arbitrary<T>): fc.Arbitrary<T | undefined | typeof ABSENT> => fc.oneof(value, fc.constant(undefined), fc.constant(ABSENT));
  const ABSENT = Symbol('absent');
  const clean = (o: Record<string, unknown>): Record<string, unknown> => {
    for (const k of Object.keys(o)) if (o[k] === ABSENT) delete o[k];
    return o;
  };
  const from = fc.constantFrom('user', 'parent', 'child', 'system');
  const validEvent = fc
    .oneof(
      fc.record({ type: fc.constant('user_message'), at: validIso, text: fc.string(), from, queuedId: optional(count) }),
      fc.record({ type: fc.constant('queued'), at: validIso, id: count, text: fc.string(), from, atNextStep: optional(fc.boolean()) }),
      fc.record({ type: fc.constant('queue_dropped'), at: validIso, ids: fc.array(count) }),
      fc.record({ type: fc.constant('assistant_text'), at: validIso, text: fc.string() }),
      fc.record({ type: fc.constant('tool_call'), at: validIso, call: fc.record({ id: fc.string(), name: fc.string(), arguments: fc.string() }) }),
      fc.record({ type: fc.constant('tool_result'), at: validIso, toolCallId: fc.string(), name: fc.string(), content: fc.string(), isError: optional(fc.boolean()) }),
      fc.record({ type: fc.constant('turn_start'), at: validIso, turn: count }),
      fc.record({
        type: fc.constant('turn_end'),
        at: validIso,
        turn: count,
        reason: fc.constantFrom('completed', 'aborted', 'blocked', 'error', 'budget', 'paused', 'interrupted'),
        cause: optional(fc.constantFrom('user', 'parent', 'disposed', 'budget')),
        message: optional(fc.string()),
      }),
      fc.record({ type: fc.constant('interrupt'), at: validIso, authority: fc.constantFrom('user', 'ancestor'), by: optional(fc.string()) }),
      fc.record({
        type: fc.constant('approval'),
        at: validIso,
        action: fc.string(),
        detail: optional(fc.string()),
        decision: fc.constantFrom('allow-once', 'allow-session', 'allow-workspace', 'allow-always', 'allow-rule', 'deny'),
        reason: fc.string(),
        rule: optional(fc.string()),
        ruleScope: optional(fc.constantFrom('workspace', 'user', 'setting')),
      }),
      fc.record({ type: fc.constant('usage'), at: validIso, inputTokens: count, outputTokens: count }),
    )
    .map((o) => clean(o as Record<string, unknown>));

  /** A valid event with a few keys broken, removed or added, sometimes in another kind of object. */
  const nearlyValid = fc
    .record({
      event: validEvent,
      changes: fc.array(fc.tuple(fc.integer({ min: 1, max: 20 }), fc.oneof(anyJunk, badIso, badNumber, fc.constant(ABSENT))), { minLength: 1, maxLength: 2 }),
      added: fc.option(fc.tuple(fc.constantFrom(...KEYS), anyJunk), { freq: 4 }),
      shape: fc.constantFrom('plain', 'plain', 'plain', 'null-proto', 'class'),
    })
    .map(({ event: generated, changes, added, shape }) => {
      const event = { ...generated };
      const keys = Object.keys(event);
      for (const [i, value] of changes) event[keys[i % keys.length]] = value;
      if (added) event[added[0]] = added[1];
      clean(event);
      if (shape === 'plain') return event;
      const base: Record<string, unknown> = shape === 'null-proto' ? (Object.create(null) as Record<string, unknown>) : (new (class Event {})() as Record<string, unknown>);
      return Object.assign(base, event);
    });

  const agrees = (event: unknown): void => {
    const fast = fastCheckedEvent(event);
    if (fast === undefined) return;
    const parsed = sessionEventSchema().safeParse(event);
    assert.ok(parsed.success, `the quick check accepted what the schema rejects: ${String(parsed.error)}`);
    assert.deepStrictEqual(fast, parsed.data);
    assert.deepStrictEqual(Object.keys(fast), Object.keys(parsed.data));
    assert.equal(JSON.stringify(fast), JSON.stringify(parsed.data));
    assert.notEqual(fast, event, 'the quick check returns a copy, as the schema does');
  };

  it('never accepts an event the schema rejects, random valid and invalid events alike', () => {
    fc.assert(fc.property(fc.oneof(eventLike, nearlyValid), agrees), { numRuns: 6000 });
  });

  it('agrees on every edge value in every field of a valid event', () => {
    const edges: unknown[] = [-1, 1.5, NaN, Infinity, 2 ** 53, 1e300, '3', null, undefined, {}, [], [1.5], [-1], true, '', 'x', '2026-02-30T00:00:00.000Z', '2026-11-30T14:00:00'];
    fc.assert(
      fc.property(validEvent, (event) => {
        for (const key of Object.keys(event)) {
          for (const edge of edges) agrees({ ...event, [key]: edge });
          const without: Record<string, unknown> = { ...event };
          delete without[key];
          agrees(without);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('accepts every valid common event, with the copy the schema makes', () => {
    fc.assert(
      fc.property(validEvent, (event) => {
        assert.ok(fastCheckedEvent(event) !== undefined, `not taken by the quick check: ${JSON.stringify(event)}`);
        agrees(event);
      }),
      { numRuns: 1500 },
    );
  });

  it('leaves unknown keys, rarer types and class instances to the schema', () => {
    const at = new Date().toISOString();
    assert.equal(fastCheckedEvent({ type: 'assistant_text', at, text: 'hi', extra: 1 }), undefined);
    assert.equal(fastCheckedEvent({ type: 'question', at, questions: [] }), undefined);
    assert.equal(fastCheckedEvent(new (class {
      type = 'assistant_text';
      at = at;
      text = 'hi';
    })()), undefined);
    assert.equal(fastCheckedEvent({ type: 'usage', at, inputTokens: -1, outputTokens: 0 }), undefined);
    assert.equal(fastCheckedEvent({ type: 'tool_call', at, call: { id: 7, name: 'n', arguments: '{}' } }), undefined);
  });
  describe('the quick header check', () => {
    const nonEmpty = fc.string({ minLength: 1, maxLength: 12 });
    const validHeader = fc
      .record({
        type: fc.constant('header'),
        version: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constant(Number.MAX_SAFE_INTEGER)),
        id: nonEmpty,
        createdAt: validIso,
        parentSession: optional(nonEmpty),
        delegationDepth: count,
        kind: fc.constantFrom('root', 'one-shot', 'continuable'),
        label: fc.string({ maxLength: 12 }),
        workspace: optional(fc.string({ maxLength: 12 })),
        interactionMode: fc.constantFrom('interactive', 'scheduled', 'webhook', 'autonomous'),
        resumedFrom: optional(nonEmpty),
        external: optional(nonEmpty),
      })
      .map((o) => clean(o as Record<string, unknown>));
    const HEADER_KEYS = ['type', 'version', 'id', 'createdAt', 'parentSession', 'delegationDepth', 'kind', 'label', 'workspace', 'interactionMode', 'resumedFrom', 'external', 'extra'];
    const edges: unknown[] = [-1, 0, -0, 1.5, NaN, Infinity, 2 ** 53, '3', null, undefined, {}, [], true, '', 'x', 'header', 'root', 'interactive', '2026-02-30T00:00:00.000Z', '2026-11-30T14:00:00'];

    const agreesOnHeader = (header: unknown): void => {
      if (!isValidHeaderAtAGlance(header)) return;
      const parsed = sessionHeaderSchema().safeParse(header);
      assert.ok(parsed.success, `the quick check accepted a header the schema rejects: ${String(parsed.error)}`);
    };

    it('accepts every valid header a plain object holds, so creating a session skips the schema', () => {
      fc.assert(fc.property(validHeader, (header) => assert.equal(isValidHeaderAtAGlance(header), true)), { numRuns: 500 });
    });

    it('never accepts a header the schema rejects, whatever key is broken, removed or added', () => {
      fc.assert(
        fc.property(validHeader, fc.constantFrom('plain', 'null-proto', 'class'), (header, shape) => {
          for (const key of HEADER_KEYS) {
            for (const edge of edges) agreesOnHeader({ ...header, [key]: edge });
            const without: Record<string, unknown> = { ...header };
            delete without[key];
            agreesOnHeader(without);
          }
          const base: Record<string, unknown> = shape === 'null-proto' ? (Object.create(null) as Record<string, unknown>) : shape === 'class' ? (new (class Header {})() as Record<string, unknown>) : {};
          const other = Object.assign(base, header);
          if (shape === 'class') assert.equal(isValidHeaderAtAGlance(other), false, 'a class instance goes to the schema');
          else agreesOnHeader(other);
        }),
        { numRuns: 200 },
      );
    });
  });
});
