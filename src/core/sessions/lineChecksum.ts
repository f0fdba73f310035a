import * as zlib from 'node:zlib';

/**
 * Each line of a session file carries the CRC-32 of its JSON, so a byte flipped inside a text
 * is detected instead of silently loaded. The checksum is the line's first key,
 * `{"crc":"<8 hex>",...}`, computed over the same JSON without that key (`{...}`): every line
 * stays one JSON object, readable by `jq` and by builds of Arbor that predate checksums
 * (they drop the unknown key). Lines without a checksum, as earlier builds wrote them, load
 * as they always did.
 */

/** What each checksummed line starts with, before its 8 hex digits. */
export const LINE_PREFIX = '{"crc":"';
/** `{"crc":"` + 8 hex digits + `",` */
const PREFIX_LENGTH = LINE_PREFIX.length + 8 + 2;
const HEX8 = /^[0-9a-f]{8}$/;

/** Node's own CRC-32 (Node 20.15 and later), else the table-driven fallbacks below. */
const nativeCrc32 = (zlib as { crc32?: (data: string | Uint8Array, value?: number) => number }).crc32;
const crc32: (text: string) => number = nativeCrc32 ?? crc32Fallback;

/** CRC-32 of `bytes` continued from `previous`, the CRC-32 of the bytes before them (0 for none). */
export const crc32Bytes: (bytes: Uint8Array, previous?: number) => number = nativeCrc32 ?? crc32BytesFallback;

function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

/** The length in bytes of the line of one JSON object (`json` starts with `{`), its newline included. */
export function checksummedLineBytes(json: string): number {
  return PREFIX_LENGTH + Buffer.byteLength(json, 'utf8');
}

export type DecodedLine = { ok: true; json: string; checked: boolean } | { ok: false; reason: string };

/** The JSON of a line, checked against its checksum when it has one. */
export function checkLine(line: string): DecodedLine {
  if (!line.startsWith(LINE_PREFIX) || line.charCodeAt(PREFIX_LENGTH - 2) !== 0x22 /* " */ || line.charCodeAt(PREFIX_LENGTH - 1) !== 0x2c /* , */) {
    return { ok: true, json: line, checked: false };
  }
  const stored = line.slice(LINE_PREFIX.length, LINE_PREFIX.length + 8);
  if (!HEX8.test(stored)) return { ok: true, json: line, checked: false };
  const json = '{' + line.slice(PREFIX_LENGTH);
  if (hex(crc32(json)) !== stored) return { ok: false, reason: 'its checksum does not match its content (the bytes were changed after Arbor wrote them)' };
  return { ok: true, json, checked: true };
}

/**
 * Above this many bytes zlib's CRC-32 over a view of the bytes is faster than the table below
 * (measured on Node 20: equal at about 250 bytes, 2.6 times faster at 4 KB); below it the call
 * and the view cost more than the lookups.
 */
const NATIVE_FROM_BYTES = 256;

/** CRC-32 of `bytes[start, end)`: the table below for short ranges, zlib's over a view for long ones. */
export function crcOfRange(bytes: Buffer, start: number, end: number): number {
  return nativeCrc32 && end - start >= NATIVE_FROM_BYTES ? nativeCrc32(bytes.subarray(start, end)) >>> 0 : crc32Range(bytes, start, end);
}

let table: Int32Array | undefined;

/** Eight tables of 256 (slicing by 8): table k gives the CRC of a byte followed by k zero bytes. */
function crcTable(): Int32Array {
  if (!table) {
    table = new Int32Array(256 * 8);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c;
    }
    for (let n = 0; n < 256; n++) {
      let c = table[n];
      for (let k = 1; k < 8; k++) {
        c = table[c & 0xff] ^ (c >>> 8);
        table[k * 256 + n] = c;
      }
    }
  }
  return table;
}

/**
 * CRC-32 of `bytes[start, end)` continued from `previous`, eight bytes a step. For the short
 * lines of a batch it is about twice as fast as zlib's over the line's string: a native call
 * costs more than a line's worth of table lookups, and it encodes the string once more.
 */
export function crc32Range(bytes: Uint8Array, start: number, end: number, previous = 0): number {
  const t = crcTable();
  let crc = previous ^ -1;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    crc ^= bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    crc =
      t[1792 + (crc & 0xff)] ^
      t[1536 + ((crc >>> 8) & 0xff)] ^
      t[1280 + ((crc >>> 16) & 0xff)] ^
      t[1024 + (crc >>> 24)] ^
      t[768 + bytes[i + 4]] ^
      t[512 + bytes[i + 5]] ^
      t[256 + bytes[i + 6]] ^
      t[bytes[i + 7]];
  }
  for (; i < end; i++) crc = t[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** CRC-32 (the zlib polynomial) of the UTF-8 bytes of `text`, for Node builds without zlib.crc32. */
export function crc32Fallback(text: string): number {
  return crc32BytesFallback(Buffer.from(text, 'utf8'));
}

/** CRC-32 of `bytes` continued from `previous`, for Node builds without zlib.crc32. */
export function crc32BytesFallback(bytes: Uint8Array, previous = 0): number {
  return crc32Range(bytes, 0, bytes.length, previous);
}
