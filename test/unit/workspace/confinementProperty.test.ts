import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { ArborError } from '../../../src/core/errors';
import { MemoryApprovalRuleStore } from '../../../src/core/interaction';
import { Runtime } from '../../../src/core/runtime';
import { NodeWorkspace, resolveWorkspacePath, type WorkspacePath } from '../../../src/core/workspace';
import { ConfinedFiles } from '../../../src/core/workspace/confinedFs';
import { recordingModel, toolResults, until } from '../../support/runtimeFixture';

/**
 * Issue 26, as properties: whatever the spelling of a path and whatever the links around it, the
 * workspace port never reads or writes outside the workspace, and fails only with typed errors;
 * and a process flipping links while the tools work gets nothing read or written outside.
 */

const SECRET = 'TOP SECRET';

/** Where each place in the workspace may be, and what a link there points to. */
const PLACES = ['a', 'b', 'src/c', 'src/d'] as const;
const TARGETS = ['src', 'a', 'b', 'src/c', 'nowhere', 'src/nowhere/deeper', 'OUT', 'OUT/f', 'OUT/missing', 'OUT/deep/missing', 'OUT/back', 'OUT/back/c', 'SELF'] as const;
type Entry = { kind: 'dir' | 'file' | 'missing' } | { kind: 'link'; target: (typeof TARGETS)[number]; absolute: boolean };

const entry: fc.Arbitrary<Entry> = fc.oneof(
  fc.constantFrom<Entry>({ kind: 'dir' }, { kind: 'file' }, { kind: 'missing' }),
  fc.record({ kind: fc.constant('link' as const), target: fc.constantFrom(...TARGETS), absolute: fc.boolean() }),
);
const layout = fc.tuple(...PLACES.map(() => entry));
const NAMES = ['a', 'b', 'src', 'c', 'd', 'f', 'new', 'nowhere', '..', '.', 'back'];
const spelling = fc.record({
  prefix: fc.constantFrom('', './', 'src/../', 'ABS/', 'src/./../'),
  names: fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 4 }),
  trailing: fc.constantFrom('', '/'),
});

/** A fresh base holding `ws` (the layout) and `out` (a secret file, and a link back into ws/src). */
function build(entries: readonly Entry[]): { base: string; ws: string; out: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-prop-')));
  const ws = path.join(base, 'ws');
  const out = path.join(base, 'out');
  fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
  fs.mkdirSync(out);
  fs.writeFileSync(path.join(out, 'f'), `${SECRET}\n`);
  fs.symlinkSync(path.join(ws, 'src'), path.join(out, 'back'));
  PLACES.forEach((place, i) => {
    const at = path.join(ws, place);
    const e = entries[i];
    if (e.kind === 'dir') {
      fs.mkdirSync(at);
      fs.writeFileSync(path.join(at, 'f'), 'inside\n');
    } else if (e.kind === 'file') {
      fs.writeFileSync(at, 'inside\n');
    } else if (e.kind === 'link') {
      const target = e.target === 'SELF' ? at : e.target.startsWith('OUT') ? path.join(out, e.target.slice(3)) : path.join(ws, e.target);
      fs.symlinkSync(e.absolute ? target : path.relative(path.dirname(at), target) || '.', at);
    }
  });
  return { base, ws, out };
}

/** Every path under `dir` with its content (a link as its target), links not followed. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const stat = fs.lstatSync(p);
      if (stat.isSymbolicLink()) out.push(`${p} -> ${fs.readlinkSync(p)}`);
      else if (stat.isDirectory()) walk(p);
      else out.push(`${p}: ${fs.readFileSync(p, 'utf8')}`);
    }
  };
  walk(dir);
  return out;
}

interface Port {
  resolve(p: string): Promise<WorkspacePath>;
  read(p: WorkspacePath): Promise<string>;
  exists(p: WorkspacePath): Promise<boolean>;
  write(p: WorkspacePath, text: string, expected?: string | null): Promise<void>;
}

function nodePort(ws: string): Port {
  const port = new NodeWorkspace({ folders: [ws] });
  return {
    resolve: (p) => port.resolve(p),
    read: async (p) => (await port.readText(p)).text,
    exists: (p) => port.exists(p),
    write: (p, text, expected) => port.writeText(p, text, { expected }),
  };
}

/** The check-then-use walk of the platforms without /proc, on the same layouts. */
function checkedPort(ws: string): Port {
  const files = new ConfinedFiles({ pinned: false });
  return {
    resolve: (p) => resolveWorkspacePath([ws], p),
    read: async (p) => (await files.readFile(p, 1_000_000)).toString('utf8'),
    exists: (p) => files.exists(p),
    write: (p, text, expected) => files.writeText(p, text, expected),
  };
}

/** Runs one operation; only typed errors may come out of it. */
async function typed(op: () => Promise<unknown>): Promise<void> {
  try {
    await op();
  } catch (err) {
    if (!(err instanceof ArborError)) throw new Error(`untyped failure: ${String(err)}`);
  }
}

