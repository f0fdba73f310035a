import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { errnoOf, messageOf } from '../../../src/core/errors';

// One way to fail, one way to clean up: what a thrown value says and the errno it carries are
// read by one helper each in src/core/errors.ts; what no caller receives goes to the runtime's
// onProblem; the core dates by a clock; an editor-side class owns its listeners through the
// Disposable base; a catch that drops a failure says why.

const ROOT = path.resolve(__dirname, '../../..');

/** Every TypeScript file of src, as a path from the repository root. */
function srcFiles(dir = path.join(ROOT, 'src')): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return srcFiles(full);
    return entry.name.endsWith('.ts') ? [path.relative(ROOT, full).split(path.sep).join('/')] : [];
  });
}

/** The lines of src (outside `except`) for which `test` holds, given the file's lines and the index, as `file:line: text`. */
function linesWhere(test: (lines: readonly string[], i: number) => boolean, except: readonly string[] = []): string[] {
  return srcFiles()
    .filter((file) => !except.includes(file))
    .flatMap((file) => {
      const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
      return lines.flatMap((line, i) => (test(lines, i) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
    });
}

/** The lines of src (outside `except`) that match `pattern`. */
function linesMatching(pattern: RegExp, except: readonly string[] = []): string[] {
  return linesWhere((lines, i) => pattern.test(lines[i]), except);
}

/**
 * A `catch {` that neither says why on its line or the next nor throws there, or a
 * `.catch(() => undefined)` with no comment on its line or the three before it.
 */
function silentCatch(lines: readonly string[], i: number): boolean {
  const line = lines[i];
  if (/\bcatch \{\s*$/.test(line)) return !line.includes('//') && !(lines[i + 1] ?? '').includes('//') && !/^\s*throw\b/.test(lines[i + 1] ?? '');
  if (/\.catch\(\(\) => (undefined|\{\s*\})\)/.test(line)) return !lines.slice(Math.max(0, i - 3), i + 1).some((l) => l.includes('//'));
  return false;
}

describe('one way to fail, one way to clean up', () => {
  it('reads what a thrown value says only through messageOf', () => {
    assert.deepEqual(linesMatching(/\b(\w+) instanceof Error \? \1\.message : String\(\1\)/, ['src/core/errors.ts']), []);
  });

  it('messageOf gives an Error its message and anything else thrown as text', () => {
    assert.equal(messageOf(new Error('disk gone')), 'disk gone');
    assert.equal(messageOf('plain text'), 'plain text');
    assert.equal(messageOf(undefined), 'undefined');
    assert.equal(messageOf({ code: 'EIO' }), '[object Object]');
  });

  it('reads the errno of a failed system call only through errnoOf', () => {
    assert.deepEqual(linesMatching(/as NodeJS\.ErrnoException/, ['src/core/errors.ts']), []);
  });

  it('errnoOf gives the string code of an Error, and nothing for anything else', () => {
    assert.equal(errnoOf(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' })), 'EIO');
    assert.equal(errnoOf(new Error('no code')), undefined);
    assert.equal(errnoOf(Object.assign(new Error('odd'), { code: 5 })), undefined);
    assert.equal(errnoOf({ code: 'ENOENT' }), undefined);
    assert.equal(errnoOf(undefined), undefined);
  });

  it("reports what no caller receives through the runtime's onProblem, never the console", () => {
    assert.deepEqual(linesMatching(/\bconsole\.error\(/).filter((line) => line.startsWith('src/core/')), []);
  });

  it('dates what the core writes by a clock, never by new Date() on the spot', () => {
    assert.deepEqual(linesMatching(/new Date\(\)\.toISOString\(\)/).filter((line) => line.startsWith('src/core/')), []);
  });

  it('keeps the disposables of an editor-side class in the Disposable base, not in an array of its own', () => {
    assert.deepEqual(linesMatching(/Disposable\[\] = \[\]|this\.subscriptions\.push\(/).filter((line) => line.startsWith('src/extension/') && !line.startsWith('src/extension/disposable.ts')), []);
  });

  it('says at every catch that drops a failure why it may, or throws a typed one instead', () => {
    assert.deepEqual(linesWhere(silentCatch), []);
  });
});
