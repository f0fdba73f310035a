import { encoded, FALSE, K, TRUE } from './eventLineKeys';
import { crcOfRange, LINE_PREFIX } from './lineChecksum';
import type { SessionEvent } from './types';

/**
 * The bytes of session lines, each checksummed JSON object on a line of its own, written
 * straight into one buffer: the common event types key by key, in the schema's order, every
 * other type and the header from their `JSON.stringify`. A durable fan-out writes 13,000 such
 * lines at once; building each line's JSON as a string first (template strings, then one
 * string for the batch and one copy of it in UTF-8) made about 500 bytes of garbage a line,
 * enough to start a young-generation collection, with the fan-out's objects still alive, just
 * after the root was idle. These write the same bytes and leave almost nothing behind.
 *
 * Invariants:
 * - For every event the schema accepts, `eventLine` writes the checksummed line of
 *   `JSON.stringify(parsed)` and its newline (a property test holds it to that): the same
 *   keys in the same order, a key whose value is undefined left out, each string escaped as
 *   JSON.stringify escapes it.
 * - A type written by hand lists every key its type has: a key added to one of these types
 *   fails the type check in eventLineKeys.ts until it is written here too.
 * - One writer, shared, serves batch after batch (each written synchronously by `linesBytes`),
 *   so a batch allocates only its result; a batch written while another is (a getter of an
 *   event writing lines) gets a writer of its own.
 */

const UNSIGNED = encoded(`${LINE_PREFIX}00000000"`);
const HEX = encoded('0123456789abcdef');
/** Shorter pieces are copied byte by byte: a call to `set` costs more than that. */
const SET_FROM = 13;
/** Longer strings are checked by a regular expression and written natively instead of character by character. */
const NATIVE_FROM = 64;
/** Printable ASCII without a quote or a backslash: what JSON writes as it is. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/**
 * Room a line asks for before it is written, besides 6 bytes for each character of its strings
 * (the most JSON.stringify makes of one, `\u001f`): its prefix, keys, counts and newline.
 */
const ROOM = 320;
/** The buffer a batch is written into first; one grown past this is not kept for the next batch. */
const START_BYTES = 64 * 1024;
const KEEP_BYTES = 1024 * 1024;

/** An object whose own values are each a string, a number, a boolean or undefined (flatCopy). */
export type FlatRecord = Readonly<Record<string, string | number | boolean | undefined>>;

let shared: LineWriter | undefined;
let sharedInUse = false;

/** The lines `write` writes, in a buffer of their own (the writer it is handed is the shared one unless that is in use). */
export function linesBytes(write: (lines: LineWriter) => void): Buffer {
  if (sharedInUse) {
    const own = new LineWriter(1024);
    write(own);
    return own.take();
  }
  sharedInUse = true;
  const lines = (shared ??= new LineWriter(START_BYTES));
  try {
    write(lines);
    return lines.take();
  } finally {
    lines.reset();
    sharedInUse = false;
  }
}

export class LineWriter {
  private buffer: Buffer;
  private used = 0;

  constructor(bytes: number) {
    this.buffer = Buffer.allocUnsafe(bytes);
  }

  /** The line of one JSON object (`json` starts with `{` and is not `{}`): a header, or an event's JSON.stringify. */
  json(json: string): void {
    const start = this.used;
    this.room(UNSIGNED.length + json.length * 3 + 1);
    this.piece(UNSIGNED);
    this.used += this.buffer.write(json, this.used, 'utf8');
    this.lineEnd(start);
  }

  /** A new log's header copied flat (logLines' flatCopy; its type defined): the bytes of `json(JSON.stringify(record))`. */
  flatLine(record: FlatRecord): void {
    let room = ROOM;
    for (const key in record) {
      const value = record[key];
      room += key.length * 6 + (typeof value === 'string' ? value.length * 6 : 32);
    }
    const start = this.used;
    this.begin(room);
    let next = 0x7b; // { (the checksum's `,` replaces it)
    for (const key in record) {
      const value = record[key];
      if (value === undefined || !Object.hasOwn(record, key)) continue;
      this.buffer[this.used++] = next;
      next = 0x2c; // ,
      this.str(key);
      this.buffer[this.used++] = 0x3a; // :
      if (typeof value === 'string') this.str(value);
      else if (typeof value === 'number') this.num(value);
      else this.piece(value ? TRUE : FALSE);
    }
    this.buffer[this.used++] = 0x7d; // }
    this.lineEnd(start);
  }

