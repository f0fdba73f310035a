import { headerVersionSchema, sessionEventSchema, sessionHeaderSchema } from './schema';
import { SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader } from './types';

/**
 * Reads the bytes of a session log. A line counts only once its newline is on disk: whatever
 * follows the last newline is a write the process did not finish (a crash, a full disk) and is
 * ignored, never fatal. Any other line that is not a valid event makes the whole file corrupt,
 * because silently skipping history in the middle would change what the agent remembers.
 */

export interface ParsedSessionFile {
  header: SessionHeader;
  /** The events exactly as on disk, without repairs. */
  events: SessionEvent[];
  /** Bytes up to and including the last newline: everything that was written completely. */
  completeBytes: number;
  /** Bytes after the last newline, ignored. */
  tornTailBytes: number;
}

export type SessionFileProblem =
  | { code: 'SESSION_CORRUPT'; message: string; line?: number }
  | { code: 'SESSION_VERSION'; message: string; version: number };

export type SessionFileParse = { ok: true; file: ParsedSessionFile } | { ok: false; problem: SessionFileProblem };

const NEWLINE = 0x0a;

function corrupt(message: string, line?: number): SessionFileParse {
  return { ok: false, problem: line === undefined ? { code: 'SESSION_CORRUPT', message } : { code: 'SESSION_CORRUPT', message, line } };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function parseSessionFile(bytes: Uint8Array): SessionFileParse {
  const completeBytes = bytes.lastIndexOf(NEWLINE) + 1;
  const tornTailBytes = bytes.length - completeBytes;
  if (completeBytes === 0) {
    return corrupt(
      bytes.length === 0
        ? 'The session file is empty: it was created but nothing was written to it.'
        : 'The session file has no complete header line: it was cut off while being created.',
    );
  }
  const lines = Buffer.from(bytes.buffer, bytes.byteOffset, completeBytes).toString('utf8').split('\n');
  lines.pop(); // the empty string after the final newline

  const headerJson = parseJson(lines[0]);
  if (!headerJson.ok) return corrupt('The header (line 1) is not JSON.', 1);
  const versioned = headerVersionSchema.safeParse(headerJson.value);
  if (!versioned.success) return corrupt('Line 1 is not a session header.', 1);
  if (versioned.data.version > SESSION_FORMAT_VERSION) {
    return {
      ok: false,
      problem: {
        code: 'SESSION_VERSION',
        message: `The session was written in format version ${versioned.data.version}; this version of Arbor reads up to ${SESSION_FORMAT_VERSION}. Update Arbor to open it.`,
        version: versioned.data.version,
      },
    };
  }
  const header = sessionHeaderSchema.safeParse(headerJson.value);
  if (!header.success) return corrupt(`The header (line 1) is invalid: ${header.error.issues[0]?.message ?? 'unknown problem'}.`, 1);

  const events: SessionEvent[] = [];
  for (let i = 1; i < lines.length; i++) {
    const text = lines[i];
    if (text.trim() === '') continue;
    const json = parseJson(text);
    if (!json.ok) return corrupt(`Line ${i + 1} is not JSON.`, i + 1);
    const event = sessionEventSchema.safeParse(json.value);
    if (!event.success) {
      const issue = event.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      return corrupt(`Line ${i + 1} is not a valid session event${where}: ${issue?.message ?? 'unknown problem'}.`, i + 1);
    }
    events.push(event.data);
  }
  return { ok: true, file: { header: header.data, events, completeBytes, tornTailBytes } };
}

/**
 * The turn that was still running when the log ends (a `turn_start` with no `turn_end` after
 * it), or undefined. Only the last turn can be open: a log is only appended to by one live
 * agent, and a reopened log is repaired before anything new is appended.
 */
export function openTurnOf(events: readonly SessionEvent[]): number | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event.type === 'turn_end') return undefined;
    if (event.type === 'turn_start') return event.turn;
  }
  return undefined;
}

/**
 * The `turn_end` that closes a turn the process did not finish. Its time is the last recorded
 * activity, so repairing the same file twice gives the same events.
 */
export function interruptedTurnEnd(events: readonly SessionEvent[], turn: number): SessionEvent {
  return {
    type: 'turn_end',
    at: events[events.length - 1].at,
    turn,
    reason: 'interrupted',
    message: 'Arbor stopped while this turn was running; the turn did not finish.',
  };
}
