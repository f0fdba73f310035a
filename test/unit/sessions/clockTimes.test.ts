import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { isLatestIsoNow, isoNow } from '../../../src/core/clock';
import { isoTimestamp } from '../../../src/core/sessions/schema';
import { fastCheckedEvent } from '../../../src/core/sessions/eventFastCheck';

// The session log's quick event check takes the clock's latest string without the schema: it
// must be one the schema accepts, and nothing else may pass that way.
describe("session event times: the clock's latest string", () => {
  it('is taken without the schema only when the schema would accept it', () => {
    const everyMs = fc.integer({ min: -8.64e15, max: 8.64e15 });
    fc.assert(
      fc.property(everyMs, (ms) => {
        const value = isoNow(() => ms);
        if (isLatestIsoNow(value)) assert.ok(isoTimestamp().safeParse(value).success, value);
        // Years 0-9999 are all of the canonical form.
        const year = new Date(ms).getUTCFullYear();
        assert.equal(isLatestIsoNow(value), year >= 0 && year <= 9999, value);
      }),
      { numRuns: 2000 },
    );
  });

  it('is not a pass for an equal-looking string the clock did not make last, nor for a time outside years 0-9999', () => {
    const made = isoNow(() => Date.UTC(2026, 11, 2, 5, 30, 0, 123));
    assert.equal(isLatestIsoNow(made), true);
    assert.equal(isLatestIsoNow('2026-12-02T05:30:00.124Z'), false, 'another millisecond, not made by the clock');
    const far = isoNow(() => Date.UTC(10000, 0, 1));
    assert.equal(far, '+010000-01-01T00:00:00.000Z');
    assert.equal(isLatestIsoNow(far), false);
    // The event check still refuses a time the schema refuses, whatever the clock made last.
    isoNow(() => Date.UTC(2026, 0, 1));
    assert.equal(fastCheckedEvent({ type: 'turn_start', at: '2026-13-01T00:00:00.000Z', turn: 1 }), undefined);
    assert.equal(fastCheckedEvent({ type: 'turn_start', at: far, turn: 1 }), undefined);
    assert.deepEqual(fastCheckedEvent({ type: 'turn_start', at: isoNow(() => Date.UTC(2026, 0, 1, 0, 0, 1)), turn: 1 }), { type: 'turn_start', at: '2026-01-01T00:00:01.000Z', turn: 1 });
  });
});
