// The ⚠ an agent's row shows while it shares a file with another live agent. Pure (no 'vscode'
// import), so it is unit-tested in plain Node; the tooltip's lines (its scope, each shared file)
// come from the core's scopes part (WriteSeam.envelopeLines), loaded only when there are any.
import type { FileOverlap } from '../../core/scopes';

/** The ⚠ a row shows while the agent shares files with another live agent; undefined when it shares none. */
export function overlapRowText(sessionId: string, overlaps: readonly FileOverlap[]): string | undefined {
  if (overlaps.length === 0) return undefined;
  const first = overlaps[0];
  const other = first.writer === sessionId ? first.otherLabel : first.writerLabel;
  const more = overlaps.length > 1 ? ` +${overlaps.length - 1}` : '';
  return `⚠ ${first.path} (also ${other})${more}`;
}
