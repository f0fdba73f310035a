import { ArborError } from '../errors';

/**
 * Tool-name globs, as a definition's `tools` lists them: `*` (any run of characters), `?` (one
 * character), `[abc]` / `[a-z]` / `[!abc]` (one of a set), `{a,b}` (either, not nested).
 * Tool names are short words with no path, so `*` matches `/` too (`mcp/*` and `*` both work for
 * namespaced tools). A pattern that cannot be read is an error (DEFINITION_INVALID), never a
 * pattern that matches nothing in silence.
 */
export function toolGlobMatcher(pattern: string): (tool: string) => boolean {
  const re = new RegExp(`^${toRegExp(pattern)}$`);
  return (tool) => re.test(tool);
}

const SPECIAL = /[.+^$()|\\/]/;

function toRegExp(pattern: string): string {
  let out = '';
  let inBraces = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) throw invalid(pattern, 'a "[" without its "]"');
      let set = pattern.slice(i + 1, end);
      if (set.startsWith('!')) set = `^${set.slice(1)}`;
      out += `[${set.replace(/[\\\]]/g, '\\$&')}]`;
      i = end;
    } else if (c === '{') {
      if (inBraces) throw invalid(pattern, 'braces inside braces');
      inBraces = true;
      out += '(?:';
    } else if (c === '}') {
      if (!inBraces) throw invalid(pattern, 'a "}" without its "{"');
      inBraces = false;
      out += ')';
    } else if (c === ',' && inBraces) out += '|';
    else out += SPECIAL.test(c) || c === ']' || c === '-' ? `\\${c}` : c;
  }
  if (inBraces) throw invalid(pattern, 'a "{" without its "}"');
  return out;
}

function invalid(pattern: string, why: string): ArborError {
  return new ArborError('DEFINITION_INVALID', `"${pattern}" is not a valid tool glob: ${why}`);
}
