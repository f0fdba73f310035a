import * as assert from 'assert';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryApprovalRuleStore, type InteractionPrompt } from '../../../src/core/interaction';
import { Runtime } from '../../../src/core/runtime';
import { CommandSandbox, DEFAULT_SANDBOX_SETTINGS, type SandboxAvailability, type SandboxSettings } from '../../../src/core/sandbox';
import type { Answer } from '../../../src/core/sessions/types';
import { NodeWorkspace } from '../../../src/core/workspace';
import { reasons, recordingModel, toolResults, until } from '../../support/runtimeFixture';
import { makePlace, marked, removePlace, requireSandbox, type SandboxPlace } from './sandboxFixture';

const run = (command: string) => ({ name: 'run_command', arguments: { command } });

function runtimeWith(place: SandboxPlace, commands: string[], settings: Partial<SandboxSettings>, options: { availability?: () => Promise<SandboxAvailability>; rules?: string[] } = {}) {
  const { model } = recordingModel({ version: 1, agents: { main: { turns: [[...commands.map((c) => ({ toolCalls: [run(c)] })), { text: 'ok' }]] } } });
  const sandbox = new CommandSandbox({ settings: { ...DEFAULT_SANDBOX_SETTINGS, ...settings }, denyRead: [place.secrets], availability: options.availability });
  const approvalRules = new MemoryApprovalRuleStore((options.rules ?? []).map((pattern) => ({ kind: 'command' as const, pattern, scope: 'setting' as const })));
  let n = 0;
  const runtime = new Runtime({ model, workspace: place.workspace, sandbox, approvalRules, newId: (label) => `${label}#${++n}` });
  const prompts: InteractionPrompt[] = [];
  runtime.interaction.registerProvider({ ask: async (p: InteractionPrompt): Promise<Answer[]> => (prompts.push(p), [{ id: p.questions[0].id, selected: ['Allow once'] }]) });
  return { runtime, prompts };
}

const result = (agent: Parameters<typeof toolResults>[0], i = 0): Record<string, unknown> => JSON.parse(toolResults(agent)[i].content) as Record<string, unknown>;
const noSandbox = async (): Promise<SandboxAvailability> => ({ ok: false, missing: 'bubblewrap (bwrap) not found on PATH: install bubblewrap and socat (Debian, Ubuntu: sudo apt install bubblewrap socat)' });

describe('run_command and the sandbox mode', function () {
  this.timeout(30_000);
  let place: SandboxPlace;
  beforeEach(() => (place = makePlace()));
  afterEach(() => removePlace(place));

  it('required, without a sandbox: nothing runs, nobody is asked, and the error says what to install', async () => {
    const { runtime, prompts } = runtimeWith(place, ['touch ran.txt'], { mode: 'required' }, { availability: noSandbox });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    const content = toolResults(root)[0].content;
    assert.match(content, /SANDBOX_UNAVAILABLE/);
    assert.match(content, /apt install bubblewrap socat/);
    assert.strictEqual(prompts.length, 0);
    assert.strictEqual(fs.existsSync(path.join(place.workspace, 'ran.txt')), false);
    await runtime.dispose();
  });

  it('preferred, without a sandbox: the prompt and the result say plainly that it ran unsandboxed', async () => {
    const { runtime, prompts } = runtimeWith(place, ['touch ran.txt'], { mode: 'preferred' }, { availability: noSandbox });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.match(prompts[0].detail ?? '', /Runs unsandboxed, with all of your rights: this machine has no sandbox/);
    assert.match(String(result(root).sandbox), /^unsandboxed: this machine has no sandbox/);
    assert.ok(fs.existsSync(path.join(place.workspace, 'ran.txt')));
    await runtime.dispose();
  });

  it('autoAllow does not open a command that would run unsandboxed', async () => {
    const { runtime, prompts } = runtimeWith(place, ['true'], { mode: 'preferred', autoAllow: true }, { availability: noSandbox });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.strictEqual(prompts.length, 1, 'asked, since nothing bounds it');
    await runtime.dispose();
  });
});

