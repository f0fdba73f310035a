/**
 * An unattended run that cannot finish part of its work says so with a line starting
 * "BLOCKED:" naming the missing decision (the run policy asks for exactly that). These are the
 * items a person has to act on, so the editor lists them apart from the rest of the result.
 */
const BLOCKED_LINE = /^\s*(?:[-*]\s*)?\**BLOCKED\**\s*:\s*(.*)$/i;

/** The decisions a run's final text names as blocking it, in order, without the marker. */
export function blockedItems(finalText: string): string[] {
  const items: string[] = [];
  for (const line of finalText.split(/\r?\n/)) {
    const match = BLOCKED_LINE.exec(line);
    if (match) items.push(match[1].trim() || '(no decision named)');
  }
  return items;
}
