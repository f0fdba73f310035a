import * as fs from 'node:fs';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { ArborError } from '../errors';
import type { FilePool } from './filePool';
import { checkLine, crc32Bytes } from './lineChecksum';
import { emptyScanState, foldEvent, type ScanState } from './scanState';
import { headerVersionSchema, sessionEventSchema, sessionHeaderSchema } from './schema';
import { SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader } from './types';

/**
 * Reading a session file line by line, in chunks, so a 50 MB session never blocks the event
 * loop in one piece and listing it keeps no event in memory. What a scan learns is a small
 * foldable state (counts, last turn, first message, where it stopped): the session index keeps
 * it, and a file that only grew since is scanned again from where the last scan stopped. "Only
 * grew" is proven, not assumed: the state keeps the CRC-32 of every byte it covers, and a scan
 * that continues first reads those bytes again (no parsing) and starts over unless they match,
 * so a byte changed anywhere before the old end is found, whatever the file's size and time.
 *
 * The state and its fold are scanState.ts. The rules are the loader's (see sessionFileParser.ts): a line counts once its newline is on
 * disk; a damaged line after the header ends what is loaded; a bad header makes the file
 * unloadable (SESSION_CORRUPT, or SESSION_VERSION for a newer format).
 */

export { emptyScanState, foldEvent, scanStateSchema, summaryOf, type ScanState } from './scanState';

export type HeaderProblem = { code: 'SESSION_CORRUPT'; message: string; line?: number } | { code: 'SESSION_VERSION'; message: string; version: number };

/** Folds complete lines, in order, into a header, a state and (optionally) the events. */
export class LineFolder {
  header: SessionHeader | undefined;
  problem: HeaderProblem | undefined;
  readonly events: SessionEvent[] | undefined;

  constructor(
    readonly state: ScanState,
    keepEvents: boolean,
    header?: SessionHeader,
  ) {
    this.events = keepEvents ? [] : undefined;
    this.header = header;
  }

  /** One complete line (without its newline) of `bytes` bytes. False once the file is unloadable. */
  line(text: string, bytes: number): boolean {
    const state = this.state;
    const start = state.bytes;
    state.lines++;
    state.bytes += bytes + 1;
    if (state.lines === 1) return this.headerLine(text);
    if (state.damage || text.trim() === '') return true;
    const reason = this.eventLine(text);
    if (reason !== undefined) state.damage = { line: state.lines, reason, offset: start };
    return true;
  }

  private headerLine(text: string): boolean {
    const fail = (message: string): false => ((this.problem = { code: 'SESSION_CORRUPT', message, line: 1 }), false);
    const checked = checkLine(text);
    if (!checked.ok) return fail(`The header (line 1) is damaged: ${checked.reason}.`);
    const json = parseJson(checked.json);
    if (json === undefined) return fail('The header (line 1) is not JSON.');
    const versioned = headerVersionSchema().safeParse(json);
    if (!versioned.success) return fail('Line 1 is not a session header.');
    if (versioned.data.version > SESSION_FORMAT_VERSION) {
      this.problem = {
        code: 'SESSION_VERSION',
        message: `The session was written in format version ${versioned.data.version}; this version of Arbor reads up to ${SESSION_FORMAT_VERSION}. Update Arbor to open it.`,
        version: versioned.data.version,
      };
      return false;
    }
    const header = sessionHeaderSchema().safeParse(json);
    if (!header.success) return fail(`The header (line 1) is invalid: ${header.error.issues[0]?.message ?? 'unknown problem'}.`);
    this.header = header.data;
    return true;
  }

  /** Folds the event of one line, or says why the line is damaged. */
  private eventLine(text: string): string | undefined {
    const checked = checkLine(text);
    if (!checked.ok) return checked.reason;
    const json = parseJson(checked.json);
    if (json === undefined) return 'it is not JSON';
    const event = sessionEventSchema().safeParse(json);
    if (!event.success) {
      const issue = event.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      return `it is not a valid session event${where}: ${issue?.message ?? 'unknown problem'}`;
    }
    foldEvent(this.state, event.data);
    this.events?.push(event.data);
    return undefined;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // not JSON: the caller reports the line as damaged
  }
}

export interface ScanResult {
  header: SessionHeader;
  state: ScanState;
  events?: SessionEvent[];
  /** The file's size when it was read, and the bytes after its last newline. */
  size: number;
  tornTailBytes: number;
}

