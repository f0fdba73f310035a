import { checkLine } from './lineChecksum';
import { headerVersionSchema, sessionEventSchema, sessionHeaderSchema } from './schema';
import { SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader } from './types';

/**
 * Reads the bytes of a session log. A line counts only once its newline is on disk: whatever
 * follows the last newline is a write the process did not finish (a crash, a full disk) and is
 * ignored, never fatal. A damaged line after the header (not JSON, not a valid event, or a
 * checksum that does not match) ends what is loaded, like a database recovering up to its
 * first bad page: every event before it loads, the damage and what it cost are reported, and
 * nothing after it is used, because skipping history in the middle would change what the
 * agent remembers. Only a damaged header makes the file unloadable.
 */

export interface ParsedSessionFile {
  header: SessionHeader;
  /** The events exactly as on disk, without repairs. */
  events: SessionEvent[];
  /** Bytes up to and including the last newline: everything that was written completely. */
  completeBytes: number;
  /** Bytes after the last newline, ignored. */
  tornTailBytes: number;
  /** The first damaged line, when the events stop before the end of the file. */
  damage?: SessionDamage;
}

/** Where a session file is damaged and what loading it left out. */
export interface SessionDamage {
  /** 1-based line of the first damage. */
  line: number;
  /** What is wrong with that line. */
  reason: string;
  /** Complete lines left out, the damaged one included. */
  droppedLines: number;
  /** Bytes left out, from the start of the damaged line to the last newline. */
  droppedBytes: number;
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

  const headerLine = checkLine(lines[0]);
  if (!headerLine.ok) return corrupt(`The header (line 1) is damaged: ${headerLine.reason}.`, 1);
  const headerJson = parseJson(headerLine.json);
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
  let offset = Buffer.byteLength(lines[0], 'utf8') + 1;
  for (let i = 1; i < lines.length; i++) {
    const text = lines[i];
    const reason = text.trim() === '' ? undefined : eventOrProblem(text, events);
    if (reason !== undefined) {
      const damage: SessionDamage = { line: i + 1, reason, droppedLines: lines.length - i, droppedBytes: completeBytes - offset };
      return { ok: true, file: { header: header.data, events, completeBytes, tornTailBytes, damage } };
    }
    offset += Buffer.byteLength(text, 'utf8') + 1;
  }
  return { ok: true, file: { header: header.data, events, completeBytes, tornTailBytes } };
}

/** Adds the event of one line to `events`, or says why the line is damaged. */
function eventOrProblem(text: string, events: SessionEvent[]): string | undefined {
  const line = checkLine(text);
  if (!line.ok) return line.reason;
  const json = parseJson(line.json);
  if (!json.ok) return 'it is not JSON';
  const event = sessionEventSchema.safeParse(json.value);
  if (!event.success) {
    const issue = event.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    return `it is not a valid session event${where}: ${issue?.message ?? 'unknown problem'}`;
  }
  events.push(event.data);
  return undefined;
}

/** What a damage report says to a user: which line, why, and what was left out. */
export function describeDamage(damage: SessionDamage): string {
  const dropped = damage.droppedLines === 1 ? 'that line' : `that line and the ${damage.droppedLines - 1} after it`;
  return `Line ${damage.line} is damaged (${damage.reason}); the session is shown up to the line before, and ${dropped} (${damage.droppedBytes} bytes) are left out.`;
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
