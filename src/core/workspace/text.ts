import { ArborError, messageOf } from '../errors';

/** Bytes looked at to tell a binary file from text, as git and ripgrep do (a NUL byte). */
const BINARY_SNIFF_BYTES = 8_000;
/** Longest line text a search result carries. */
export const MAX_MATCH_TEXT = 240;
/** Files larger than this are not read whole into memory. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

export function binaryRefused(relative: string): ArborError {
  return new ArborError('FILE_BINARY', `"${relative}" is a binary file; only text files can be read or edited.`, { path: relative });
}

export function notFound(relative: string): ArborError {
  return new ArborError('FILE_NOT_FOUND', `"${relative}" does not exist. Use list_files to find the right path.`, { path: relative });
}

export function decodeText(bytes: Uint8Array, relative: string): string {
  if (looksBinary(bytes)) throw binaryRefused(relative);
  const text = new TextDecoder('utf-8').decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * A matcher for one line: a literal (case-folded unless case-sensitive) or a JavaScript regular
 * expression. An invalid expression is SEARCH_INVALID, named so the model can fix it.
 */
export function lineMatcher(pattern: string, isRegex: boolean, caseSensitive: boolean): (line: string) => number {
  if (isRegex) {
    let re: RegExp;
    try {
      re = new RegExp(pattern, caseSensitive ? 'u' : 'iu');
    } catch (err) {
      throw new ArborError('SEARCH_INVALID', `The regular expression is invalid: ${messageOf(err)}`);
    }
    return (line) => line.search(re);
  }
  if (caseSensitive) return (line) => line.indexOf(pattern);
  const folded = pattern.toLowerCase();
  return (line) => line.toLowerCase().indexOf(folded);
}

/** The line around the match, short enough for a result list. */
export function clipMatchLine(line: string, at: number): string {
  const trimmed = line.replace(/\r$/, '');
  if (trimmed.length <= MAX_MATCH_TEXT) return trimmed;
  const start = Math.max(0, Math.min(at - 60, trimmed.length - MAX_MATCH_TEXT));
  return `${start > 0 ? '…' : ''}${trimmed.slice(start, start + MAX_MATCH_TEXT)}…`;
}
