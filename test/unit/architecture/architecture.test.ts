import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// The core's shape: modules import each other one way only, and a file that grows past what a
// reader takes in at once says at its top why it stays whole. And the map matches the house: the
// README's Code layout names every folder of src, and what it and docs/architecture.md name exists.

const ROOT = path.resolve(__dirname, '../../..');
const CORE = path.join(ROOT, 'src/core');

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

  it('writes sessions synchronously in one place only: every synchronous file call of src/core/sessions is a step of fileSteps.ts', () => {
    const sync = coreFiles(path.join(CORE, 'sessions'))
      .filter((f) => /\bfs\.\w+Sync\(/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(CORE, f));
    assert.deepEqual(sync, ['sessions/fileSteps.ts']);
  });
});

/** Every folder under src, as a path from the repository root ("src/core/agents"). */
function srcFolders(dir = path.join(ROOT, 'src')): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return [path.relative(ROOT, full).split(path.sep).join('/'), ...srcFolders(full)];
    });
}

/**
 * The folders and files the README's Code layout names, as paths from the repository root. In
 * its block a line that starts at the margin names a top-level path; a line indented two spaces
 * names, before its description (set off by two spaces or more), entries of the path above it.
 */
function codeLayout(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## Code layout$/m)[1]?.split(/^## /m)[0] ?? '';
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'the README has a Code layout block');
  const named: string[] = [];
  let parent = '';
  for (const line of block.split('\n')) {
    const names = (line.trim().split(/ {2,}/)[0] ?? '').split(/[\s,]+/).filter(Boolean);
    if (/^\S/.test(line)) {
      parent = names[0];
      named.push(parent);
    } else if (/^ {2}\S/.test(line) && parent.endsWith('/')) {
      named.push(...names.map((name) => `${parent}${name}`));
    }
  }
  return named;
}

/**
 * The paths docs/architecture.md cites in backticks: a word with a slash, or a file name. They
 * are read from the repository root or, on this page about the core, from src/core; a `*` stands
 * for any name.
 */
function citedPaths(doc: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, doc), 'utf8');
  return [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]).filter((word) => /^[\w.*-]+(\/[\w.*-]+)*\/?$/.test(word) && (word.includes('/') || /\.(ts|mjs|cjs|js|json|md)$/.test(word)));
}

function exists(cited: string, bases: readonly string[]): boolean {
  return bases.some((base) => {
    const full = path.join(base, cited);
    if (!cited.includes('*')) return fs.existsSync(full);
    const dir = path.dirname(full);
    const pattern = new RegExp(`^${path.basename(full).replace(/[.]/g, '\\.').replace(/\*/g, '.*')}$`);
    return fs.existsSync(dir) && fs.readdirSync(dir).some((name) => pattern.test(name));
  });
}

describe('the map of the house', () => {
  it("names every folder of src in the README's Code layout", () => {
    const layout = new Set(codeLayout().map((p) => p.replace(/\/$/, '')));
    assert.deepEqual(srcFolders().filter((folder) => !layout.has(folder)), []);
  });

  it("names in the README's Code layout only folders and files that exist", () => {
    assert.deepEqual(codeLayout().filter((p) => !fs.existsSync(path.join(ROOT, p))), []);
  });

  it('cites in docs/architecture.md only paths that exist', () => {
    const cited = citedPaths('docs/architecture.md');
    assert.ok(cited.length > 20, `the page cites its files (${cited.length} found)`);
    assert.deepEqual(cited.filter((p) => !exists(p, [ROOT, CORE])), []);
  });
});