describe('run_command in the sandbox (Linux, bubblewrap)', function () {
  this.timeout(30_000);
  requireSandbox();
  let place: SandboxPlace;
  beforeEach(() => (place = makePlace()));
  afterEach(() => removePlace(place));

  it('the prompt says it runs sandboxed and what it may touch; the result names the path it could not write', async () => {
    const { runtime, prompts } = runtimeWith(place, [`echo x > ${place.marker}; touch ok.txt`], { mode: 'preferred' });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    const detail = prompts[0].detail ?? '';
    assert.match(detail, new RegExp(`^echo x > \\S+ touch ok.txt \u2014 Runs sandboxed: writes only in ${place.workspace} and its own /tmp; cannot read ~/.ssh, ~/.aws, ~/.config/gh, 9 more secret stores or the editor's storage; network: none, loopback closed; secret-looking variables withheld\\.$`));
    assert.match(prompts[0].questions[0].question, /Runs sandboxed: writes only in/, 'the question itself says so');
    const r = result(root);
    assert.match(String(r.sandbox), /^sandboxed: writes only in/);
    assert.deepStrictEqual(r.blocked_paths, [place.marker]);
    assert.strictEqual(fs.readFileSync(place.marker, 'utf8'), 'original\n');
    assert.ok(fs.existsSync(path.join(place.workspace, 'ok.txt')));
    await runtime.dispose();
  });

  it('autoAllow runs a sandboxed command without asking, in an unattended run too, and records why', async () => {
    const { runtime, prompts } = runtimeWith(place, ['touch auto.txt'], { mode: 'preferred', autoAllow: true });
    const root = runtime.startRoot({ prompt: 'go', label: 'main', context: { interactionMode: 'scheduled' } });
    await root.whenIdle();
    assert.strictEqual(prompts.length, 0);
    assert.ok(fs.existsSync(path.join(place.workspace, 'auto.txt')));
    const approval = root.log.events.find((e) => e.type === 'approval');
    assert.ok(approval && approval.type === 'approval' && /arbor\.sandbox\.autoAllow/.test(approval.reason));
    await runtime.dispose();
  });

  it('Stop ends the sandboxed process tree', async () => {
    const mark = randomUUID();
    const { runtime } = runtimeWith(place, [`export ARBOR_TEST_MARK=${mark}; (trap '' TERM; sleep 987) & sleep 986 & touch started; wait; touch late.txt`], { mode: 'preferred' }, { rules: ['*'] });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => fs.existsSync(path.join(place.workspace, 'started')), 'the command to start', 20_000);
    // Each background job shows the mark once its sleep has started (a forked shell still shows the environment it was started with).
    await until(() => marked(mark).length >= 2, 'its processes to be found by their mark', 20_000);
    runtime.stop(root);
    await root.whenIdle();
    assert.deepStrictEqual(reasons(root), ['aborted:user']);
    await until(() => marked(mark).length === 0, 'every process of the command to end', 20_000);
    assert.strictEqual(fs.existsSync(path.join(place.workspace, 'late.txt')), false);
    await runtime.dispose();
  });

  it('a timeout ends the sandboxed process tree, also a process that ignores SIGTERM', async () => {
    const mark = randomUUID();
    const { model } = recordingModel({ version: 1, agents: { main: { turns: [[{ toolCalls: [{ name: 'run_command', arguments: { command: `export ARBOR_TEST_MARK=${mark}; (trap '' TERM; sleep 987) & sleep 986; touch late.txt`, timeout_seconds: 1 } }] }, { text: 'ok' }]] } } });
    const sandbox = new CommandSandbox({ settings: DEFAULT_SANDBOX_SETTINGS, denyRead: [place.secrets] });
    const runtime = new Runtime({ model, workspace: place.workspace, sandbox, approvalRules: new MemoryApprovalRuleStore([{ kind: 'command', pattern: '*', scope: 'setting' }]) });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.strictEqual(result(root).status, 'timed-out');
    await until(() => marked(mark).length === 0, 'every process of the command to end', 20_000);
    assert.strictEqual(fs.existsSync(path.join(place.workspace, 'late.txt')), false);
    await runtime.dispose();
  });

  it('a worktree agent\'s command writes only in its worktree, not in the workspace', async () => {
    const worktree = path.join(place.root, 'worktree');
    fs.mkdirSync(worktree);
    const { runtime } = runtimeWith(place, [`touch in-worktree.txt; touch ${place.workspace}/in-workspace.txt`], { mode: 'preferred' }, { rules: ['*'] });
    const root = runtime.startRoot({ prompt: 'go', label: 'main', workspace: { folder: worktree, files: new NodeWorkspace({ folders: [worktree] }) } });
    await root.whenIdle();
    assert.ok(fs.existsSync(path.join(worktree, 'in-worktree.txt')));
    assert.strictEqual(fs.existsSync(path.join(place.workspace, 'in-workspace.txt')), false);
    assert.deepStrictEqual(result(root).blocked_paths, [`${place.workspace}/in-workspace.txt`]);
    await runtime.dispose();
  });
});
