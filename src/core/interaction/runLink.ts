import { ArborError } from '../errors';
import { INTERNAL_KEY_SPELLINGS } from './trustBoundary';

/**
 * Reading the query of a run link (`vscode://arbor.arbor/run?prompt=...&label=...`).
 *
 * VS Code's URI has already percent-decoded the query once when a handler sees `uri.query`
 * (`%26` is `&` by then, `%2B` is `+`, `%2541` is `%41`). Decoding it again, as a form parser
 * such as URLSearchParams does, changes any value that holds `&`, `=`, `+` or `%XX`. So the
 * query is read as it stands: nothing is decoded, and `&` separates parameters only where a
 * parameter this entry point knows follows it (`&label=`, `&prompt=`, or an internal key that
 * is then stripped). Every other `&` or `=` belongs to the value it sits in, so a prompt
 * encoded with encodeURIComponent (or by VS Code's own URI encoding) arrives exactly as written.
 *
 * Invariants: the result holds only known parameter names; a name given twice is INPUT_INVALID
 * (never a silent choice between two prompts); text before the first known name is dropped
 * and reported, never folded into a value.
 */
export const RUN_LINK_PARAMETERS = Object.freeze(['prompt', 'label'] as const);

const KNOWN_NAMES_LIST: readonly string[] = [...RUN_LINK_PARAMETERS, ...Object.keys(INTERNAL_KEY_SPELLINGS)];

export interface RunLinkQuery {
  /** Known parameters by name, values exactly as they stand in the decoded query. */
  params: Record<string, string>;
  /** Text of the query before the first known parameter (unknown parameters), if any. */
  ignored?: string;
}

export function parseRunLinkQuery(query: string): RunLinkQuery {
  // Where a known parameter starts: at the very beginning, or right after an '&'.
  const starts: { at: number; name: string }[] = [];
  for (let i = 0; ; ) {
    const name = KNOWN_NAMES_LIST.find((n) => query.startsWith(`${n}=`, i));
    if (name !== undefined) starts.push({ at: i, name });
    const amp = query.indexOf('&', i);
    if (amp < 0) break;
    i = amp + 1;
  }
  const params = new Map<string, string>();
  starts.forEach((start, k) => {
    if (params.has(start.name)) {
      throw new ArborError('INPUT_INVALID', `The link gives "${start.name}" twice; give it once.`, { parameter: start.name });
    }
    const end = k + 1 < starts.length ? starts[k + 1].at - 1 : query.length;
    params.set(start.name, query.slice(start.at + start.name.length + 1, end));
  });
  const head = starts.length ? query.slice(0, Math.max(0, starts[0].at - 1)) : query;
  const result: RunLinkQuery = { params: Object.fromEntries(params) };
  if (head) result.ignored = head;
  return result;
}
