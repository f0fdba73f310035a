import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { linesBytes } from '../../../src/core/sessions/eventLines';
import { fastCheckedEvent } from '../../../src/core/sessions/eventFastCheck';
import * as zlib from 'node:zlib';
import { checkLine } from '../../../src/core/sessions/lineChecksum';
import { LogLines, sessionFileBytes } from '../../../src/core/sessions/logLines';
import { sessionEventSchema } from '../../../src/core/sessions/schema';
import type { SessionEvent, SessionHeader } from '../../../src/core/sessions/types';
import { forged } from '../../support/forged';

/*
 * A session file's lines are written straight into bytes, the common event types key by key:
 * each line must be exactly the checksummed line of the string JSON.stringify makes of the
 * checked copy, for any text (quotes, backslashes, control characters, lone and paired
 * surrogates, non-ASCII, short or long), any count and every optional key present, absent or
 * undefined.
 */
describe('durable sessions: the line of a checked event is the checksummed JSON.stringify of it', () => {
  const lineOf = (event: SessionEvent): string => linesBytes((lines) => lines.eventLine(event)).toString('utf8');
  /** The line the format defines for a JSON object: `{"crc":"<CRC-32 of the JSON, 8 hex>",` and the JSON after its `{`. */
  const expectedLine = (value: unknown): string => {
    const json = JSON.stringify(value);
    return `{"crc":"${zlib.crc32(json).toString(16).padStart(8, '0')}",${json.slice(1)}\n`;
  };
  const ABSENT = Symbol('absent');
  const optional = <T>(value: fc.Arbitrary<T>): fc.Arbitrary<T | undefined | typeof ABSENT> => fc.oneof(value, fc.constant(undefined), fc.constant(ABSENT));
  const clean = (o: Record<string, unknown>): Record<string, unknown> => {
    for (const k of Object.keys(o)) if (o[k] === ABSENT) delete o[k];
    return o;
  };
  const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
  const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
  /**
   * Any UTF-16 code unit, lone surrogates and control characters included, the usual edge
   * strings, and long ones (written natively past 64 characters): printable ASCII, with one
   * character JSON escapes or that is not ASCII somewhere in it.
   */
  const text = fc.oneof(
    fc.string({ unit: anyUnit, maxLength: 12 }),
    fc.string({ maxLength: 12 }),
    fc.string({ unit: printable, minLength: 60, maxLength: 300 }),
    fc.tuple(fc.string({ unit: printable, minLength: 60, maxLength: 200 }), fc.constantFrom('"', '\\', '\n', '\u007f', 'é', '\ud800', '🌳'), fc.nat()).map(([t, odd, at]) => {
      const i = at % (t.length + 1);
      return t.slice(0, i) + odd + t.slice(i);
    }),
    fc.constantFrom('', '"', '\\', '\n', '\r\t', '\u0000', '\u001f', '\u007f', '\u2028\u2029', '\ud800', '\udfff', '\ud83d\ude00', 'é', 'call_1', '{"a":1}', '</script>'),
  );
  const iso = fc.oneof(
    fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom('2026-11-30T14:00:00Z', '2026-11-30T14:00:00+02:00', '2026-11-30T14:00:00.123456-05:30'),
  );
  const count = fc.oneof(fc.nat(), fc.nat({ max: 99 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(0, -0, 1, 9, 10, 99, 100, Number.MAX_SAFE_INTEGER));
  const from = fc.constantFrom('user', 'parent', 'child', 'system');
  const event = fc
    .oneof(
      fc.record({ type: fc.constant('user_message'), at: iso, text, from, queuedId: optional(count) }),
      fc.record({ type: fc.constant('queued'), at: iso, id: count, text, from, atNextStep: optional(fc.boolean()) }),
      fc.record({ type: fc.constant('queue_dropped'), at: iso, ids: fc.array(count, { maxLength: 4 }) }),
      fc.record({ type: fc.constant('assistant_text'), at: iso, text }),
      fc.record({ type: fc.constant('tool_call'), at: iso, call: fc.record({ id: text, name: text, arguments: text }) }),
      fc.record({ type: fc.constant('tool_result'), at: iso, toolCallId: text, name: text, content: text, isError: optional(fc.boolean()) }),
      fc.record({ type: fc.constant('turn_start'), at: iso, turn: count }),
      fc.record({
        type: fc.constant('turn_end'),
        at: iso,
        turn: count,
        reason: fc.constantFrom('completed', 'aborted', 'blocked', 'error', 'budget', 'paused', 'interrupted'),
        cause: optional(fc.constantFrom('user', 'parent', 'disposed', 'budget')),
        message: optional(text),
      }),
      fc.record({ type: fc.constant('interrupt'), at: iso, authority: fc.constantFrom('user', 'ancestor'), by: optional(text) }),
      fc.record({ type: fc.constant('usage'), at: iso, inputTokens: count, outputTokens: count }),
      fc.record({ type: fc.constant('plan'), at: iso, items: fc.array(fc.record({ step: text, status: fc.constantFrom('pending', 'in_progress', 'done') }), { maxLength: 3 }) }),
      fc.record({ type: fc.constant('answer'), at: iso, answers: optional(fc.array(fc.record({ id: text, selected: fc.array(text, { maxLength: 2 }) }), { maxLength: 2 })), error: optional(text) }),
    )
    .map((o) => clean(o as Record<string, unknown>));

  it('for every event the schema accepts, as the schema copies it and as the quick check does', () => {
    fc.assert(
      fc.property(event, (raw) => {
        const parsed: SessionEvent = sessionEventSchema().parse(raw);
        const line = lineOf(parsed);
        assert.equal(line, expectedLine(parsed));
        assert.deepEqual(checkLine(line.slice(0, -1)), { ok: true, json: JSON.stringify(parsed), checked: true });
        const quick = fastCheckedEvent(raw);
        if (quick) assert.equal(lineOf(quick), expectedLine(quick));
      }),
      { numRuns: 4000 },
    );
  });

  it("makes a batch's lines and a whole file the same bytes as checksummed JSON.stringify lines, ASCII or not", () => {
    const header: SessionHeader = { type: 'header', version: 1, id: 's-1', createdAt: '2026-12-01T10:00:00.000Z', delegationDepth: 0, kind: 'root', label: 'root', interactionMode: 'interactive' };
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 8 }), fc.nat({ max: 7 }), (raws, cut) => {
        const events: SessionEvent[] = raws.map((raw) => sessionEventSchema().parse(raw));
        const expected = [header, ...events].map(expectedLine);
        const lines = new LogLines(header, events, true);
        const from = Math.min(cut, events.length);
        assert.equal(lines.bytes(from, events.length + 1).toString('utf8'), expected.slice(from).join(''));
        assert.equal(sessionFileBytes(header, events).toString('utf8'), expected.join(''));
      }),
      { numRuns: 600 },
    );
  });

  it('leaves out a key whose value is undefined, as JSON.stringify does', () => {
    const at = '2026-12-01T10:00:00.000Z';
    const events: SessionEvent[] = [
      { type: 'tool_result', at, toolCallId: 'c', name: 'n', content: 'ok', isError: undefined },
      { type: 'user_message', at, text: 't', from: 'user', queuedId: undefined },
      { type: 'queued', at, id: 1, text: 't', from: 'user', atNextStep: undefined },
      { type: 'turn_end', at, turn: 1, reason: 'completed', cause: undefined, message: undefined },
    ];
    for (const e of events) assert.equal(lineOf(e), expectedLine(e));
    assert.equal(lineOf(events[0]), expectedLine({ type: 'tool_result', at, toolCallId: 'c', name: 'n', content: 'ok' }));
  });

  it('writes a batch larger than the shared buffer keeps, and the batches after it, whole', () => {
    const at = '2026-12-01T10:00:00.000Z';
    const big: SessionEvent = { type: 'tool_result', at, toolCallId: 'c', name: 'n', content: 'x'.repeat(3_000_000) };
    const small: SessionEvent = { type: 'assistant_text', at, text: 'after' };
    assert.equal(linesBytes((lines) => lines.eventLine(big)).toString('utf8'), expectedLine(big));
    assert.equal(lineOf(small), expectedLine(small));
    assert.equal(linesBytes((lines) => [small, big, small].forEach((e) => lines.eventLine(e))).toString('utf8'), [small, big, small].map(expectedLine).join(''));
  });

  it('writes a batch begun while another is being written without mixing their lines', () => {
    const at = '2026-12-01T10:00:00.000Z';
    const inner: SessionEvent = { type: 'assistant_text', at, text: 'inner' };
    let innerBytes = '';
    const outer = { type: 'turn_start', at, turn: 1 } as SessionEvent & { turn: number };
    // A getter that writes a batch of its own while the outer batch is being written.
    Object.defineProperty(outer, 'turn', {
      get: () => {
        innerBytes = lineOf(inner);
        return 1;
      },
      enumerable: true,
    });
    const first: SessionEvent = { type: 'assistant_text', at, text: 'first' };
    const outerBytes = linesBytes((lines) => [first, outer].forEach((e) => lines.eventLine(e))).toString('utf8');
    assert.equal(innerBytes, expectedLine(inner));
    assert.equal(outerBytes, expectedLine(first) + expectedLine({ type: 'turn_start', at, turn: 1 }));
  });

  it('a batch whose writing throws leaves the next batch whole', () => {
    const at = '2026-12-01T10:00:00.000Z';
    const bad = { type: 'assistant_text', at } as SessionEvent;
    Object.defineProperty(bad, 'text', {
      get: () => {
        throw new Error('unreadable');
      },
    });
    assert.throws(() => linesBytes((lines) => lines.eventLine(bad)), /unreadable/);
    const after: SessionEvent = { type: 'assistant_text', at, text: 'after' };
    assert.equal(lineOf(after), expectedLine(after));
  });

  describe("a new log's header line", () => {
    const base = { type: 'header', version: 1, id: 's-1', createdAt: '2026-12-01T10:00:00.000Z', delegationDepth: 1, kind: 'one-shot', label: 'worker', interactionMode: 'interactive' };
    const headerOf = (extra: Record<string, unknown>): SessionHeader => forged<SessionHeader>({ ...base, ...extra });
    const headerLine = (lines: LogLines): string => lines.bytes(0, 1).toString('utf8');
    const key = fc.oneof(fc.constantFrom('parentSession', 'workspace', 'resumedFrom', 'external', 'label', 'type'), text);
    const value = fc.oneof(text, count, fc.double(), fc.integer({ min: -1000, max: 1000 }), fc.boolean(), fc.constant(undefined));

    it('is the checksummed JSON.stringify of the header as it was made, for any flat header, in its own key order', () => {
      fc.assert(
        fc.property(fc.dictionary(key, value, { maxKeys: 6 }), fc.boolean(), (extra, first) => {
          const raw: Record<string, unknown> = first ? { ...extra, ...base } : { ...base, ...extra };
          const expected = expectedLine(raw);
          const lines = new LogLines(forged<SessionHeader>(raw), [], true);
          // Changed afterwards, the header does not change the line.
          raw.label = 'changed afterwards';
          raw.extra = 'added afterwards';
          assert.equal(headerLine(lines), expected);
          assert.equal(lines.whole(1).toString('utf8'), expected);
        }),
        { numRuns: 1500 },
      );
    });

    it('copies a flat header when the log is made and serializes it only when its batch is written', () => {
      const stringify = JSON.stringify;
      let calls = 0;
      JSON.stringify = ((...args: Parameters<typeof stringify>) => {
        calls++;
        return stringify(...args);
      }) as typeof stringify;
      let lines: LogLines;
      try {
        lines = new LogLines(headerOf({ parentSession: 'root-1' }), [], true);
        lines.size(0);
      } finally {
        JSON.stringify = stringify;
      }
      assert.equal(calls, 0);
      assert.equal(headerLine(lines), expectedLine(headerOf({ parentSession: 'root-1' })));
    });

    it('takes the JSON of a header that is not flat (a definition, a toJSON of its own) when the log is made', () => {
      const definition = { name: 'reviewer', file: '.arbor/agents/reviewer.md' };
      const nested = headerOf({ definition });
      const expectedNested = expectedLine(nested);
      const withToJson = headerOf({ toJSON: () => ({ type: 'header', label: 'from toJSON' }) });
      const expectedToJson = expectedLine(withToJson);
      const nestedLines = new LogLines(nested, [], true);
      const toJsonLines = new LogLines(withToJson, [], true);
      definition.name = 'changed afterwards';
      assert.equal(headerLine(nestedLines), expectedNested);
      assert.equal(headerLine(toJsonLines), expectedToJson);
      assert.ok(expectedToJson.includes('from toJSON'));
    });

    it("an existing log's header line is the header's JSON when written", () => {
      const header = headerOf({});
      const lines = new LogLines(header, [], false);
      header.label = 'renamed';
      assert.equal(headerLine(lines), expectedLine(header));
    });
  });
});
