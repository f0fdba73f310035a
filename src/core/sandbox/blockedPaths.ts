/**
 * The paths a sandboxed command's output says it could not write: the lines where a program
 * reports "Read-only file system" (EROFS), which outside the run's folders is the sandbox's
 * answer. Read from the output, so it names what the programs reported, no more: a program that
 * swallows the error leaves nothing to find.
 */

const READ_ONLY = /Read-only file system|EROFS/i;
const ABSOLUTE_PATH = /(?:^|[\s'"`‘“(])(\/[^\s'"`’”:),]*)/g;
const MAX_PATHS = 20;

export function blockedPaths(output: string): string[] {
  const found = new Set<string>();
  for (const line of output.split('\n')) {
    const at = READ_ONLY.exec(line);
    if (!at) continue;
    // "sh: cannot create /a: Read-only file system" names it before; "EROFS: …, open '/a'" after.
    const before = [...line.slice(0, at.index).matchAll(ABSOLUTE_PATH)].pop();
    const after = [...line.slice(at.index).matchAll(ABSOLUTE_PATH)][0];
    const named = before ?? after;
    if (named) found.add(named[1]);
    if (found.size >= MAX_PATHS) break;
  }
  return [...found];
}
