import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ExternalAgentClient } from '../../../src/core/external/clientServices';
import { APPROVAL_OPTIONS, MemoryApprovalRuleStore, parseApprovalRule, ruleForSubject, ruleMatches, type ApprovalRule, type InteractionPrompt } from '../../../src/core/interaction';
import { Runtime } from '../../../src/core/runtime';
import { isArborError } from '../../../src/core/errors';
import { NodeWorkspace, resolveWorkspacePath } from '../../../src/core/workspace';
import { approver, reasons, recordingModel, toolResults } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';

/**
 * Issue 26: every path is confined by its REAL location at the moment it is used, not by how it
 * is spelled. One `describe` per symptom; each test failed on the code before the fix.
 * (Spellings × layouts and a process flipping links: confinementProperty.test.ts.)
 */

type Call = { name: string; arguments: Record<string, unknown> };

interface PlayOptions {
  rules?: string[];
  unattended?: boolean;
  choice?: string;
  onAsk?: (p: InteractionPrompt) => void;
}

let base: string;
let ws: string;
let outside: string;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-confine-')));
  ws = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET\n');
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

/** One root turn making these calls one after the other; its parsed results, prompts and rules. */
async function play(calls: Call[], options: PlayOptions = {}) {
  const { model } = recordingModel({ version: 1, agents: { main: { turns: [[...calls.map((c) => ({ toolCalls: [c] })), { text: 'done' }]] } } });
  const rules = new MemoryApprovalRuleStore((options.rules ?? []).map(rule));
  const runtime = new Runtime({ model, workspace: ws, approvalRules: rules });
  const { prompts, provider } = approver(options.choice ?? APPROVAL_OPTIONS.once, options.onAsk);
  runtime.interaction.registerProvider(provider);
  const root = runtime.startRoot({ prompt: 'go', label: 'main', context: options.unattended ? { nonInteractive: true } : undefined });
  await root.whenIdle();
  const results = toolResults(root).map((r) => JSON.parse(r.content) as Record<string, unknown>);
  const ended = reasons(root);
  await runtime.dispose();
  return { results, prompts, rules, ended };
}

