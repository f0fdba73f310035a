// A Stryker ignorer (stryker.config.mjs: `plugins`, `ignorers: ['equivalent-mutants']`) that
// leaves out the mutants listed in stryker.equivalent.json: bugs planted there cannot change
// behaviour, and the reason is written beside each. An entry names its file, the text of the
// line (trimmed, so that edits elsewhere in the file do not move it), the mutators and why.
//
// Each entry has the effect of a `// Stryker disable next-line <mutators>: <why>` comment above
// that line, without the comment in the source: on entering a file's program this ignorer hands
// Stryker's own directive reading that comment, on the first node that starts on the line. So
// one entry covers every mutant of those mutators on that line, exactly as the comment would.
// An entry whose line is not in its file exactly once stops the run: it no longer says which
// code it vouches for (test/unit/tooling/mutationEquivalents.test.ts checks the list before that).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const EQUIVALENT_MUTANTS = path.join(ROOT, 'stryker.equivalent.json');

/** The entries of the list, by file relative to the project (forward slashes). */
function entriesByFile() {
  const byFile = new Map();
  for (const entry of JSON.parse(fs.readFileSync(EQUIVALENT_MUTANTS, 'utf8'))) {
    byFile.set(entry.file, [...(byFile.get(entry.file) ?? []), entry]);
  }
  return byFile;
}

/** The 1-based line of `file`'s source that `entry` names; throws unless there is exactly one. */
export function lineOf(entry, source) {
  const lines = source.split('\n').flatMap((text, index) => (text.trim() === entry.line ? [index + 1] : []));
  if (lines.length !== 1) {
    throw new Error(`stryker.equivalent.json: "${entry.line}" is on ${lines.length} lines of ${entry.file}, not one: update the entry or remove it`);
  }
  return lines[0];
}

let byFile;

const ignorer = {
  shouldIgnore(nodePath) {
    if (!nodePath.isProgram()) return undefined;
    // Stryker hands Babel the file it instruments: its name and source are on the traversal's hub.
    const fileName = nodePath.hub?.file?.opts?.filename;
    if (typeof fileName !== 'string') throw new Error('equivalent-mutants: Stryker no longer says which file it instruments; the list cannot be applied');
    byFile ??= entriesByFile();
    const entries = byFile.get(path.relative(ROOT, fileName).split(path.sep).join('/'));
    if (!entries) return undefined;
    const source = nodePath.hub.getCode?.() ?? fs.readFileSync(fileName, 'utf8');
    const pending = new Map(entries.map((entry) => [lineOf(entry, source), entry]));
    nodePath.traverse({
      enter(inner) {
        const line = inner.node.loc?.start.line;
        const entry = pending.get(line);
        if (!entry) return;
        pending.delete(line);
        inner.node.leadingComments = [
          ...(inner.node.leadingComments ?? []),
          { type: 'CommentLine', value: ` Stryker disable next-line ${entry.mutators.join(',')}: ${entry.why}`, loc: inner.node.loc },
        ];
      },
    });
    return undefined;
  },
};

export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, 'equivalent-mutants', ignorer)];
