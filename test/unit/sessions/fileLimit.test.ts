import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ScriptedModel } from '../../../src/core/models/scriptedModel';
import { Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { presentAgent } from '../../../src/extension/agents/agentPresentation';
import { makeTempDir } from '../../support/sessionFixtures';
import { whenState } from '../../support/events';

function runChild(script: string, args: string[], openFiles: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const command = `ulimit -n ${openFiles} && exec "${process.execPath}" --require tsx/cjs "${script}" ${args.map((a) => `"${a}"`).join(' ')}`;
    const child = spawn('sh', ['-c', command], { cwd: path.join(__dirname, '..', '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('durable sessions: many agents ending at once under a low open-files limit', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-limit-')));
  afterEach(() => cleanup());

  it('with ulimit -n 256, 1,000 subagents ending together leave all 1,001 sessions complete, and other file users unharmed', async function () {
    this.timeout(120_000);
    const k = 1000;
    const { code, stdout, stderr } = await runChild(path.join(__dirname, '..', '..', 'support', 'fanOutChild.ts'), [dir, String(k)], 256);
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { rootEnd: string; errors: string[]; otherFailures: number; otherReads: number; disposeError?: string };
    assert.equal(result.rootEnd, 'completed');
    assert.deepEqual(result.errors, []);
    assert.equal(result.disposeError, undefined);
    assert.equal(result.otherFailures, 0, 'another file user in the process failed');
    assert.ok(result.otherReads > 0);

    const { sessions, diagnostics } = await new JsonlSessionStore(path.join(dir, 'sessions')).listSessions();
    assert.deepEqual(diagnostics, []);
    assert.equal(sessions.length, k + 1);
    const workers = sessions.filter((s) => s.header.label === 'worker');
    assert.equal(workers.length, k);
    for (const w of workers) assert.equal(w.summary.lastTurnEndReason, 'completed', `${w.header.id} is incomplete`);
  });

  it('a write that keeps failing is reported on the agent, never as saved, and is written once the folder works again', async () => {
    const folder = path.join(dir, 'sessions');
    const store = new JsonlSessionStore(folder, { flushDelayMs: 1 });
    const model = new ScriptedModel({ version: 1, agents: { lead: { turns: [[{ text: 'first' }], [{ text: 'second' }]] } } });
    const runtime = new Runtime({ model, sessions: store, newId: () => 'lead-1' });
    try {
      const agent = runtime.startRoot({ prompt: 'one', label: 'lead' });
      await agent.whenIdle();
      await agent.log.flush();
      // The folder becomes a file: every write fails, and no retry can succeed.
      fs.rmSync(folder, { recursive: true });
      fs.writeFileSync(folder, 'not a folder');
      agent.send('two', { from: 'user' });
      await whenState(runtime, () => agent.sessionProblem?.code === 'SESSION_WRITE_FAILED', 'the failure to reach the agent', 10_000);
      assert.match(agent.sessionProblem?.message ?? '', /not saved yet/);
      const shown = presentAgent({ agent, waiting: false, treeTokens: 0, descendants: 0, now: Date.now() });
      assert.match(shown.description, /session not fully saved/);
      assert.match(shown.tooltip, /SESSION_WRITE_FAILED.*free space/);
      assert.doesNotMatch(agent.sessionProblem?.message ?? '', /will be written|are written again at the next flush/);
      await agent.whenIdle();
      await assert.rejects(agent.log.flush(), /SESSION_WRITE_FAILED|Could not write session lead-1/);

      // The disk recovers: the next write saves everything, and the agent's warning goes away.
      fs.rmSync(folder);
      const flushed = agent.log.flush();
      await flushed;
      await whenState(runtime, () => agent.sessionProblem === undefined, 'the problem to be cleared');
      const loaded = await new JsonlSessionStore(folder).loadSession('lead-1');
      assert.deepEqual(
        loaded.events.filter((e) => e.type === 'user_message').map((e) => (e as { text: string }).text),
        ['one', 'two'],
      );
    } finally {
      await runtime.dispose();
      await store.dispose().catch(() => undefined);
    }
  });

  it('a log whose close fails stays with its store, so the exit flush still writes it', async () => {
    const folder = path.join(dir, 'sessions');
    const store = new JsonlSessionStore(folder, { flushDelayMs: 60_000 });
    const log = store.create({ type: 'header', version: 1, id: 'closing', createdAt: new Date().toISOString(), delegationDepth: 0, kind: 'root', label: 'c', interactionMode: 'interactive' });
    log.append({ type: 'assistant_text', at: new Date().toISOString(), text: 'last words' });
    fs.rmSync(folder, { recursive: true, force: true });
    fs.writeFileSync(folder, 'not a folder');
    await assert.rejects(log.close(), (e: unknown) => (e as { code?: string }).code === 'SESSION_WRITE_FAILED');
    assert.deepEqual(store.openLogs(), [log], 'the unsaved log is not dropped');
    fs.rmSync(folder);
    assert.deepEqual(store.flushAllSync(), []);
    assert.deepEqual(store.openLogs(), [], 'released once written');
    assert.equal((await new JsonlSessionStore(folder).loadSession('closing')).events.length, 1);
  });
});
