/**
 * The paths a sandboxed command's output says it could not write: the lines where a program
 * reports "Read-only file system" (EROFS), which outside the run's folders is the sandbox's
 * answer. Read from the output, so it names what the programs reported, no more: a program that
 * swallows the error leaves nothing to find.
 */

const READ_ONLY = /Read-only file system|EROFS/;
const ABSOLUTE_PATH = /(?:^|[\s'"`‘“(])(\/[^\s'"`’”:)]*)/;
const MAX_PATHS = 20;

export function blockedPaths(output: string): string[] {
  const found = new Set<string>();
  for (const line of output.split('\n')) {
    if (!READ_ONLY.test(line)) continue;
    const match = ABSOLUTE_PATH.exec(line);
    if (match) found.add(match[1]);
    if (found.size >= MAX_PATHS) break;
  }
  return [...found];
}
