import * as assert from 'assert';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents';
import type { ModelProvider } from '../../src/core/models';
import { ScriptedModel } from '../../src/core/models/scriptedModel';
import type { ArborTesting } from '../../src/extension/extension';
import type { Schedule } from '../../src/extension/schedules';
import type { RunResult } from '../../src/extension/runs/runResult';
import { arborTesting, sleep, toolResults, waitFor } from './support';

const NAME = 'nightly-check';
const script = {
  version: 1,
  agents: {
    // Tries to ask (the tool is not offered unattended), then reports what blocks it.
    Nightly: {
      turns: [[{ toolCalls: [{ name: 'ask_user_question', arguments: { questions: [{ question: 'Deploy?', options: [{ label: 'yes' }, { label: 'no' }] }] } }] }, { text: 'Checked the build.\nBLOCKED: whether to deploy to production' }]],
      afterLastTurn: 'repeat-last',
    },
  },
};

describe('Scheduled runs', function () {
  this.timeout(90_000);
  let t: ArborTesting;
  let previous: ModelProvider;
  const config = () => vscode.workspace.getConfiguration('arbor');
  const started: Array<{ schedule: Schedule; agent: Agent; trigger: string }> = [];
  const finished: Array<{ schedule: Schedule; result: RunResult; notification: string }> = [];
  const subscriptions: vscode.Disposable[] = [];

  before(async () => {
    t = await arborTesting();
    previous = t.model.provider;
    t.model.use(new ScriptedModel(script));
    subscriptions.push(
      t.schedules.onDidStartRun((e) => started.push(e)),
      t.schedules.onDidFinishRun((e) => finished.push(e)),
    );
  });
  after(async () => {
    for (const s of subscriptions) s.dispose();
    await config().update('schedules', undefined, vscode.ConfigurationTarget.Global);
    await waitFor(() => t.schedules.scheduler.list().length === 0, 'the schedules to be gone');
    t.model.use(previous);
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  /** Waits until History, read afresh, lists the session. */
  async function inHistory(id: string): Promise<{ reason?: string; mode?: string }> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      t.history.refresh();
      const node = (await t.history.sessions()).find((n) => n.entry.header.id === id);
      if (node) return { reason: node.entry.summary.lastTurnEndReason, mode: node.entry.header.interactionMode };
      if (Date.now() > deadline) throw new Error(`session ${id} never showed in History`);
      await sleep(200);
    }
  }

  it('a schedule due in a second starts an unattended run that never asks, and its outcome is a notification and a session in History', async () => {
    const promptsBefore = t.observed.prompts.length;
    await config().update('schedules', [{ name: NAME, cron: '* * * * * *', prompt: 'Check the build and deploy if green.', label: 'Nightly' }], vscode.ConfigurationTarget.Global);
    await waitFor(() => started.length > 0, 'the scheduled run to start', 30_000);
    // One run is enough: pause it so the next second does not start another.
    assert.strictEqual(await vscode.commands.executeCommand('arbor.pauseSchedule', NAME), NAME);
    const { agent, trigger } = started[0];
    assert.strictEqual(trigger, 'due');
    assert.strictEqual(agent.label, 'Nightly');
    assert.strictEqual(agent.log.header.interactionMode, 'scheduled');
    await waitFor(() => finished.some((f) => f.result.agentId === agent.id), 'the run to finish');
    const done = finished.find((f) => f.result.agentId === agent.id)!;
    assert.strictEqual(done.notification, 'Scheduled run "nightly-check" finished with 1 BLOCKED item. BLOCKED: whether to deploy to production');
    assert.deepStrictEqual(done.result.blocked, ['whether to deploy to production']);
    assert.strictEqual(toolResults(agent)[0].isError, true, 'the question tool is not there for an unattended run');
    assert.strictEqual(t.observed.prompts.length, promptsBefore, 'no question reached the human');
    assert.strictEqual(t.runtime.interaction.pending().length, 0);
    assert.ok(!t.runtime.agents.isLive(agent), 'the finished run left the Agents view');
    assert.deepStrictEqual(await inHistory(agent.id), { reason: 'completed', mode: 'scheduled' });

    await waitFor(() => !t.schedules.scheduler.isRunning(NAME), 'the schedule to be idle');
    const item = t.schedules.view.getTreeItem({ type: 'schedule', name: NAME });
    assert.strictEqual(item.contextValue, 'schedule:paused');
    assert.strictEqual(item.description, 'paused · last: finished with 1 BLOCKED item');
  });

  it('Run Now runs a paused schedule once; Resume shows its next run', async () => {
    const before = finished.length;
    assert.strictEqual(await vscode.commands.executeCommand('arbor.runScheduleNow', { type: 'schedule', name: NAME }), NAME);
    await waitFor(() => finished.length > before, 'the run to finish');
    assert.strictEqual(started.at(-1)?.trigger, 'manual');
    await vscode.commands.executeCommand('arbor.resumeSchedule', NAME);
    // Resumed, it runs every second again: only its state is checked, then it is paused again.
    const resumed = t.schedules.view.getTreeItem({ type: 'schedule', name: NAME });
    await vscode.commands.executeCommand('arbor.pauseSchedule', NAME);
    assert.match(String(resumed.description), /^(next .+|running…) · last: /);
    await waitFor(() => !t.schedules.scheduler.isRunning(NAME), 'the schedule to be idle');
  });

  it('a bad entry is named in the view and skipped while the good ones stay, and .arbor/schedules.json adds schedules', async () => {
    await config().update(
      'schedules',
      [
        { name: NAME, cron: '0 3 * * *', prompt: 'Check the build.' },
        { name: 'broken', cron: 'every night', prompt: 'x' },
      ],
      vscode.ConfigurationTarget.Global,
    );
    await waitFor(() => t.schedules.view.getChildren().some((n) => n.type === 'problem'), 'the problem in the view');
    const problem = t.schedules.view.getChildren().find((n) => n.type === 'problem');
    assert.match(problem && problem.type === 'problem' ? problem.message : '', /^arbor\.schedules\[1\] \("broken"\) is skipped: cron "every night" is not a cron expression/);
    assert.deepStrictEqual(t.schedules.scheduler.list().map((s) => s.name), [NAME]);

    const file = t.schedules.sources.fileUri()!;
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(JSON.stringify({ schedules: [{ name: 'weekly', cron: '0 9 * * 1', prompt: 'Summarise the week.' }] })));
    try {
      await waitFor(() => t.schedules.scheduler.list().some((s) => s.name === 'weekly'), 'the file schedule');
      assert.strictEqual(t.schedules.scheduler.get('weekly')?.source, '.arbor/schedules.json[0]');
    } finally {
      await vscode.workspace.fs.delete(file);
      await vscode.workspace.fs.delete(vscode.Uri.joinPath(file, '..'), { recursive: true });
    }
    await waitFor(() => !t.schedules.scheduler.list().some((s) => s.name === 'weekly'), 'the file schedule to go with the file');
  });
});
