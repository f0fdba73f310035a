/**
 * Event timestamps. Formatting an ISO string for every session event showed up in profiles of
 * large fan-outs; events within the same millisecond share one string. A module that is given a
 * clock (the runtime's `now`, or a clock parameter) reads the time from it; Date.now otherwise.
 */
let lastMs = -1;
let lastIso = '';

/** The current time on `now` as an ISO 8601 string (millisecond precision, UTC). */
export function isoNow(now: () => number = Date.now): string {
  const ms = now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