  /** The line of a checked event (a copy the schema or the quick check returned). */
  eventLine(event: SessionEvent): void {
    const start = this.used;
    switch (event.type) {
      case 'usage': {
        const { at, inputTokens, outputTokens } = event;
        this.begin(ROOM + at.length * 6);
        this.piece(K.usage);
        this.str(at);
        this.numField(K.inputTokens, inputTokens);
        this.numField(K.outputTokens, outputTokens);
        break;
      }
      case 'tool_call': {
        const { at, call } = event;
        const { id, name, arguments: args } = call;
        this.begin(ROOM + (at.length + id.length + name.length + args.length) * 6);
        this.piece(K.toolCall);
        this.str(at);
        this.strField(K.call, id);
        this.strField(K.name, name);
        this.strField(K.arguments, args);
        this.buffer[this.used++] = 0x7d; // }
        break;
      }
      case 'tool_result': {
        const { at, toolCallId, name, content, isError } = event;
        this.begin(ROOM + (at.length + toolCallId.length + name.length + content.length) * 6);
        this.piece(K.toolResult);
        this.str(at);
        this.strField(K.toolCallId, toolCallId);
        this.strField(K.name, name);
        this.strField(K.content, content);
        if (isError !== undefined) this.boolField(K.isError, isError);
        break;
      }
      case 'turn_start': {
        const { at, turn } = event;
        this.begin(ROOM + at.length * 6);
        this.piece(K.turnStart);
        this.str(at);
        this.numField(K.turn, turn);
        break;
      }
      case 'turn_end': {
        const { at, turn, reason, cause, message } = event;
        this.begin(ROOM + (at.length + reason.length + (cause?.length ?? 0) + (message?.length ?? 0)) * 6);
        this.piece(K.turnEnd);
        this.str(at);
        this.numField(K.turn, turn);
        this.strField(K.reason, reason);
        if (cause !== undefined) this.strField(K.cause, cause);
        if (message !== undefined) this.strField(K.message, message);
        break;
      }
      case 'user_message': {
        const { at, text, from, queuedId } = event;
        this.begin(ROOM + (at.length + text.length + from.length) * 6);
        this.piece(K.userMessage);
        this.str(at);
        this.strField(K.text, text);
        this.strField(K.from, from);
        if (queuedId !== undefined) this.numField(K.queuedId, queuedId);
        break;
      }
      case 'queued': {
        const { at, id, text, from, atNextStep } = event;
        this.begin(ROOM + (at.length + text.length + from.length) * 6);
        this.piece(K.queued);
        this.str(at);
        this.numField(K.id, id);
        this.strField(K.text, text);
        this.strField(K.from, from);
        if (atNextStep !== undefined) this.boolField(K.atNextStep, atNextStep);
        break;
      }
      case 'assistant_text': {
        const { at, text } = event;
        this.begin(ROOM + (at.length + text.length) * 6);
        this.piece(K.assistantText);
        this.str(at);
        this.strField(K.text, text);
        break;
      }
      case 'queue_dropped':
      case 'interrupt':
      case 'question':
      case 'answer':
      case 'approval':
      case 'external_session':
      case 'plan':
        return this.json(JSON.stringify(event));
    }
    this.buffer[this.used++] = 0x7d; // }
    this.lineEnd(start);
  }

  /** The lines written, in a buffer of their own. */
  take(): Buffer {
    const lines = Buffer.allocUnsafe(this.used);
    this.buffer.copy(lines, 0, 0, this.used);
    return lines;
  }

  /** Empty again, for the next batch; a buffer a large batch grew is not kept. */
  reset(): void {
    this.used = 0;
    if (this.buffer.length > KEEP_BYTES) this.buffer = Buffer.allocUnsafe(START_BYTES);
  }

  /**
   * The line's JSON is written after its prefix: its checksum is taken over the JSON's own
   * bytes, then its `{` becomes the `,` after the checksum, and the newline ends it.
   */
  private lineEnd(start: number): void {
    const buffer = this.buffer;
    const at = start + UNSIGNED.length;
    let crc = crcOfRange(buffer, at, this.used);
    for (let i = start + UNSIGNED.length - 2; i >= start + LINE_PREFIX.length; i--) {
      buffer[i] = HEX[crc & 0xf];
      crc >>>= 4;
    }
    buffer[at] = 0x2c; // ,
    buffer[this.used++] = 0x0a;
  }

  /** A line begins: room for `bytes`, and its prefix with a checksum of zeros (filled in by lineEnd). */
  private begin(bytes: number): void {
    this.room(bytes);
    this.piece(UNSIGNED);
  }

  private room(bytes: number): void {
    if (this.used + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.used + bytes));
    this.buffer.copy(grown, 0, 0, this.used);
    this.buffer = grown;
  }

  private piece(bytes: Uint8Array): void {
    if (bytes.length >= SET_FROM) {
      this.buffer.set(bytes, this.used);
      this.used += bytes.length;
      return;
    }
    const buffer = this.buffer;
    let at = this.used;
    for (let i = 0; i < bytes.length; i++) buffer[at++] = bytes[i];
    this.used = at;
  }

  /** A key (with the comma before it) and its value. */
  private strField(key: Uint8Array, value: string): void {
    this.piece(key);
    this.str(value);
  }

  private numField(key: Uint8Array, value: number): void {
    this.piece(key);
    this.num(value);
  }

  private boolField(key: Uint8Array, value: boolean): void {
    this.piece(key);
    this.piece(value ? TRUE : FALSE);
  }

  /** A string as JSON.stringify writes it (within the line's room): printable ASCII as it is, anything else through JSON.stringify. */
  private str(text: string): void {
    const n = text.length;
    const buffer = this.buffer;
    let at = this.used;
    buffer[at++] = 0x22; // "
    if (n >= NATIVE_FROM) {
      if (!PLAIN_ASCII.test(text)) return this.escaped(text);
      at += buffer.write(text, at, n, 'latin1');
    } else {
      for (let i = 0; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) return this.escaped(text);
        buffer[at++] = c;
      }
    }
    buffer[at++] = 0x22;
    this.used = at;
  }

  private escaped(text: string): void {
    const json = JSON.stringify(text);
    this.used += this.buffer.write(json, this.used, 'utf8');
  }

  /** A number as JSON writes it (within the line's room): the schema's counts are safe integers, their digits written as they are. */
  private num(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) {
      const json = JSON.stringify(n);
      this.used += this.buffer.write(json, this.used, 'latin1');
      return;
    }
    let digits = 1;
    for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    const buffer = this.buffer;
    let rest = n;
    for (let i = this.used + digits - 1; i >= this.used; i--) {
      buffer[i] = 0x30 + (rest % 10);
      rest = Math.floor(rest / 10);
    }
    this.used += digits;
  }
}
