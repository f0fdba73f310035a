import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryApprovalRuleStore, type InteractionPrompt } from '../../../src/core/interaction';
import type { Answer } from '../../../src/core/sessions/types';
import { Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { makeRuntime, reasons, recordingModel, toolResults } from '../../support/runtimeFixture';
import { killQuietly, pidsWritten, untilDead } from '../../support/processes';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const run = (command: string, extra: Record<string, unknown> = {}) => ({ name: 'run_command', arguments: { command, ...extra } });

function approver(choice: string) {
  const prompts: InteractionPrompt[] = [];
  return { prompts, provider: { ask: async (p: InteractionPrompt): Promise<Answer[]> => (prompts.push(p), [{ id: p.questions[0].id, selected: [choice] }]) } };
}

describe('run_command behind the approval seam', () => {
  const track = disposeAfterEach();
  let workspace: string;
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-cmd-'));
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  it('asks an interactive root, runs the command in the workspace once allowed, and records the decision', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ toolCalls: [run('echo hi > out.txt && echo done')] }, { text: 'ok' }]] } } }, { workspace });
    track(runtime);
    const { prompts, provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.strictEqual(prompts.length, 1);
    assert.strictEqual(prompts[0].intent, 'approval');
    assert.match(prompts[0].questions[0].question, /echo hi/);
    const result = JSON.parse(toolResults(root)[0].content);
    assert.strictEqual(result.exit_code, 0);
    assert.match(result.output, /done/);
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'out.txt'), 'utf8').trim(), 'hi');
    assert.ok(root.log.events.some((e) => e.type === 'approval' && e.decision === 'allow-once'));
  });

  it('"allow for this agent" is remembered, and a denial runs nothing', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ toolCalls: [run('true')] }, { toolCalls: [run('true')] }, { text: 'ok' }]] } } }, { workspace });
    track(runtime);
    const { prompts, provider } = approver('Allow for this agent');
    runtime.interaction.registerProvider(provider);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.strictEqual(prompts.length, 1, 'asked once for two commands');
    await runtime.dispose();

    const denied = makeRuntime({ version: 1, agents: { main: { turns: [[{ toolCalls: [run('touch never.txt')] }, { text: 'ok' }]] } } }, { workspace });
    track(denied.runtime);
    denied.runtime.interaction.registerProvider(approver('Deny').provider);
    const r2 = denied.runtime.startRoot({ prompt: 'go', label: 'main' });
    await r2.whenIdle();
    assert.strictEqual(JSON.parse(toolResults(r2)[0].content).status, 'denied');
    assert.strictEqual(fs.existsSync(path.join(workspace, 'never.txt')), false);
  });

  it('"allow for this agent" ends with the agent: after End and Resume of the same session it asks again', async () => {
    const sessionsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-sessions-'));
    try {
      const { model } = recordingModel({ version: 1, agents: { main: { turns: [[{ toolCalls: [run('true')] }, { text: 'ok' }]], afterLastTurn: 'repeat-last' } } });
      const runtime = new Runtime({ model, workspace, sessions: new JsonlSessionStore(sessionsDir, { flushDelayMs: 1 }), newId: () => 'main-1' });
      const { prompts, provider } = approver('Allow for this agent');
      runtime.interaction.registerProvider(provider);
      const root = runtime.startRoot({ prompt: 'go', label: 'main' });
      await root.whenIdle();
      root.send('again', { from: 'user' });
      await whenState(runtime, () => reasons(root).length === 2, 'the second turn');
      await root.whenIdle();
      assert.strictEqual(prompts.length, 1, 'while the agent lives, the grant holds');

      await runtime.end(root);
      const resumed = await runtime.resumeRoot('main-1', { message: 'after resume' });
      await whenState(runtime, () => reasons(resumed).length === 3, 'the resumed turn');
      await resumed.whenIdle();
      assert.strictEqual(prompts.length, 2, 'the resumed session was asked again');
      const decisions = resumed.log.events.flatMap((e) => (e.type === 'approval' ? [e.decision] : []));
      assert.deepStrictEqual(decisions, ['allow-session', 'allow-session', 'allow-session'], 'each grant came from a prompt or from the same live agent');
      await runtime.dispose();
    } finally {
      fs.rmSync(sessionsDir, { recursive: true, force: true });
    }
  });

  it('unattended runs and subagents are denied without any prompt', async () => {
    const script = {
      version: 1 as const,
      agents: {
        main: { turns: [[{ toolCalls: [run('touch a.txt'), { name: 'delegate_task', arguments: { label: 'kid', prompt: 'x' } }] }, { text: 'ok' }]] },
        kid: { turns: [[{ toolCalls: [run('touch b.txt')] }, { text: 'kid done' }]] },
      },
    };
    const unattended = makeRuntime(script, { workspace });
    track(unattended.runtime);
    const { prompts, provider } = approver('Allow once');
    unattended.runtime.interaction.registerProvider(provider);
    const root = unattended.runtime.startRoot({ prompt: 'go', label: 'main', context: { interactionMode: 'scheduled' } });
    await root.whenIdle();
    assert.strictEqual(prompts.length, 0);
    assert.match(toolResults(root)[0].content, /unattended/);
    await unattended.runtime.dispose();

    const interactive = makeRuntime(script, { workspace });
    track(interactive.runtime);
    const second = approver('Allow once');
    interactive.runtime.interaction.registerProvider(second.provider);
    let kidResult = '';
    interactive.runtime.onEvent((e) => {
      if (e.type === 'agent_changed' && e.agent.label === 'kid' && e.change.type === 'log' && e.change.event.type === 'tool_result') kidResult = e.change.event.content;
    });
    const r2 = interactive.runtime.startRoot({ prompt: 'go', label: 'main' });
    await r2.whenIdle();
    assert.strictEqual(second.prompts.length, 1, "only the root's command was asked about");
    assert.match(kidResult, /delegated agent cannot get approval/);
    assert.strictEqual(fs.existsSync(path.join(workspace, 'b.txt')), false);
  });

  it('a remembered rule lets an unattended run and its subagent run exactly that command; another is denied with a structured error', async () => {
    const script = {
      version: 1 as const,
      agents: {
        main: { turns: [[{ toolCalls: [run('touch a.txt'), run('touch b.txt'), { name: 'delegate_task', arguments: { label: 'kid', prompt: 'x' } }] }, { text: 'ok' }]] },
        kid: { turns: [[{ toolCalls: [run('touch a.txt')] }, { text: 'kid done' }]] },
      },
    };
    const rules = new MemoryApprovalRuleStore([{ kind: 'command', pattern: 'touch a.txt', scope: 'workspace' }]);
    const { model } = recordingModel(script);
    const runtime = new Runtime({ model, workspace, approvalRules: rules });
    track(runtime);
    const { prompts, provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    let kidDecision: string | undefined;
    runtime.onEvent((e) => {
      if (e.type === 'agent_changed' && e.agent.label === 'kid' && e.change.type === 'log' && e.change.event.type === 'approval') kidDecision = e.change.event.decision;
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main', context: { interactionMode: 'autonomous' } });
    await root.whenIdle();
    assert.strictEqual(prompts.length, 0, 'nobody is asked');
    const [allowed, denied] = toolResults(root).slice(0, 2).map((r) => JSON.parse(r.content));
    assert.strictEqual(allowed.exit_code, 0);
    assert.strictEqual(fs.existsSync(path.join(workspace, 'a.txt')), true);
    assert.deepStrictEqual(
      { status: denied.status, code: denied.code, action: denied.action, subject: denied.subject, rule: denied.rule_that_would_allow },
      { status: 'denied', code: 'APPROVAL_DENIED', action: 'run-command', subject: 'touch b.txt', rule: 'command: touch b.txt' },
    );
    assert.match(denied.reason, /autonomous run is unattended/);
    assert.strictEqual(fs.existsSync(path.join(workspace, 'b.txt')), false);
    assert.strictEqual(kidDecision, 'allow-rule', 'the rule covers the subagent too');
    // The two calls run side by side, so their approvals may be recorded in either order.
    const logged = root.log.events.flatMap((e) => (e.type === 'approval' ? [`${e.decision} ${e.rule ?? '(no rule)'}`] : [])).sort();
    assert.deepStrictEqual(logged, ['allow-rule command: touch a.txt', 'deny (no rule)']);
  });

  it('Stop kills the running command and its shell', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ toolCalls: [run('sleep 987 & echo $! >> pids; echo $$ >> pids; wait; touch late.txt')] }]] } } }, { workspace });
    track(runtime);
    runtime.interaction.registerProvider(approver('Allow once').provider);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    const pids = await pidsWritten(workspace, 2);
    runtime.stop(root);
    await root.whenIdle();
    assert.deepStrictEqual(reasons(root), ['aborted:user']);
    await untilDead(pids);
    assert.strictEqual(fs.existsSync(path.join(workspace, 'late.txt')), false, 'the command (and its shell) were killed');
  });

  it('refuses a working directory outside the workspace', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ toolCalls: [run('pwd', { cwd: '../..' })] }, { text: 'ok' }]] } } }, { workspace });
    track(runtime);
    const { prompts, provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.match(toolResults(root)[0].content, /must stay inside the workspace/);
    assert.strictEqual(prompts.length, 0);
  });
});