for (const [mode, makePort] of [['Linux, each folder held open', nodePort], ['check-then-use fallback', checkedPort]] as const) {
  describe(`confinement property (${mode}): spellings × symlink layouts`, () => {
    it('reads, creates, edits and overwrites never touch or reveal anything outside, and fail only with typed errors', async function () {
      this.timeout(60_000);
      await fc.assert(
        fc.asyncProperty(layout, spelling, async (entries, spelt) => {
          const { base, ws, out } = build(entries);
          try {
            const before = snapshot(out);
            const written = `${spelt.prefix.replace('ABS/', `${ws}/`)}${spelt.names.join('/')}${spelt.trailing}`;
            const port = makePort(ws);
            let resolved: WorkspacePath | undefined;
            await typed(async () => (resolved = await port.resolve(written)));
            if (resolved) {
              const p = resolved;
              await typed(async () => assert.ok(!(await port.read(p)).includes(SECRET), `${written} revealed the secret`));
              await typed(() => port.exists(p));
              await typed(() => port.write(p, 'created\n', null));
              await typed(() => port.write(p, 'edited\n', 'created\n'));
              await typed(() => port.write(p, 'edited\n', `${SECRET}\n`));
              await typed(() => port.write(p, 'overwritten\n'));
            }
            assert.deepEqual(snapshot(out), before, `${written} changed something outside`);
          } finally {
            fs.rmSync(base, { recursive: true, force: true });
          }
        }),
        { numRuns: 150 },
      );
    });

    it('a path that leads only through real folders inside is never refused', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.constantFrom('x', 'y', 'z'), { minLength: 1, maxLength: 3 }), async (names) => {
          const { base, ws } = build([{ kind: 'dir' }, { kind: 'dir' }, { kind: 'missing' }, { kind: 'missing' }]);
          try {
            const port = makePort(ws);
            const p = await port.resolve(`a/${names.join('/')}.txt`);
            await port.write(p, 'ok\n', null);
            assert.equal(await port.read(await port.resolve(`./src/../a/${names.join('/')}.txt`)), 'ok\n');
          } finally {
            fs.rmSync(base, { recursive: true, force: true });
          }
        }),
        { numRuns: 20 },
      );
    });
  });
}

describe('confinement under a race: another process flips links while the tools work', function () {
  this.timeout(60_000);
  let base: string;
  let ws: string;
  let out: string;
  beforeEach(function () {
    // The guarantee under a race holds where each folder is held open (Linux with /proc).
    if (process.platform !== 'linux' || !fs.existsSync('/proc/self/fd')) this.skip();
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-race-')));
    ws = path.join(base, 'ws');
    out = path.join(base, 'outside');
    fs.mkdirSync(path.join(ws, 'race1'), { recursive: true });
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(ws, 'race1', 'f.txt'), 'original\n');
    fs.writeFileSync(path.join(out, 'f.txt'), `${SECRET} original\n`);
  });
  afterEach(() => base && fs.rmSync(base, { recursive: true, force: true }));

  it('under "edit: **" unattended, creates, edits and reads through race1 never write outside nor return the outside secret', async () => {
    const flipper = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, '..', '..', 'support', 'linkFlipper.ts'), ws, out, 'race1', 'f.txt'], {
      cwd: path.join(__dirname, '..', '..', '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let flips = 0;
    flipper.stdout.on('data', (d: Buffer) => (flips = Number(d.toString().trim().split('\n').pop())));
    const exited = new Promise((resolve) => flipper.on('exit', resolve));
    const results: Array<{ name: string; content: string }> = [];
    try {
      await until(() => flips >= 20, 'the flipper to be under way', 30_000);
      const flipsAtStart = flips;
      // Rounds of calls until both sides did enough: many operations, and many flips during them.
      const deadline = Date.now() + 40_000;
      for (let round = 0; results.length < 600 || flips - flipsAtStart < 100; round++) {
        if (Date.now() > deadline) assert.fail(`the race did not get going: ${results.length} calls, ${flips - flipsAtStart} flips`);
        results.push(...(await raceRound(ws, round)));
      }
    } finally {
      flipper.kill();
      await exited;
    }
    assert.deepEqual(fs.readdirSync(out), ['f.txt'], 'nothing was created outside');
    assert.equal(fs.readFileSync(path.join(out, 'f.txt'), 'utf8'), `${SECRET} original\n`, 'the outside file was not rewritten');
    const leaked = results.filter((r) => r.content.includes(SECRET));
    assert.deepEqual(leaked, [], 'no result revealed the outside secret');
  });
});

/** One unattended turn of reads, creates and edits through race1, under the rule "edit: **". */
async function raceRound(ws: string, round: number): Promise<Array<{ name: string; content: string }>> {
  const calls = [];
  for (let i = 0; i < 15; i++) {
    calls.push({ name: 'read_file', arguments: { path: 'race1/f.txt' } });
    calls.push({ name: 'create_file', arguments: { path: `race1/new-${round}-${i}.txt`, content: 'created\n' } });
    const [from, to] = i % 2 === 0 ? ['original', 'changed'] : ['changed', 'original'];
    calls.push({ name: 'edit_file', arguments: { path: 'race1/f.txt', old_text: from, new_text: to } });
  }
  const { model } = recordingModel({ version: 1, agents: { main: { turns: [[{ toolCalls: calls }, { text: 'done' }]] } } });
  const rules = new MemoryApprovalRuleStore([{ kind: 'edit', pattern: '**', scope: 'workspace' }]);
  const runtime = new Runtime({ model, workspace: ws, approvalRules: rules, runaway: { sameCallRepeats: 0, stepsWithoutChange: 0 } });
  const root = runtime.startRoot({ prompt: 'go', label: 'main', context: { nonInteractive: true } });
  await root.whenIdle();
  const results = toolResults(root);
  await runtime.dispose();
  return results;
}
