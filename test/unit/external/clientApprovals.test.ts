import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import type { Agent } from '../../../src/core/agents';
import { isArborError } from '../../../src/core/errors';
import { ExternalAgentClient, runtimeServices } from '../../../src/core/external';
import { MemoryApprovalRuleStore, parseApprovalRule, type ApprovalRule } from '../../../src/core/interaction';
import { Runtime } from '../../../src/core/runtime';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { approver, recordingModel } from '../../support/runtimeFixture';

/**
 * The client side of an external agent (ExternalAgentClient) answering forged ACP requests, as
 * an agent that tries its luck would send them: permissions naming several files, options that
 * only say "always", terminals whose program, arguments or environment differ from what a rule
 * or an earlier permission allowed.
 */

const OPTIONS: acp.PermissionOption[] = [
  { optionId: 'once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
  { optionId: 'never', name: 'Always reject', kind: 'reject_always' },
];
const SESSION = 'forged';
const selected = (r: acp.RequestPermissionResponse) => (r.outcome.outcome === 'selected' ? r.outcome.optionId : 'cancelled');
const approvals = (agent: Agent) => agent.log.events.filter((e): e is Extract<SessionEvent, { type: 'approval' }> => e.type === 'approval');
const denied = (err: unknown) => isArborError(err, 'TOOL_FAILED') && err.details?.code === 'APPROVAL_DENIED';

describe('an external agent\'s permissions, writes and terminals (forged requests to the client)', function () {
  this.timeout(30_000);
  let workspace: string;
  let runtime: Runtime;
  let client: ExternalAgentClient | undefined;
  const signal = new AbortController().signal;

  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-client-'));
    fs.mkdirSync(path.join(workspace, 'docs'));
    fs.writeFileSync(path.join(workspace, 'docs/readme.md'), 'read me\n');
    fs.writeFileSync(path.join(workspace, 'notes.txt'), 'first line\n');
  });
  afterEach(async () => {
    client?.dispose();
    client = undefined;
    await runtime.dispose();
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  /** A root agent served by a client of its own, under `rules`, answered by a person choosing `answer`. */
  async function serve(options: { rules?: string[]; unattended?: boolean; answer?: string } = {}) {
    const rules: ApprovalRule[] = (options.rules ?? []).map((text) => {
      const parsed = parseApprovalRule(text);
      assert.ok(parsed.ok, text);
      return { ...parsed.rule, scope: 'workspace' };
    });
    runtime = new Runtime({ model: recordingModel({ version: 1, agents: {} }).model, workspace, approvalRules: new MemoryApprovalRuleStore(rules) });
    const person = approver(options.answer ?? 'Allow once');
    runtime.interaction.registerProvider(person.provider);
    const agent = runtime.startRoot({ prompt: 'wait', label: 'lead', context: options.unattended ? { interactionMode: 'autonomous' } : undefined });
    await agent.whenIdle();
    client = new ExternalAgentClient(agent, runtimeServices(runtime), () => undefined);
    return { agent, client, prompts: person.prompts };
  }

  const diff = (p: string, newText: string): acp.ToolCallContent => ({ type: 'diff', path: p, oldText: null, newText });
  const editPermission = (locations: string[], diffs: acp.ToolCallContent[], options = OPTIONS): acp.RequestPermissionRequest => ({
    sessionId: SESSION,
    options,
    toolCall: { toolCallId: 'edit-1', title: 'Edit files', kind: 'edit', locations: locations.map((p) => ({ path: path.join(workspace, p) })), content: diffs },
  });
  const write = (c: ExternalAgentClient, p: string, content: string) => c.writeTextFile({ sessionId: SESSION, path: path.join(workspace, p), content }, signal);
  const exists = (p: string) => fs.existsSync(path.join(workspace, p));

  describe('a permission naming several files', () => {
    it('under "edit: docs/**" unattended, a location in docs/ with diffs for src/app.ts and .github/workflows/ci.yml is refused whole, and neither file can be written', async () => {
      const { agent, client, prompts } = await serve({ rules: ['edit: docs/**'], unattended: true });
      const answer = await client.requestPermission(
        editPermission(['docs/readme.md'], [diff(path.join(workspace, 'src/app.ts'), 'evil();\n'), diff(path.join(workspace, '.github/workflows/ci.yml'), 'on: push\n')]),
        signal,
      );
      assert.strictEqual(selected(answer), 'no');
      await assert.rejects(write(client, 'src/app.ts', 'evil();\n'), denied);
      await assert.rejects(write(client, '.github/workflows/ci.yml', 'on: push\n'), denied);
      assert.ok(!exists('src/app.ts') && !exists('.github/workflows/ci.yml'), 'nothing the rule does not cover was written');
      const whole = approvals(agent).find((e) => e.reason.includes('names 3 files'));
      assert.ok(whole && whole.decision === 'deny' && whole.reason.includes('src/app.ts was not allowed, so none of them is'), JSON.stringify(approvals(agent)));
      assert.strictEqual(prompts.length, 0);
    });

    it('each file is asked about on its own with its own diff; the writes covered are exactly those files and texts', async () => {
      const { client, prompts } = await serve();
      const answer = await client.requestPermission(editPermission([], [diff(path.join(workspace, 'a.txt'), 'alpha\n'), diff(path.join(workspace, 'b.txt'), 'beta\n')]), signal);
      assert.strictEqual(selected(answer), 'once');
      assert.strictEqual(prompts.length, 2, 'one question per file');
      assert.ok(prompts[0].detail?.includes('+alpha') && !prompts[0].detail.includes('+beta'), prompts[0].detail);
      assert.ok(prompts[1].detail?.includes('+beta') && !prompts[1].detail.includes('+alpha'), prompts[1].detail);
      assert.match(prompts[0].detail ?? '', /File 1 of 2: a\.txt/);
      await write(client, 'a.txt', 'alpha\n');
      await write(client, 'b.txt', 'beta\n');
      assert.strictEqual(prompts.length, 2, 'the shown writes are covered');
      await write(client, 'c.txt', 'gamma\n');
      assert.strictEqual(prompts.length, 3, 'a file the permission did not name is asked about');
    });

    it('one file denied refuses the whole permission: not even the allowed file\'s write is covered', async () => {
      const { client, prompts } = await serve({ rules: ['edit: docs/**'], answer: 'Deny' });
      const answer = await client.requestPermission(editPermission([], [diff(path.join(workspace, 'docs/readme.md'), 'new\n'), diff(path.join(workspace, 'src/app.ts'), 'x\n')]), signal);
      assert.strictEqual(selected(answer), 'no');
      assert.strictEqual(prompts.length, 1, 'docs/ by the rule, src/app.ts asked and denied');
      await assert.rejects(write(client, 'src/app.ts', 'x\n'), denied);
      assert.strictEqual(prompts.length, 2, 'asked again');
    });

    it('a file outside the workspace among them refuses the whole permission without asking', async () => {
      const { client, prompts } = await serve({ rules: ['edit: **'] });
      const outside = path.join(path.dirname(workspace), 'outside.txt');
      const answer = await client.requestPermission(editPermission(['docs/readme.md'], [diff(outside, 'x\n')]), signal);
      assert.strictEqual(selected(answer), 'no');
      assert.strictEqual(prompts.length, 0);
    });

    it('an allowed edit no longer covers its write once the file changed since it was shown', async () => {
      const { client, prompts } = await serve();
      await client.requestPermission(editPermission([], [diff(path.join(workspace, 'notes.txt'), 'second line\n')]), signal);
      assert.strictEqual(prompts.length, 1);
      fs.writeFileSync(path.join(workspace, 'notes.txt'), 'changed meanwhile\n');
      await write(client, 'notes.txt', 'second line\n');
      assert.strictEqual(prompts.length, 2, 'the diff shown no longer says what the write does: asked again');
      assert.ok(prompts[1].detail?.includes('-changed meanwhile'), prompts[1].detail);
    });
  });

  describe('the option Arbor answers with', () => {
    const execute = (options: acp.PermissionOption[], kind: acp.ToolKind = 'execute'): acp.RequestPermissionRequest => ({
      sessionId: SESSION,
      options,
      toolCall: { toolCallId: 'run-1', title: 'npm test', kind, rawInput: { command: 'npm test' } },
    });
    const [once, always, no, never] = OPTIONS;

    it('is never allow_always: without an allow_once option the permission is refused without asking, once-only or cancelled', async () => {
      const { agent, client, prompts } = await serve({ rules: ['command: npm test'] });
      assert.strictEqual(selected(await client.requestPermission(execute([always, no, never]), signal)), 'no');
      assert.strictEqual(selected(await client.requestPermission(execute([always, never]), signal)), 'cancelled');
      assert.strictEqual(selected(await client.requestPermission(execute([always, never], 'read'), signal)), 'cancelled', 'reading tools too');
      assert.strictEqual(prompts.length, 0);
      assert.match(approvals(agent)[0].reason, /no allow-once option \(it offered: allow_always, reject_once, reject_always\)/);
    });

    it('is allow_once when allowed and reject_once when denied, never an "always" option', async () => {
      const { client } = await serve({ rules: ['command: npm test'], unattended: true });
      assert.strictEqual(selected(await client.requestPermission(execute([always, once, never, no]), signal)), 'once');
      const other = execute([always, once, never, no]);
      other.toolCall.rawInput = { command: 'npm publish' };
      assert.strictEqual(selected(await client.requestPermission(other, signal)), 'no');
      assert.strictEqual(selected(await client.requestPermission({ ...other, options: [once, never] }, signal)), 'cancelled');
    });
  });

  describe('terminal/create', () => {
    const terminal = (command: string, args: string[], env: acp.EnvVariable[] = []): acp.CreateTerminalRequest => ({ sessionId: SESSION, command, args, env });
    const exitOf = async (c: ExternalAgentClient, id: string) => c.terminals.waitForExit(id, signal);

    it('a permission for "git status" does not cover touch M "git status"', async () => {
      const { client } = await serve({ rules: ['command: git status'], unattended: true });
      const permission = await client.requestPermission({ sessionId: SESSION, options: OPTIONS, toolCall: { toolCallId: 'x', title: 'git status', kind: 'execute', rawInput: { command: 'git status' } } }, signal);
      assert.strictEqual(selected(permission), 'once');
      await assert.rejects(client.createTerminal(terminal('touch', ['M', 'git status']), signal), denied);
      await assert.rejects(client.createTerminal(terminal('touch', ['M', 'git', 'status']), signal), denied);
    });

    it('an environment the agent sets makes "command: git status" not match: unattended denied, interactive asked with it shown', async () => {
      const env = [
        { name: 'GIT_CONFIG_COUNT', value: '1' },
        { name: 'GIT_CONFIG_KEY_0', value: 'core.fsmonitor' },
        { name: 'GIT_CONFIG_VALUE_0', value: 'touch M; false' },
      ];
      const unattended = await serve({ rules: ['command: git status'], unattended: true });
      await assert.rejects(unattended.client.createTerminal(terminal('git', ['status'], env), signal), denied);
      assert.match(approvals(unattended.agent).at(-1)?.detail ?? '', /GIT_CONFIG_VALUE_0="touch M; false"/);
      unattended.client.dispose();
      await runtime.dispose();

      const { client, prompts } = await serve({ rules: ['command: git status'], answer: 'Deny' });
      await assert.rejects(client.createTerminal(terminal('git', ['status'], env), signal), denied);
      assert.strictEqual(prompts.length, 1);
      const detail = prompts[0].detail ?? '';
      assert.ok(detail.startsWith("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch M; false' git status"), detail);
      assert.match(detail, /Environment set by the agent:\n {2}GIT_CONFIG_COUNT="1"/);
    });

    it('PATH cannot be set by the agent, in any letter case, whatever the rules; the person is not asked', async () => {
      const { agent, client, prompts } = await serve({ rules: ['command: *'] });
      for (const name of ['PATH', 'Path', 'path']) {
        await assert.rejects(client.createTerminal(terminal('npm', ['test'], [{ name, value: workspace }]), signal), (err: unknown) => denied(err) && /cannot set PATH/.test((err as Error).message));
      }
      assert.strictEqual(prompts.length, 0);
      assert.ok(approvals(agent).every((e) => e.decision === 'deny'));
    });

    it('sh -c with a shell-free line is that line; any other shell call is matched as the program and arguments it is', async () => {
      const { client } = await serve({ rules: ['command: echo hi'], unattended: true });
      for (const [command, args] of [['sh', ['-c', 'echo hi']], ['bash', ['-c', ' echo hi ']], ['echo', ['hi']]] as const) {
        const { terminalId } = await client.createTerminal(terminal(command, [...args]), signal);
        assert.strictEqual((await exitOf(client, terminalId)).exitCode, 0);
        assert.strictEqual(client.terminals.output(terminalId).output, 'hi\n');
      }
      for (const [command, args] of [['sh', ['-c', 'echo hi; touch M']], ['sh', ['-c', 'echo hi', 'x']], ['zsh', ['-c', 'echo hi']], ['echo', ['hi; touch M']], ['echo hi', []]] as const) {
        await assert.rejects(client.createTerminal(terminal(command, [...args]), signal), denied, `${command} ${JSON.stringify(args)}`);
      }
      assert.ok(!exists('M'));
    });
  });
});
