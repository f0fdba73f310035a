import { linesBytes, type FlatRecord, type LineWriter } from './eventLines';
import { checksummedLineBytes } from './lineChecksum';
import type { SessionEvent, SessionHeader } from './types';

/**
 * The lines of one session log as its file holds them: line 0 is the header, line i > 0 is
 * event i - 1, each one checksummed JSON object. A line is made from the log's checked copy of
 * its event when its batch is written, never earlier, so an agent's turn does not wait for
 * serialization; the size threshold uses an estimate instead.
 *
 * Invariant: a new log's header line is its JSON as it was when the log was made, whatever the
 * header object became afterwards: a flat header (as the runtime makes them) is copied then and
 * written from the copy; any other is serialized then.
 */
export class LogLines {
  /** A new log's header as it was made: its flat copy, or its JSON. */
  private readonly frozen: FlatRecord | string | undefined;

  constructor(
    private readonly header: SessionHeader,
    private readonly events: readonly SessionEvent[],
    /** A new file: its header line is frozen now. */
    isNew: boolean,
  ) {
    if (isNew) this.frozen = flatCopy(header) ?? JSON.stringify(header);
  }

  /** Lines `from` to `to` (exclusive). */
  bytes(from: number, to: number): Buffer {
    return linesBytes((lines) => {
      for (let line = from; line < to; line++) {
        if (line === 0) this.headerLine(lines);
        else lines.eventLine(this.events[line - 1]);
      }
    });
  }

  /** About how many bytes line `line` takes (exactly, for a header whose JSON was taken). */
  size(line: number): number {
    if (line > 0) return approximateLineBytes(this.events[line - 1]);
    const frozen = this.frozen ?? JSON.stringify(this.header);
    return typeof frozen === 'string' ? checksummedLineBytes(frozen) : approximateLineBytes(frozen);
  }

  /** About how many bytes lines `from` to `to` (exclusive) take. */
  sizeBetween(from: number, to: number): number {
    let bytes = 0;
    for (let line = from; line < to; line++) bytes += this.size(line);
    return bytes;
  }

  /** About how many bytes the line of `event` (just appended) takes. */

  sizeOf(event: SessionEvent): number {
    return approximateLineBytes(event);
  }

  /** The file as it should be with its first `lines` lines: the header and the events before. */
  whole(lines: number): Buffer {
    return this.bytes(0, lines);
  }

  private headerLine(lines: LineWriter): void {
    const frozen = this.frozen;
    if (frozen === undefined) lines.json(JSON.stringify(this.header));
    else if (typeof frozen === 'string') lines.json(frozen);
    else lines.flatLine(frozen);
  }
}

/**
 * A copy of `value` that JSON.stringify writes as it would have written `value` now, when each of
 * its own enumerable values is a string, a number, a boolean or undefined (a header as the
 * runtime makes it); undefined otherwise (a nested object, a function, a toJSON of its own).
 * Copying a header costs a twentieth of its JSON.stringify, which then runs when its batch is written.
 */
export function flatCopy(value: object): FlatRecord | undefined {
  if ('toJSON' in value) return undefined;
  const copy: Record<string, unknown> = { ...value };
  for (const key in copy) {
    const v = copy[key];
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean' && v !== undefined) return undefined;
  }
  return copy as FlatRecord;
}

/** A whole session file: the header and `events`, one checksummed line each, written as a new log writes them. */
export function sessionFileBytes(header: SessionHeader, events: readonly SessionEvent[]): Buffer {
  return new LogLines(header, events, true).bytes(0, events.length + 1);
}

/**
 * About how many bytes the line of a checked event takes: its strings' lengths and a few bytes
 * for each key and value. Enough for the size threshold, without serializing the event twice.
 * It stays beside its callers: every append calls it, and a call through another module's
 * exports costs more than a method call where modules are loaded one by one (tests, benches).
 */
function approximateLineBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return 8;
  let bytes = 20; // the checksum, braces and newline
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) bytes += approximateLineBytes(item) + 1;
    return bytes;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) bytes += key.length + 4 + approximateLineBytes(record[key]);
  return bytes;
}
