import { createHash } from 'node:crypto';
import { ArborError } from '../errors';

/**
 * Session ids are any string the runtime makes; file names are not. The name of a session file
 * is the id with every character outside [a-z0-9_-] written as %XX (its UTF-8 bytes, upper-case
 * hex), plus `.jsonl`. That keeps names free of separators and dots (no path traversal, no
 * hidden files), and distinct ids stay distinct on case-insensitive file systems (literal
 * letters are always lower case, hex digits always upper case). Windows device names
 * (`con`, `nul`, ...) get their last letter escaped.
 *
 * Ids whose escaped form would be too long for a file name (or that are not well-formed
 * UTF-16) are stored as `<escaped prefix>~<sha-256 of the id>.jsonl`. Such a name cannot be
 * decoded, so the header inside the file stays the source of truth for the id: the catalog
 * reads it and checks that the file has the name its id maps to.
 */

export const SESSION_FILE_EXTENSION = '.jsonl';

/** Room for the extension and headroom under the common 255-byte limit on a file name. */
const MAX_ESCAPED_LENGTH = 200;
const HASHED_PREFIX_LENGTH = 120;
const WINDOWS_DEVICE_NAME = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const LITERAL = /[a-z0-9_-]/;

const ALL_LITERAL = /^[a-z0-9_-]+$/;

function escapeId(id: string): string {
  // The runtime's ids (label slug, time, counter) need no escape: the same name, made at once.
  if (ALL_LITERAL.test(id) && !WINDOWS_DEVICE_NAME.test(id)) return id;
  let out = '';
  for (const ch of id) {
    if (LITERAL.test(ch)) {
      out += ch;
    } else {
      for (const byte of Buffer.from(ch, 'utf8')) out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
    }
  }
  if (WINDOWS_DEVICE_NAME.test(out)) {
    out = out.slice(0, -1) + '%' + out.charCodeAt(out.length - 1).toString(16).toUpperCase();
  }
  return out;
}

/** The file name (no folder) of the session `id`. Throws INPUT_INVALID for an empty id. */
export function sessionFileName(id: string): string {
  if (id.length === 0) throw new ArborError('INPUT_INVALID', 'A session id must not be empty.');
  const wellFormed = (id as string & { isWellFormed(): boolean }).isWellFormed();
  const escaped = wellFormed ? escapeId(id) : '';
  if (wellFormed && escaped.length <= MAX_ESCAPED_LENGTH) return escaped + SESSION_FILE_EXTENSION;
  // Hash the UTF-16 code units, so that ids that differ only in unpaired surrogates stay apart.
  const digest = createHash('sha256').update(Buffer.from(id, 'utf16le')).digest('hex');
  const prefix = escapeId(id.replace(/[\uD800-\uDFFF]/g, '_')).slice(0, HASHED_PREFIX_LENGTH).replace(/%[0-9A-F]?$/, '');
  return `${prefix}~${digest}${SESSION_FILE_EXTENSION}`;
}

/**
 * The id a session file name stands for, or undefined when the name is not one this module
 * makes (a hashed name, a foreign file, a non-canonical spelling).
 */
export function sessionIdFromFileName(fileName: string): string | undefined {
  if (!fileName.endsWith(SESSION_FILE_EXTENSION)) return undefined;
  const stem = fileName.slice(0, -SESSION_FILE_EXTENSION.length);
  if (stem.length === 0 || !/^(?:[a-z0-9_-]|%[0-9A-F]{2})+$/.test(stem)) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(stem);
  } catch {
    return undefined; // a stray % escape: no name this store writes
  }
  return sessionFileName(id) === fileName ? id : undefined;
}
