import type { ScanState } from './sessionScan';
import type { SessionEvent, SessionHeader } from './types';

/**
 * How a session log is read (sessionScan.ts applies these rules). A line counts only once its
 * newline is on disk: whatever follows the last newline is a write the process did not finish
 * (a crash, a full disk) and is ignored, never fatal. A damaged line after the header (not JSON,
 * not a valid event, or a checksum that does not match) ends what is loaded, like a database
 * recovering up to its first bad page: every event before it loads, the damage and what it cost
 * are reported, and nothing after it is used, because skipping history in the middle would
 * change what the agent remembers. Only a damaged header makes the file unloadable.
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

/** The loader's view of a scan: events, where the complete lines end, and the damage. */
export function parsedFrom(header: SessionHeader, state: ScanState, events: SessionEvent[], tornTailBytes: number): ParsedSessionFile {
  const file: ParsedSessionFile = { header, events, completeBytes: state.bytes, tornTailBytes };
  if (state.damage) file.damage = damageOf(state)!;
  return file;
}

export function damageOf(state: ScanState): SessionDamage | undefined {
  const d = state.damage;
  return d && { line: d.line, reason: d.reason, droppedLines: state.lines - d.line + 1, droppedBytes: state.bytes - d.offset };
}

/** What a damage report says to a user: which line, why, and what was left out. */
export function describeDamage(damage: SessionDamage): string {
  const dropped = damage.droppedLines === 1 ? 'that line' : `that line and the ${damage.droppedLines - 1} after it`;
  return `Line ${damage.line} is damaged (${damage.reason}); the session is shown up to the line before, and ${dropped} (${damage.droppedBytes} bytes) are left out.`;
}

/** What every view of a salvaged session tells the user: what was dropped, and what Resume does. */
export function salvagedSessionWarning(damage: SessionDamage): string {
  return `${describeDamage(damage)} Resume continues from the undamaged part and keeps a copy of the damaged file.`;
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
