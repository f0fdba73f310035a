import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import * as zlib from 'node:zlib';
import { crc32Bytes, crc32BytesFallback, crc32Range, crcOfRange } from '../../../src/core/sessions/lineChecksum';

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

  it('is the same whichever of the table and zlib computes it, below, at and past the native threshold', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 200, maxLength: 700 }), fc.nat({ max: 100 }), (bytes, start) => {
        assert.equal(crcOfRange(Buffer.from(bytes), start, bytes.length), zlib.crc32(bytes.subarray(start)));
      }),
      { numRuns: 100 },
    );
  });
});