/** Is `pid` a running process? A zombie (exited, not yet reaped) counts as gone. */
describe('run_command ends every process it started', function () {
  const track = disposeAfterEach();
  // Generous bounds: these wait for states, never for a duration.
  this.timeout(40_000);
  let workspace: string;
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-cmd-'));
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  /** A root that runs one command, allowed once; resolves with its tool result. */
  async function runOnce(command: string, extra: Record<string, unknown> = {}) {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ toolCalls: [run(command, extra)] }, { text: 'ok' }]] } } }, { workspace });
    runtime.interaction.registerProvider(approver('Allow once').provider);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    return { runtime, root };
  }

  const TRAPPING = [
    "trap '' TERM",
    'for i in 1 2 3; do sleep 987 & echo $! >> pids; done',
    'echo $$ >> pids',
    'wait',
  ].join('\n');

  it('a command that ignores SIGTERM, with three children that do too, is killed whole on timeout', async () => {
    fs.writeFileSync(path.join(workspace, 'trap.sh'), TRAPPING);
    const { runtime, root } = await runOnce('bash trap.sh', { timeout_seconds: 1 });
    track(runtime);
    const pids = await pidsWritten(workspace, 4);
    try {
      await root.whenIdle();
      const result = JSON.parse(toolResults(root)[0].content);
      assert.strictEqual(result.status, 'timed-out');
      await untilDead(pids);
    } finally {
      killQuietly(pids);
    }
  });

  it('Stop ends the turn and then kills a command that ignores SIGTERM, children included', async () => {
    fs.writeFileSync(path.join(workspace, 'trap.sh'), TRAPPING);
    const { runtime, root } = await runOnce('bash trap.sh');
    track(runtime);
    const pids = await pidsWritten(workspace, 4);
    try {
      runtime.stop(root);
      await root.whenIdle();
      assert.deepStrictEqual(reasons(root), ['aborted:user']);
      await untilDead(pids);
    } finally {
      killQuietly(pids);
    }
  });

  it('a child that left the process group (setsid) is killed with the tree while the shell waits for it', async () => {
    const { runtime, root } = await runOnce('setsid sleep 987 & echo $! >> pids; echo $$ >> pids; wait', { timeout_seconds: 1 });
    track(runtime);
    const pids = await pidsWritten(workspace, 2);
    try {
      await root.whenIdle();
      assert.strictEqual(JSON.parse(toolResults(root)[0].content).status, 'timed-out');
      await untilDead(pids);
    } finally {
      killQuietly(pids);
    }
  });

  it('returns when the shell has exited but a background child keeps the output pipe open, and stops that child', async () => {
    const { runtime, root } = await runOnce('sleep 987 & echo $! >> pids; echo hi', { timeout_seconds: 3600 });
    track(runtime);
    const pids = await pidsWritten(workspace, 1);
    try {
      await root.whenIdle();
      const result = JSON.parse(toolResults(root)[0].content);
      assert.strictEqual(result.status, 'exited');
      assert.strictEqual(result.exit_code, 0);
      assert.match(result.output, /hi/);
      assert.match(result.note, /were stopped/);
      await untilDead(pids);
    } finally {
      killQuietly(pids);
    }
  });

  it('Stop ends a process a subshell moved to a session of its own (setsid) while the shell still runs', async () => {
    // The subshell exits at once: the setsid'd process is no longer below the shell, nor in its group or session.
    const { runtime, root } = await runOnce("(setsid sh -c 'echo $$ >> pids; exec sleep 987' &); echo $$ >> pids; sleep 987");
    track(runtime);
    const pids = await pidsWritten(workspace, 2);
    try {
      runtime.stop(root);
      await root.whenIdle();
      assert.deepStrictEqual(reasons(root), ['aborted:user']);
      await untilDead(pids);
    } finally {
      killQuietly(pids);
    }
  });

  it('returns when a process that left both the group and the tree holds the pipe, and stops it', async () => {
    const { runtime, root } = await runOnce('setsid sleep 987 & echo $! >> pids; echo hi', { timeout_seconds: 3600 });
    track(runtime);
    const pids = await pidsWritten(workspace, 1);
    try {
      await root.whenIdle();
      const result = JSON.parse(toolResults(root)[0].content);
      assert.strictEqual(result.status, 'exited');
      assert.match(result.output, /hi/);
      assert.match(result.note, /were stopped/);
      await untilDead(pids);
    } finally {
      killQuietly(pids);
    }
  });

  it('still returns when such a process also started with a cleared environment holds the pipe (the documented limit)', async () => {
    const { runtime, root } = await runOnce('env -i setsid sleep 987 & echo $! >> pids; echo hi', { timeout_seconds: 3600 });
    track(runtime);
    const pids = await pidsWritten(workspace, 1);
    try {
      await root.whenIdle();
      const result = JSON.parse(toolResults(root)[0].content);
      assert.strictEqual(result.status, 'exited');
      assert.match(result.output, /hi/);
    } finally {
      killQuietly(pids);
    }
  });
});
