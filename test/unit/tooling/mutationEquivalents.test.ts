import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';

const ROOT = path.resolve(__dirname, '../../..');

/** stryker.equivalent.json: the mutants a mutation run leaves out, and why (scripts/mutation/equivalentMutants.mjs). */
const entrySchema = z.strictObject({
  file: z.string().regex(/^src\/core\/.+\.ts$/),
  line: z.string().min(1),
  mutators: z.array(z.string().regex(/^[A-Z][A-Za-z]+$/)).min(1),
  why: z.string().min(10),
});

describe('the equivalent mutants listed for mutation runs', () => {
  const entries = z.array(entrySchema).parse(JSON.parse(fs.readFileSync(path.join(ROOT, 'stryker.equivalent.json'), 'utf8')));

  it('each name a line that is in its file exactly once, as it is written today', () => {
    const stale = entries.flatMap((entry) => {
      const file = path.join(ROOT, entry.file);
      const count = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((text) => text.trim() === entry.line).length : 0;
      return count === 1 ? [] : [`${entry.file}: "${entry.line}" (${count} lines): the line changed, so judge again whether ${entry.mutators.join(', ')} can change behaviour there`];
    });
    assert.deepEqual(stale, []);
  });

  it('are listed there, never marked in the source', () => {
    const marked: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (/Stryker (disable|restore)/.test(fs.readFileSync(full, 'utf8'))) marked.push(path.relative(ROOT, full));
      }
    };
    walk(path.join(ROOT, 'src'));
    assert.deepEqual(marked, []);
  });
});
