/**
 * Event timestamps. Formatting an ISO string for every session event showed up in profiles of
 * large fan-outs; events within the same millisecond share one string.
 */
let lastMs = -1;
let lastIso = '';

/** The current time as an ISO 8601 string (millisecond precision, UTC). */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