function rule(text: string): ApprovalRule {
  const parsed = parseApprovalRule(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return { ...parsed.rule, scope: 'workspace' };
}

const create = (p: string, content = 'x\n'): Call => ({ name: 'create_file', arguments: { path: p, content } });
const outsideNames = (): string[] => fs.readdirSync(outside).sort();

describe('confinement 1: a dangling symlink cannot carry a write outside', () => {
  const track = disposeAfterEach();
  it('create_file through a dangling link, however it is spelled, is refused and writes nothing outside', async () => {
    fs.symlinkSync('../outside/new.txt', path.join(ws, 'dangling'));
    fs.symlinkSync('chain2', path.join(ws, 'chain1'));
    fs.symlinkSync(path.join(outside, 'chained.txt'), path.join(ws, 'chain2'));
    fs.symlinkSync('../../outside/later', path.join(ws, 'src', 'dir-link'));
    const spellings = ['dangling', './dangling', 'src/../dangling', 'src/./../dangling', path.join(ws, 'dangling'), 'chain1', './src/../chain1', 'src/dir-link/new.txt'];
    const { results, ended } = await play(spellings.map((s) => create(s)), { rules: ['edit: **'], unattended: true });
    assert.deepEqual(ended, ['completed']);
    assert.deepEqual(results.map((r) => r.code), spellings.map(() => 'PATH_OUTSIDE_WORKSPACE'));
    assert.deepEqual(outsideNames(), ['secret.txt']);
  });

  it('an external agent\'s fs/write_text_file through a dangling link is refused the same way', async () => {
    fs.symlinkSync('../outside/new.txt', path.join(ws, 'dangling'));
    const { model } = recordingModel({ version: 1, agents: { main: { turns: [[{ text: 'idle' }]] } } });
    const runtime = new Runtime({ model, workspace: ws, approvalRules: new MemoryApprovalRuleStore([rule('edit: **')]) });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    await agent.whenIdle();
    const client = new ExternalAgentClient(agent, { approvals: runtime.approvals, changes: runtime.changes, workspace: () => runtime.workspace }, () => undefined);
    for (const spelling of ['dangling', './dangling', 'src/../dangling']) {
      await assert.rejects(client.writeTextFile({ sessionId: 's', path: spelling, content: 'pwned\n' }, new AbortController().signal), (e: unknown) => isArborError(e, 'PATH_OUTSIDE_WORKSPACE'));
    }
    assert.deepEqual(outsideNames(), ['secret.txt']);
  });

  it('a dangling link that stays inside is followed to its real target, and the result names that target', async () => {
    fs.symlinkSync('src/made-later.txt', path.join(ws, 'inside-dangling'));
    const { results } = await play([create('inside-dangling', 'hi\n')], { rules: ['edit: **'], unattended: true });
    assert.deepEqual(results[0], { status: 'created', path: 'src/made-later.txt', lines: 1 });
    assert.equal(fs.readFileSync(path.join(ws, 'src', 'made-later.txt'), 'utf8'), 'hi\n');
  });
});

describe('confinement 3: a path swapped while the approval prompt is open', () => {
  it('create_file: the folder becomes a link to outside while the prompt is open; Allow once writes nothing anywhere', async () => {
    fs.mkdirSync(path.join(ws, 'race1'));
    const { results, prompts } = await play([create('race1/new.txt')], {
      onAsk: () => {
        fs.renameSync(path.join(ws, 'race1'), path.join(ws, 'stash'));
        fs.symlinkSync(outside, path.join(ws, 'race1'));
      },
    });
    assert.equal(prompts.length, 1, 'the human was asked, and allowed it');
    assert.equal(results[0].code, 'PATH_OUTSIDE_WORKSPACE');
    assert.deepEqual(outsideNames(), ['secret.txt']);
    assert.deepEqual(fs.readdirSync(path.join(ws, 'stash')), [], 'nor in the folder that was checked');
  });

  it('edit_file: the file is swapped for a link to an outside file with the same text; the outside file is not rewritten', async () => {
    fs.writeFileSync(path.join(ws, 'src', 'config.txt'), 'mode = safe\n');
    fs.writeFileSync(path.join(outside, 'config.txt'), 'mode = safe\n');
    const { results } = await play([{ name: 'edit_file', arguments: { path: 'src/config.txt', old_text: 'safe', new_text: 'open' } }], {
      onAsk: () => {
        fs.rmSync(path.join(ws, 'src', 'config.txt'));
        fs.symlinkSync(path.join(outside, 'config.txt'), path.join(ws, 'src', 'config.txt'));
      },
    });
    assert.equal(results[0].code, 'PATH_OUTSIDE_WORKSPACE');
    assert.equal(fs.readFileSync(path.join(outside, 'config.txt'), 'utf8'), 'mode = safe\n');
  });

  it('create_file: a file another process creates while the prompt is open is not overwritten (FILE_EXISTS)', async () => {
    const { results } = await play([create('src/new.txt', 'from the agent\n')], {
      onAsk: () => fs.writeFileSync(path.join(ws, 'src', 'new.txt'), 'from the user\n'),
    });
    assert.equal(results[0].code, 'FILE_EXISTS');
    assert.equal(fs.readFileSync(path.join(ws, 'src', 'new.txt'), 'utf8'), 'from the user\n');
  });
});

describe('confinement 4: a symlink inside the workspace does not widen an edit rule', () => {
  it('under "edit: src/**", src/hooks -> ../.git/hooks and src/cfg -> ../.vscode are asked about by their real paths, so an unattended run is denied', async () => {
    fs.mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
    fs.mkdirSync(path.join(ws, '.vscode'));
    fs.symlinkSync('../.git/hooks', path.join(ws, 'src', 'hooks'));
    fs.symlinkSync('../.vscode', path.join(ws, 'src', 'cfg'));
    const { results, prompts } = await play([create('src/hooks/pre-commit', '#!/bin/sh\n'), create('src/cfg/tasks.json', '{}\n'), create('src/ok.ts')], {
      rules: ['edit: src/**'],
      unattended: true,
    });
    assert.equal(prompts.length, 0);
    assert.deepEqual(results.map((r) => [r.code ?? r.status, r.subject ?? r.path]), [
      ['APPROVAL_DENIED', '.git/hooks/pre-commit'],
      ['APPROVAL_DENIED', '.vscode/tasks.json'],
      ['created', 'src/ok.ts'],
    ]);
    assert.equal(fs.existsSync(path.join(ws, '.git', 'hooks', 'pre-commit')), false);
    assert.equal(fs.existsSync(path.join(ws, '.vscode', 'tasks.json')), false);
  });

  it('an interactive prompt shows the real path, and the rule it offers names the real path', async () => {
    fs.mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
    fs.symlinkSync('../.git/hooks', path.join(ws, 'src', 'hooks'));
    const { prompts } = await play([create('src/hooks/pre-commit')], { choice: APPROVAL_OPTIONS.deny });
    assert.match(prompts[0].detail ?? '', /\+\+\+ b\/\.git\/hooks\/pre-commit/);
    assert.ok(prompts[0].questions[0].options.some((o) => o.description?.includes('"edit: .git/hooks/pre-commit"')));
  });
});

describe('confinement 5: run_command\'s cwd is confined by where it really leads', () => {
  it('cwd "out-link" with out-link -> .. is refused under a matching rule, and the command never runs', async () => {
    fs.symlinkSync('..', path.join(ws, 'out-link'));
    const run = { name: 'run_command', arguments: { command: 'touch ran-here', cwd: 'out-link' } };
    const { results } = await play([run], { rules: ['command: touch ran-here'], unattended: true });
    assert.equal(results[0].code, 'PATH_OUTSIDE_WORKSPACE');
    assert.equal(fs.existsSync(path.join(base, 'ran-here')), false);
  });

  it('a cwd link that stays inside runs the command in the real folder', async () => {
    fs.symlinkSync('src', path.join(ws, 'in-link'));
    const run = { name: 'run_command', arguments: { command: 'pwd', cwd: 'in-link' } };
    const { results } = await play([run], { rules: ['command: pwd'], unattended: true });
    assert.equal(String(results[0].output).trim(), path.join(ws, 'src'));
  });
});

describe('confinement 6: a backslash is a character of a name on Linux and macOS, never a separator', function () {
  before(function () {
    if (path.sep === '\\') this.skip();
  });

  it('"edit: src/**" does not cover the top-level file src\\evil.ts: an unattended create_file is denied', async () => {
    const { results } = await play([create('src\\evil.ts')], { rules: ['edit: src/**'], unattended: true });
    assert.equal(results[0].code, 'APPROVAL_DENIED');
    assert.equal(results[0].subject, 'src\\evil.ts');
    assert.deepEqual(fs.readdirSync(ws).sort(), ['src']);
    assert.equal(ruleMatches(rule('edit: src/**'), 'edit-file', 'src\\x'), false);
  });

  it('"Allow for this workspace" on src/a\\b.ts offers no rule, so nothing can later allow src/a/b.ts', async () => {
    const { prompts, rules } = await play([create('src/a\\b.ts')]);
    const labels = prompts[0].questions[0].options.map((o) => o.label);
    assert.ok(!labels.includes(APPROVAL_OPTIONS.workspace), `offered: ${labels.join(', ')}`);
    assert.deepEqual(rules.rules(), []);
    assert.equal(ruleForSubject('edit-file', 'src/a\\b.ts'), undefined);
    assert.equal(fs.readFileSync(path.join(ws, 'src', 'a\\b.ts'), 'utf8'), 'x\n', 'Allow once wrote the file of that name');
  });

  it('a glob rule cannot name a backslash: such a rule is refused when written and allows nothing if stored', () => {
    assert.equal(parseApprovalRule('edit: src/a\\\\b.ts').ok, false);
    // picomatch collapses runs of escaped backslashes and loops forever on this one.
    assert.equal(ruleMatches({ kind: 'edit', pattern: 'x\\(\\!\\\\\\\\' }, 'edit-file', 'x(!\\\\'), false);
  });

  it('in a multi-root workspace only the separator splits off a folder name', async () => {
    const second = path.join(base, 'second');
    fs.mkdirSync(second);
    const p = await resolveWorkspacePath([ws, second], 'second\\x.txt');
    assert.equal(p.absolute, path.join(ws, 'second\\x.txt'));
    assert.equal((await resolveWorkspacePath([ws, second], 'second/x.txt')).absolute, path.join(second, 'x.txt'));
  });
});

describe('confinement 7: file system failures are typed errors naming the path', () => {
  it('create_file under a file, through a loop of links, with a name too long: PATH_INVALID, and the turn goes on', async () => {
    fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
    fs.symlinkSync('loop', path.join(ws, 'loop'));
    const long = `${'n'.repeat(300)}.txt`;
    const { results, ended } = await play([create('a.txt/new.txt'), create('loop/new.txt'), create('loop'), create(long)], { rules: ['edit: **'], unattended: true });
    assert.deepEqual(ended, ['completed']);
    assert.deepEqual(results.map((r) => r.code), ['PATH_INVALID', 'PATH_INVALID', 'PATH_INVALID', 'PATH_INVALID']);
    for (const r of results) assert.doesNotMatch(String(r.message), new RegExp(base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'no absolute path leaks');
  });

  it('create_file under a dangling folder link inside the workspace creates the real folder, typed either way', async () => {
    fs.symlinkSync('made/later', path.join(ws, 'dir-link'));
    const { results } = await play([create('dir-link/new.txt')], { rules: ['edit: **'], unattended: true });
    assert.deepEqual(results[0], { status: 'created', path: 'made/later/new.txt', lines: 1 });
  });

  it('the port maps what the system says to typed errors (ENOTDIR, EISDIR, EEXIST)', async () => {
    const port = new NodeWorkspace({ folders: [ws] });
    fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
    const file = await port.resolve('a.txt');
    fs.rmSync(path.join(ws, 'a.txt'));
    fs.mkdirSync(path.join(ws, 'a.txt'));
    await assert.rejects(port.writeText(file, 'x'), (e: unknown) => isArborError(e, 'PATH_INVALID'));
    await assert.rejects(port.writeText(file, 'x', { expected: null }), (e: unknown) => isArborError(e, 'FILE_EXISTS'));
    await assert.rejects(port.readText(file), (e: unknown) => isArborError(e, 'FILE_NOT_FOUND'));
  });
});

describe('confinement 12: edit and create denials are the structured APPROVAL_DENIED', () => {
  it('an unattended edit_file and create_file are denied with code, action, subject, reason and the rule that would allow them', async () => {
    fs.writeFileSync(path.join(ws, 'src', 'a.ts'), 'let a = 1;\n');
    const { results } = await play([{ name: 'edit_file', arguments: { path: 'src/a.ts', old_text: '1', new_text: '2' } }, create('src/b.ts')], { unattended: true });
    for (const [result, subject] of [[results[0], 'src/a.ts'], [results[1], 'src/b.ts']] as const) {
      assert.equal(result.status, 'denied');
      assert.equal(result.code, 'APPROVAL_DENIED');
      assert.equal(result.action, 'edit-file');
      assert.equal(result.subject, subject);
      assert.match(String(result.reason), /unattended/);
      assert.equal(result.rule_that_would_allow, `edit: ${subject}`);
    }
    assert.equal(fs.readFileSync(path.join(ws, 'src', 'a.ts'), 'utf8'), 'let a = 1;\n');
  });
});
