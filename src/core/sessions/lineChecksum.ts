import * as zlib from 'node:zlib';

/**
 * Each line of a session file carries the CRC-32 of its JSON, so a byte flipped inside a text
 * is detected instead of silently loaded. The checksum is the line's first key,
 * `{"crc":"<8 hex>",...}`, computed over the same JSON without that key (`{...}`): every line
 * stays one JSON object, readable by `jq` and by builds of Arbor that predate checksums
 * (they drop the unknown key). Lines without a checksum, as earlier builds wrote them, load
 * as they always did.
 */

const PREFIX = '{"crc":"';
/** `{"crc":"` + 8 hex digits + `",` */
const PREFIX_LENGTH = PREFIX.length + 8 + 2;
const HEX8 = /^[0-9a-f]{8}$/;

/** Node's own CRC-32 (Node 20.15 and later), else the table-driven fallback below. */
const nodeCrc32 = (zlib as { crc32?: (data: string) => number }).crc32;
const crc32: (text: string) => number = typeof nodeCrc32 === 'function' ? (text) => nodeCrc32(text) : crc32Fallback;

function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

/** The line for one JSON object (`json` starts with `{` and is not `{}`), without its newline. */
export function withChecksum(json: string): string {
  return `${PREFIX}${hex(crc32(json))}",${json.slice(1)}`;
}

export type DecodedLine = { ok: true; json: string; checked: boolean } | { ok: false; reason: string };

/** The JSON of a line, checked against its checksum when it has one. */
export function checkLine(line: string): DecodedLine {
  if (!line.startsWith(PREFIX) || line.charCodeAt(PREFIX_LENGTH - 2) !== 0x22 /* " */ || line.charCodeAt(PREFIX_LENGTH - 1) !== 0x2c /* , */) {
    return { ok: true, json: line, checked: false };
  }
  const stored = line.slice(PREFIX.length, PREFIX.length + 8);
  if (!HEX8.test(stored)) return { ok: true, json: line, checked: false };
  const json = '{' + line.slice(PREFIX_LENGTH);
  if (hex(crc32(json)) !== stored) return { ok: false, reason: 'its checksum does not match its content (the bytes were changed after Arbor wrote them)' };
  return { ok: true, json, checked: true };
}

let table: Int32Array | undefined;

/** CRC-32 (the zlib polynomial) of the UTF-8 bytes of `text`, for Node builds without zlib.crc32. */
export function crc32Fallback(text: string): number {
  if (!table) {
    table = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c;
    }
  }
  let crc = -1;
  for (const byte of Buffer.from(text, 'utf8')) crc = table[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
