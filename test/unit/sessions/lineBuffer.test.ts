import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import * as zlib from 'node:zlib';
import { checkLine, checksummedLines, crc32Bytes, crc32BytesFallback, crc32Range, LineBuffer, withChecksum } from '../../../src/core/sessions/lineChecksum';

/* The writer's lines, built in a buffer, are byte for byte the checksummed lines the loader reads. */
describe('durable sessions: lines written into a buffer', () => {
  const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
  const text = fc.oneof(
    fc.string({ unit: anyCodeUnit, maxLength: 60 }),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.integer({ min: 2100, max: 5000 }).map((n) => '🌳é'.repeat(n)),
  );
  const objectJson = fc.record({ type: fc.string({ minLength: 1, maxLength: 12 }), text, n: fc.integer() }).map((o) => JSON.stringify(o));

  it('holds exactly the bytes of withChecksum(json) and a newline, line after line', () => {
    fc.assert(
      fc.property(fc.array(objectJson, { minLength: 1, maxLength: 30 }), (jsons) => {
        const buffer = new LineBuffer();
        for (const json of jsons) buffer.appendJson(json);
        const expected = Buffer.from(jsons.map((j) => withChecksum(j) + '\n').join(''), 'utf8');
        assert.equal(buffer.length, expected.length);
        const taken = buffer.take();
        assert.ok(taken.equals(expected));
        assert.equal(buffer.length, 0);
        for (const line of taken.toString('utf8').split('\n').slice(0, -1)) assert.equal(checkLine(line).ok, true);
      }),
      { numRuns: 60 },
    );
  });

  it("a batch's lines at once are the same bytes, ASCII or not, short or past the native checksum's threshold", () => {
    const ascii = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 400 });
    const asciiJson = fc.record({ type: fc.string({ minLength: 1, maxLength: 12 }), text: ascii, n: fc.integer() }).map((o) => JSON.stringify(o));
    fc.assert(
      fc.property(fc.array(fc.oneof(asciiJson, asciiJson, asciiJson, objectJson), { maxLength: 30 }), fc.nat({ max: 4096 }), (jsons, hint) => {
        const expected = Buffer.from(jsons.map((j) => withChecksum(j) + '\n').join(''), 'utf8');
        assert.ok(checksummedLines(jsons, hint).equals(expected));
      }),
      { numRuns: 150 },
    );
  });

  it('puts a failed write back in front of what was appended since', () => {
    const buffer = new LineBuffer();
    buffer.appendJson('{"a":1}');
    const first = buffer.take();
    buffer.appendJson('{"b":2}');
    buffer.unshift(first);
    assert.equal(buffer.take().toString('utf8'), `${withChecksum('{"a":1}')}\n${withChecksum('{"b":2}')}\n`);
  });
});

/* The session index proves a file only grew by the CRC-32 of what it scanned, continued chunk by chunk. */
describe('durable sessions: the checksum of a prefix', () => {
  it('continued over pieces equals the checksum of the whole, natively and without zlib.crc32', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 300 }), (bytes, cut) => {
        const at = Math.min(cut, bytes.length);
        const whole = zlib.crc32(bytes);
        for (const crc of [crc32Bytes, crc32BytesFallback]) {
          assert.equal(crc(bytes), whole);
          assert.equal(crc(bytes.subarray(at), crc(bytes.subarray(0, at))), whole);
        }
      }),
      { numRuns: 100 },
    );
  });
});

/* A batch's lines are checksummed over their bytes where the buffer holds them, eight bytes a step. */
describe('durable sessions: the checksum of a range of a buffer', () => {
  it("equals zlib's CRC-32 of that range, for every start, end and length around the 8-byte steps", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const start = bytes.length === 0 ? 0 : a % (bytes.length + 1);
        const end = start + (b % (bytes.length - start + 1));
        assert.equal(crc32Range(bytes, start, end), zlib.crc32(bytes.subarray(start, end)));
      }),
      { numRuns: 300 },
    );
  });
});
