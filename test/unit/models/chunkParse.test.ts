import * as assert from 'node:assert/strict';
import { isArborError } from '../../../src/core/errors';
import { modelChunkSchema, parseModelChunk } from '../../../src/core/models/modelChunk';

/** Values a provider might stream: chunks that fit the schema and every near miss of one. */
function candidates(): unknown[] {
  const inherited = Object.create({ type: 'text', text: 'from the prototype' }) as object;
  const call = { id: 'c1', name: 'read_file', arguments: '{"path":"a"}' };
  const values: unknown[] = [
    { type: 'text', text: 'hello' },
    { type: 'text', text: '' },
    { type: 'text', text: 'x', extra: 1 },
    { text: 'x', type: 'text' },
    { type: 'text' },
    { type: 'text', text: 5 },
    { type: 'text', text: null },
    inherited,
    Object.assign([], { type: 'text', text: 'an array' }),
    { type: 'tool_call', call },
    { type: 'tool_call', call: { arguments: '{}', name: 'n', id: 'i', more: true }, extra: 'x' },
    { type: 'tool_call', call: { ...call, id: '' } },
    { type: 'tool_call', call: { ...call, name: '' } },
    { type: 'tool_call', call: { ...call, arguments: {} } },
    { type: 'tool_call', call: { ...call, id: 7 } },
    { type: 'tool_call', call: Object.assign([], call) },
    { type: 'tool_call', call: null },
    { type: 'tool_call' },
    { type: 'usage', inputTokens: 0, outputTokens: 0 },
    { type: 'usage', inputTokens: 12, outputTokens: 3, cached: 4 },
    { type: 'usage', inputTokens: -0, outputTokens: 1 },
    { type: 'usage', inputTokens: -1, outputTokens: 1 },
    { type: 'usage', inputTokens: 1.5, outputTokens: 1 },
    { type: 'usage', inputTokens: 2 ** 53, outputTokens: 1 },
    { type: 'usage', inputTokens: Number.MAX_SAFE_INTEGER, outputTokens: 1 },
    { type: 'usage', inputTokens: Number.NaN, outputTokens: 1 },
    { type: 'usage', inputTokens: Number.POSITIVE_INFINITY, outputTokens: 1 },
    { type: 'usage', inputTokens: '12', outputTokens: 1 },
    { type: 'usage', inputTokens: 1 },
    { type: 'usage', inputTokens: 1, outputTokens: 2n },
    { type: 'other', text: 'x' },
    { type: 5 },
    { type: ['text'], text: 'x' },
    {},
    [],
    null,
    undefined,
    'text',
    42,
  ];
  return values;
}

describe('a model chunk is parsed as its schema says', () => {
  it('every chunk gets the schema\'s output when the schema accepts it, and MODEL_BAD_OUTPUT when it refuses it', () => {
    for (const value of candidates()) {
      const expected = modelChunkSchema().safeParse(value);
      let got: unknown;
      let failure: unknown;
      try {
        got = parseModelChunk(value, 'test model');
      } catch (err) {
        failure = err;
      }
      const shown = `${String(value)} ${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`;
      if (expected.success) {
        assert.equal(failure, undefined, `accepted by the schema: ${shown}`);
        assert.deepStrictEqual(got, expected.data, shown);
        assert.equal(JSON.stringify(got), JSON.stringify(expected.data), `the same fields in the same order: ${shown}`);
      } else {
        assert.ok(isArborError(failure, 'MODEL_BAD_OUTPUT'), `refused by the schema: ${shown}`);
      }
    }
  });

  it('what it returns is a copy: the provider\'s object is not kept', () => {
    const sent = { type: 'tool_call', call: { id: 'c1', name: 'n', arguments: '{}' } };
    const got = parseModelChunk(sent, 'test model');
    assert.notEqual(got, sent);
    assert.ok(got.type === 'tool_call' && got.call !== sent.call);
  });
});
