/**
 * The workspace tools on a large workspace. Run with `npx tsx bench/workspace.bench.ts`.
 * Prints figures (median of several warm runs) and ratios against a naive baseline measured in
 * the same run; asserts nothing.
 *
 *   search 10k     search_text for a rare string over a generated workspace of 10,000 text files
 *                  (plus 1,000 git-ignored ones): the naive baseline reads every file with
 *                  readFileSync and tests every line; the Node port scans with a small pool and
 *                  honours .gitignore; ripgrep is the editor's engine (ARBOR_RG, else the
 *                  code-server install in ARBOR_CODE_SERVER_DIR, else `rg` on PATH)
 *   list 10k       list_files "**\/*.ts": a naive recursive readdirSync against the port and ripgrep
 *   read 5 MB      read_file of a 5 MB file (the first page, then a page near the end): the naive
 *                  baseline numbers every line and then cuts the output to the cap
 *
 * ARBOR_BENCH_DIR=<folder> measures on another disk than the OS temp folder.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MAX_READ_CHARS } from '../src/core/tools';
import { numberedLines } from '../src/core/tools/workspaceToolRuns';
import { NodeWorkspace } from '../src/core/workspace';
import { ripgrepListFiles, ripgrepSearch } from '../src/core/workspace/workspaceFiles';

const FILES = 10_000;
const IGNORED = 1_000;
const RUNS = 5;
const NEEDLE = 'zqxNeedle42';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function measure(run: () => unknown): Promise<number> {
  await run(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  return median(times);
}

function findRipgrep(): string | undefined {
  const candidates = [
    process.env.ARBOR_RG,
    path.join(process.env.ARBOR_CODE_SERVER_DIR ?? '/work/cache/code-server', 'node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg'),
    'rg',
  ];
  for (const c of candidates) {
    if (!c) continue;
    try {
      execFileSync(c, ['--version'], { stdio: 'ignore' });
      return c;
    } catch {
      // next
    }
  }
  return undefined;
}

function sourceFile(i: number): string {
  const lines: string[] = [`// module ${i}`, `import { helper } from './helper${i % 7}';`];
  for (let f = 0; f < 30; f++) lines.push(`export function fn${i}_${f}(value: number): number {`, `  return helper(value * ${f}) + ${i};`, '}');
  if (i % 1_000 === 0) lines.push(`// ${NEEDLE}: a rare marker`);
  return lines.join('\n') + '\n';
}

function generate(root: string): void {
  fs.writeFileSync(path.join(root, '.gitignore'), 'build/\n');
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(root, 'src', `pkg${Math.floor(i / 100)}`);
    if (i % 100 === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `module${i}.ts`), sourceFile(i));
  }
  fs.mkdirSync(path.join(root, 'build'), { recursive: true });
  for (let i = 0; i < IGNORED; i++) fs.writeFileSync(path.join(root, 'build', `out${i}.js`), sourceFile(i));
}

/** The baseline: walk everything, readFileSync every file, test every line. */
function naiveSearch(root: string, needle: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else {
        const lines = fs.readFileSync(p, 'utf8').split('\n');
        lines.forEach((line, n) => {
          if (line.toLowerCase().includes(needle.toLowerCase())) out.push(`${path.relative(root, p)}:${n + 1}:${line}`);
        });
      }
    }
  };
  walk(root);
  return out;
}

function naiveList(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) out.push(path.relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

/** The baseline read: number every line of the file, then cut the output to the cap. */
function naiveRead(file: string): string {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  return lines.map((l, i) => `${i + 1}\t${l}`).join('\n').slice(0, MAX_READ_CHARS);
}

async function main(): Promise<void> {
  const base = process.env.ARBOR_BENCH_DIR ?? os.tmpdir();
  const root = fs.mkdtempSync(path.join(base, 'arbor-bench-ws-'));
  const rg = findRipgrep();
  try {
    const t0 = performance.now();
    generate(root);
    console.log(`workspace: ${FILES} files + ${IGNORED} git-ignored, generated in ${(performance.now() - t0).toFixed(0)} ms; ripgrep: ${rg ?? 'not found'}`);
    const ws = new NodeWorkspace({ folders: [root] });
    const query = { pattern: NEEDLE, isRegex: false, caseSensitive: false, limit: 100 };

    const found = await ws.searchText(query);
    console.log(`search finds ${found.matches.length} matches (naive baseline: ${naiveSearch(root, NEEDLE).length}, it also reads the ignored files)`);
    const naive = await measure(() => naiveSearch(root, NEEDLE));
    const port = await measure(() => ws.searchText(query));
    console.log(`search 10k   naive readFileSync ${naive.toFixed(0)} ms | Node port ${port.toFixed(0)} ms (${(naive / port).toFixed(2)}x)`);
    if (rg) {
      const viaRg = await measure(() => ripgrepSearch(rg, { folders: [root], exclude: [] }, query));
      console.log(`             ripgrep (the editor's engine) ${viaRg.toFixed(0)} ms (${(naive / viaRg).toFixed(1)}x faster than naive)`);
    }

    const listNaive = await measure(() => naiveList(root));
    const listPort = await measure(() => ws.listFiles({ glob: '**/*.ts', limit: 2_000 }));
    let line = `list 10k     naive readdirSync ${listNaive.toFixed(0)} ms | Node port ${listPort.toFixed(0)} ms (${(listNaive / listPort).toFixed(2)}x)`;
    if (rg) {
      const listRg = await measure(() => ripgrepListFiles(rg, { folders: [root], exclude: [] }, '**/*.ts', 2_000));
      line += ` | ripgrep ${listRg.toFixed(0)} ms (${(listNaive / listRg).toFixed(2)}x)`;
    }
    console.log(line);

    const big = path.join(root, 'big.log');
    const bigLine = 'INFO 2026-01-01T00:00:00Z request handled in 12 ms by worker 7 for /api/items?page=3\n';
    fs.writeFileSync(big, bigLine.repeat(Math.ceil((5 * 1024 * 1024) / bigLine.length)));
    const size = fs.statSync(big).size;
    const target = await ws.resolve('big.log');
    const total = fs.readFileSync(big, 'utf8').split('\n').length - 1;
    const readNaive = await measure(() => naiveRead(big));
    const readFirst = await measure(async () => numberedLines(target.relative, (await ws.readText(target)).text, 'disk'));
    const readEnd = await measure(async () => numberedLines(target.relative, (await ws.readText(target)).text, 'disk', total - 500, total));
    console.log(
      `read 5 MB    (${(size / 1024 / 1024).toFixed(1)} MB, ${total} lines) naive number-all ${readNaive.toFixed(1)} ms | ` +
        `read_file first page ${readFirst.toFixed(1)} ms (${(readNaive / readFirst).toFixed(2)}x) | last 500 lines ${readEnd.toFixed(1)} ms (${(readNaive / readEnd).toFixed(2)}x)`,
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

void main();
