import * as fs from 'node:fs';
import * as path from 'node:path';

/** Writes `files` (paths relative to `root`, folders made as needed) into a test's workspace. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
}
