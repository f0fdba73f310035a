import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// The core's shape: modules import each other one way only, and a file that grows past what a
// reader takes in at once says at its top why it stays whole.

const CORE = path.resolve(__dirname, '../../src/core');

function coreFiles(dir = CORE): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return coreFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative imports and re-exports of a file (type-only ones too: a loop of types is still a loop for a reader). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']*)'/g)) {
    const base = path.resolve(path.dirname(file), match[1]);
    const target = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
    if (target) out.push(target);
  }
  return out;
}

/** Every import loop, each as the files it passes through. */
function importLoops(files: readonly string[]): string[][] {
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const loops: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') loops.push([...stack.slice(stack.indexOf(next)), next].map((f) => path.relative(CORE, f)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return loops;
}

describe('the core architecture', () => {
  it('has no import loop between its modules (doors excepted: an index.ts only re-exports)', () => {
    const files = coreFiles().filter((f) => path.basename(f) !== 'index.ts');
    assert.deepEqual(importLoops(files), []);
  });

  it('keeps each file under about 300 lines, or says at its top why it stays whole', () => {
    const LIMIT = 320;
    const long = coreFiles()
      .filter((f) => fs.readFileSync(f, 'utf8').split('\n').length > LIMIT)
      .filter((f) => !/^[\s\S]{0,3000}?Why this file stays whole:/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(CORE, f));
    assert.deepEqual(long, []);
  });
});
