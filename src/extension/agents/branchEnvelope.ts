// What the Agents view says of an agent's branch envelope: the files it may change (its write
// scope, in the tooltip) and the files it holds together with another live agent (a ⚠ on its
// row and in its tooltip). Pure (no 'vscode' import), so it is unit-tested in plain Node.
import type { FileOverlap, WriteScope } from '../../core/scopes';

/** The ⚠ a row shows while the agent shares files with another live agent; undefined when it shares none. */
export function overlapRowText(sessionId: string, overlaps: readonly FileOverlap[]): string | undefined {
  if (overlaps.length === 0) return undefined;
  const first = overlaps[0];
  const other = first.writer === sessionId ? first.otherLabel : first.writerLabel;
  const more = overlaps.length > 1 ? ` +${overlaps.length - 1}` : '';
  return `⚠ ${first.path} (also ${other})${more}`;
}

/** Tooltip lines: the scope, and each file shared with another agent. */
export function envelopeTooltipLines(sessionId: string, scope: WriteScope | undefined, overlaps: readonly FileOverlap[], escape: (text: string) => string): string[] {
  const lines: string[] = [];
  if (scope) {
    const globs = scope.terms.length === 0 ? 'no file' : scope.terms.map((t) => t.map((g) => `\`${g}\``).join(' and ')).join(', ');
    lines.push(`- May change: ${globs} (scope set by ${escape(scope.setBy[scope.setBy.length - 1] ?? 'its definition')}; commands are not file-aware)`);
  }
  for (const o of overlaps) {
    const mine = o.writer === sessionId;
    const other = mine ? o.otherLabel : o.writerLabel;
    const how = mine ? (o.otherHeld === 'changed' ? 'had changed it' : 'has it in its scope') : 'changed it after this agent';
    lines.push(`- ⚠ \`${o.path}\`: "${escape(other)}" ${how}; Keep or Undo of either change ends this`);
  }
  return lines;
}
