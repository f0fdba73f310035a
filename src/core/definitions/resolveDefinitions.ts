import type { AgentDefinition, DefinitionFileResult } from './types';

/**
 * Which definitions are in use when several files are read. Names are compared without case.
 * A workspace folder's file wins over the user's (and Arbor's own format over the others in the
 * same place), and the loser is named in a note that says which won. Two files of the same
 * standing with one name are a mistake: the second, in path order, is refused whole, so which
 * one is used never depends on the order the disk lists them in.
 */
export interface ResolvedDefinitions {
  definitions: AgentDefinition[];
  /** Files refused whole: their own problems and duplicate names. */
  refused: Array<{ file: string; message: string; line?: number }>;
  /** What the log says: fields left out of a file, and which of two same-named files won. */
  notes: Array<{ file: string; message: string }>;
}

function rankOf(d: AgentDefinition): number {
  const format = d.format === 'arbor' ? 0 : d.format === 'claude' ? 1 : 2;
  return (d.scope === 'workspace' ? 0 : 3) + format;
}

export function resolveDefinitions(results: readonly DefinitionFileResult[]): ResolvedDefinitions {
  const out: ResolvedDefinitions = { definitions: [], refused: [], notes: [] };
  const candidates: AgentDefinition[] = [];
  for (const r of results) {
    for (const message of r.notes) out.notes.push({ file: r.ok ? r.definition.file : r.file, message });
    if (r.ok) candidates.push(r.definition);
    else out.refused.push({ file: r.file, message: r.message, ...(r.line !== undefined ? { line: r.line } : {}) });
  }
  candidates.sort((a, b) => rankOf(a) - rankOf(b) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const chosen = new Map<string, AgentDefinition>();
  for (const d of candidates) {
    const key = d.name.toLowerCase();
    const winner = chosen.get(key);
    if (!winner) {
      chosen.set(key, d);
    } else if (rankOf(winner) === rankOf(d)) {
      out.refused.push({ file: d.file, message: `duplicate name "${d.name}": ${winner.file} already defines it`, line: 2 });
    } else {
      out.notes.push({ file: d.file, message: `"${d.name}" is not used: ${winner.file} (${winner.scope}) has the same name and wins` });
    }
  }
  out.definitions = [...chosen.values()].sort((a, b) => a.name.localeCompare(b.name));
  return out;
}
