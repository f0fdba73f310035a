import { CORE_SCHEMA, load, YAMLException, type EventType, type State } from 'js-yaml';
import { MAX_DEFINITION_FILE_BYTES, MAX_FRONTMATTER_CHARS } from './schema';

/**
 * A definition file's frontmatter and body. The file is a trust boundary, so everything that
 * could cost without bound is capped before the YAML parser sees it: the file's size, the
 * frontmatter's size, and the frontmatter must be a plain mapping. YAML is parsed with the core
 * schema (strings, numbers, booleans, null, lists, maps: no custom types); anchors and aliases
 * are refused, since a few of them expand into an exponentially large value.
 */

export type Frontmatter =
  | { ok: true; data: Record<string, unknown>; body: string }
  | { ok: false; message: string; line?: number };

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;

export function splitFrontmatter(text: string): Frontmatter {
  if (text.length > MAX_DEFINITION_FILE_BYTES) {
    return { ok: false, message: `the file is larger than ${MAX_DEFINITION_FILE_BYTES / 1024} KiB` };
  }
  const open = OPENING.exec(text);
  if (!open) return { ok: false, message: 'the file does not start with YAML frontmatter (a line "---", the fields, then "---")', line: 1 };
  const rest = text.slice(open[0].length);
  const close = CLOSING.exec(rest);
  if (!close) return { ok: false, message: 'the frontmatter is not closed by a line "---"', line: 1 };
  const yaml = rest.slice(0, close.index);
  if (yaml.length > MAX_FRONTMATTER_CHARS) return { ok: false, message: `the frontmatter is longer than ${MAX_FRONTMATTER_CHARS} characters`, line: 2 };
  let data: unknown;
  try {
    data = load(yaml, { schema: CORE_SCHEMA, listener: refuseAnchors });
  } catch (err) {
    if (err instanceof AnchorRefused) {
      return { ok: false, message: 'YAML anchors and aliases (& and *) are not accepted in a definition; write each value out', line: 2 + lineOf(yaml, err.position) };
    }
    if (err instanceof YAMLException) {
      return { ok: false, message: `the frontmatter is not valid YAML (${err.reason})`, line: 2 + (err.mark?.line ?? 0) };
    }
    throw err;
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) return { ok: false, message: 'the frontmatter must be a mapping of fields (name: ..., description: ...)', line: 2 };
  const bodyStart = open[0].length + close.index + close[0].length;
  return { ok: true, data: data as Record<string, unknown>, body: text.slice(bodyStart).replace(/^\r?\n/, '').trim() };
}

class AnchorRefused extends Error {
  constructor(readonly position: number) {
    super('anchor');
  }
}

/** An alias needs an anchor: refusing every anchor as its node closes refuses aliases before one is read. */
function refuseAnchors(this: State, event: EventType, state: State): void {
  if (event === 'close' && (state as State & { anchor: string | null }).anchor !== null) throw new AnchorRefused(state.position);
}

/** The 0-based line of `index` in `text`. */
function lineOf(text: string, index: number): number {
  let line = 0;
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The 1-based line of the file where a frontmatter field is written, for a diagnostic on it. */
export function lineOfField(text: string, field: string): number | undefined {
  const match = new RegExp(`^${field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:`, 'm').exec(text);
  return match ? lineOf(text, match.index) + 1 : undefined;
}
