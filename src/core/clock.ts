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

/**
 * Whether `value` is the string isoNow made last and has the canonical form
 * `YYYY-MM-DDTHH:mm:ss.sssZ` (24 characters: toISOString gives 27, with a sign, only outside the
 * years 0-9999). The session log's quick event check accepts it without parsing it again: nearly
 * every event's time is one.
 */
export function isLatestIsoNow(value: string): boolean {
  return value === lastIso && value.length === 24;
}