/** Small enough that parsing one chunk stays well under 50 ms on a slow machine. */
const CHUNK_BYTES = 128 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads `file` from `from.state.bytes` (or the start) to its end in chunks, yielding to the
 * event loop between them. Throws SESSION_CORRUPT / SESSION_VERSION (ArborError) for a file
 * that cannot be loaded, and the file system's errors.
 */
export async function scanSessionFile(file: string, pool: FilePool, options: { keepEvents: boolean; from?: { header: SessionHeader; state: ScanState } }): Promise<ScanResult> {
  if (options.from && !(await prefixStillThere(file, pool, options.from.state))) return scanSessionFile(file, pool, { keepEvents: options.keepEvents });
  const folder = new LineFolder(options.from ? { ...options.from.state } : emptyScanState(), options.keepEvents, options.from?.header);
  let size = 0;
  let position = folder.state.bytes;
  let carry: Buffer | undefined;
  for (;;) {
    const chunk = await pool.run(async () => {
      const handle = await fs.promises.open(file, 'r');
      try {
        if (size === 0) size = (await handle.stat()).size;
        const length = Math.min(CHUNK_BYTES, size - position);
        if (length <= 0) return undefined;
        return readInto(handle, Buffer.allocUnsafe(length), position);
      } finally {
        await handle.close();
      }
    });
    if (!chunk || chunk.length === 0) break;
    position += chunk.length;
    const data = carry ? Buffer.concat([carry, chunk]) : chunk;
    const end = data.lastIndexOf(NEWLINE) + 1;
    carry = end < data.length ? Buffer.from(data.subarray(end)) : undefined;
    if (end > 0) {
      const lines = data.subarray(0, end);
      if (!foldLines(folder, lines)) break;
      folder.state.prefixCrc = crc32Bytes(lines, folder.state.prefixCrc);
    }
    if (position >= size) break;
    // Between chunks, everything else the extension host has to do runs.
    await yieldToEventLoop();
  }
  if (folder.problem) throw problemError(folder.problem, file);
  if (!folder.header) {
    throw new ArborError(
      'SESSION_CORRUPT',
      size === 0 ? 'The session file is empty: it was created but nothing was written to it.' : 'The session file has no complete header line: it was cut off while being created.',
      { file },
    );
  }
  return { header: folder.header, state: folder.state, events: folder.events, size, tornTailBytes: size - folder.state.bytes };
}

/** Only read and checksummed, not parsed: larger chunks still take well under a millisecond each. */
const VERIFY_CHUNK_BYTES = 1024 * 1024;

/**
 * Whether the bytes a scan covered are unchanged, so the file only grew since: their CRC-32 is
 * taken again, a chunk at a time. Reading is a small part of what a scan costs (parsing and
 * checking each event is the rest), and only a file whose size or time changed gets here.
 */
async function prefixStillThere(file: string, pool: FilePool, state: ScanState): Promise<boolean> {
  let crc = 0;
  let buffer: Buffer | undefined;
  for (let position = 0; position < state.bytes; ) {
    const length = Math.min(VERIFY_CHUNK_BYTES, state.bytes - position);
    const chunk = await pool.run(async () => {
      const handle = await fs.promises.open(file, 'r');
      try {
        buffer ??= Buffer.allocUnsafe(length);
        return await readInto(handle, buffer.subarray(0, length), position);
      } finally {
        await handle.close();
      }
    });
    if (chunk.length < length) return false;
    crc = crc32Bytes(chunk, crc);
    position += length;
    if (position < state.bytes) await yieldToEventLoop();
  }
  return crc === state.prefixCrc;
}

/** Fills `buffer` from `position` on; returns the part read (shorter at the end of the file). */
async function readInto(handle: fs.promises.FileHandle, buffer: Buffer, position: number): Promise<Buffer> {
  let read = 0;
  while (read < buffer.length) {
    const { bytesRead } = await handle.read(buffer, read, buffer.length - read, position + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return buffer.subarray(0, read);
}

/** Folds the complete lines of `data` (which ends with a newline). False once unloadable. */
export function foldLines(folder: LineFolder, data: Buffer): boolean {
  const lines = data.toString('utf8').split('\n');
  lines.pop();
  for (const text of lines) {
    if (!folder.line(text, Buffer.byteLength(text, 'utf8'))) return false;
  }
  return true;
}

function problemError(problem: HeaderProblem, file: string): ArborError {
  const { code, message, ...rest } = problem;
  return new ArborError(code, message, { file, ...rest });
}
