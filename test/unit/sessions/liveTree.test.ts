import * as assert from 'assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents/agent';
import { describeHold, newHold } from '../../../src/core/agents/holds';
import type { InteractionPrompt } from '../../../src/core/interaction';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { LiveRecordFiles, type LiveRootRecord, type RestoreReport } from '../../../src/core/restore';
import { INTERRUPTED_NOTE, Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { FileChangeSetStorage } from '../../../src/core/workspace/changeSets';
import { NodeWorkspace } from '../../../src/core/workspace/nodeWorkspace';
import { makeTempDir } from '../../support/sessionFixtures';
import { until, userMessages } from '../../support/runtimeFixture';
import { closeWindow, openTestWindow } from '../../support/windows';
import { childWindow } from '../../support/childWindow';

/** One window on the sessions folder `dir`: its store, its runtime with live-state records, what it logged. */
function openWindow(dir: string, script: ModelScript, options: { limits?: Record<string, number> } = {}) {
  const files = new LiveRecordFiles(dir);
  const problems: string[] = [];
  const lines: string[] = [];
  const { store, runtime, calls } = openTestWindow(dir, script, {
    changeSets: new FileChangeSetStorage(dir),
    limits: options.limits,
    onProblem: (problem, err) => problems.push(`${problem}: ${(err as Error).message}`),
  });
  return { store, runtime, files, calls, problems, lines, restore: (): Promise<RestoreReport> => runtime.restoreLive({ log: (line) => lines.push(line) }) };
}

function byLabel(runtime: Runtime, label: string): Agent {
  const agent = runtime.agents.all().find((a) => a.label === label);
  assert.ok(agent, `no live agent labelled ${label}`);
  return agent;
}

const never: InteractionPrompt[] = [];
/** A human who sees every prompt and answers none (the window closes first). */
const silentHuman = { ask: (p: InteractionPrompt) => (never.push(p), new Promise<never>(() => undefined)) };

const script: ModelScript = {
  version: 1,
  agents: {
    Lead: {
      turns: [
        [{ text: 'Starting the watcher.', toolCalls: [{ name: 'start_subagent', arguments: { label: 'Watcher', prompt: 'watch the build' } }] }, { text: 'Lead is done for now.' }],
        [{ text: 'lead turn 2' }],
      ],
    },
    Watcher: { turns: [[{ hang: true }], [{ text: 'watched: first' }], [{ text: 'watched: second' }]] },
    Busy: { turns: [[{ text: 'streamed before the close', toolCalls: [{ name: 'list_agents', arguments: {} }] }, { hang: true }], [{ text: 'continued' }]] },
    Brancher: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Twig', prompt: 'grow' } }] }, { hang: true }]] },
    Twig: { turns: [[{ hang: true }]] },
    Asker: { turns: [[{ toolCalls: [{ name: 'ask_user_question', arguments: { questions: [{ id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] }] } }] }, { text: 'asked' }]] },
    Spender: { turns: [[{ text: 'one' , toolCalls: [{ name: 'list_agents', arguments: {} }] }, { text: 'two' }]] },
    Guarded: { turns: [[{ text: 'guarded' }]] },
  },
};

describe('restore: the Agents tree survives a reload', () => {
  let dir: string;
  let cleanup: () => void;
  const windows: Array<{ runtime: Runtime; store: JsonlSessionStore }> = [];
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-restore-')));
  afterEach(async () => {
    for (const w of windows.splice(0)) await closeWindow(w).catch(() => undefined);
    cleanup();
  });
  const track = <T extends { runtime: Runtime; store: JsonlSessionStore }>(w: T): T => (windows.push(w), w);

  it('puts back every state of the tree: idle, stopped with its queue, in flight, branch hold, budget pause, runaway, a waiting question, usage, changes, ended rows, worktree', async () => {
    const worktreeFolder = fs.mkdtempSync(path.join(dir, 'wt-'));
    const first = track(openWindow(dir, script));
    first.runtime.interaction.registerProvider(silentHuman);
    const extras = { ended: [{ id: 'researcher-x', label: 'Researcher', kind: 'continuable' as const, how: 'done', tokens: 120, cost: 0, creationOrder: 2 }] };
    const worktree = { repo: dir, root: worktreeFolder, folder: worktreeFolder, branch: 'arbor/wt', base: 'abc123' };
    first.runtime.liveRecords!.describeWith({ ended: (a) => (a.label === 'Lead' ? extras.ended : undefined), worktree: (r) => (r.label === 'Guarded' ? worktree : undefined) });

    // Lead: idle after its turn; its Watcher is stopped with one message queued.
    const lead = first.runtime.startRoot({ prompt: 'plan', label: 'Lead' });
    await until(() => first.runtime.agents.all().some((a) => a.label === 'Watcher' && a.status === 'running') && lead.status === 'idle', 'the lead idle and its watcher running');
    const watcher = byLabel(first.runtime, 'Watcher');
    first.runtime.sendFromUser(watcher, 'parked: check the logs');
    first.runtime.stop(watcher);
    await until(() => watcher.status === 'idle' && watcher.isParked, 'the watcher stopped with its queue');
    await first.runtime.changes.recordBefore(lead.id, { relative: 'src/list.js', absolute: path.join(dir, 'src/list.js') } as never, 'before');
    // Busy: a turn in flight when the window goes, after streaming text and receiving a tool result.
    const busy = first.runtime.startRoot({ prompt: 'work', label: 'Busy' });
    await until(() => busy.log.events.some((e) => e.type === 'tool_result'), 'busy got its tool result');
    // Brancher and Twig: held by Stop All Below.
    const brancher = first.runtime.startRoot({ prompt: 'branch', label: 'Brancher' });
    await until(() => first.runtime.agents.all().some((a) => a.label === 'Twig' && a.status === 'running'), 'the twig running');
    first.runtime.stopBranch(brancher);
    await until(() => brancher.status === 'idle' && byLabel(first.runtime, 'Twig').status === 'idle', 'the branch stopped');
    // Asker: waiting for an answer.
    const asker = first.runtime.startRoot({ prompt: 'ask', label: 'Asker' });
    await until(() => never.length === 1, 'the question asked');
    // Spender: paused by a spent budget of one model call.
    const spender = first.runtime.startRoot({ prompt: 'spend', label: 'Spender', limits: { maxModelCalls: 1 } });
    await until(() => first.runtime.budgets.holdOf(spender.run) !== undefined && spender.status === 'idle', 'the spender paused');
    // Guarded: a runaway guard's warning and pause, in a worktree of its own.
    const guarded = first.runtime.startRoot({ prompt: 'guard', label: 'Guarded', workspace: { folder: worktreeFolder, files: new NodeWorkspace({ folders: [worktreeFolder] }) } });
    await guarded.whenIdle();
    guarded.run.budget.warnAgent(guarded.id, 'the same call 5 times');
    guarded.putHold(newHold('runaway', { detail: 'a runaway guard paused it: the same call 5 times' }));
    first.runtime.liveRecords!.changed(guarded);

    const before = {
      lead: { usage: { ...lead.usage }, tokens: lead.run.budget.tokensUsed, calls: lead.run.budget.modelCallsUsed },
      watcherQueued: watcher.pendingCount,
      spenderHold: first.runtime.budgets.holdOf(spender.run)!.detail,
    };
    assert.strictEqual(asker.status, 'running', 'the asker waits inside its turn');
    await closeWindow(first);
    windows.splice(0);

    const second = track(openWindow(dir, script));
    const asked: InteractionPrompt[] = [];
    second.runtime.interaction.registerProvider({ ask: async (p) => (asked.push(p), [{ id: 'db', selected: ['SQLite'] }]) });
    const report = await second.restore();
    assert.deepStrictEqual(report.problems, []);
    assert.deepStrictEqual(report.roots.map((a) => a.label).sort(), ['Asker', 'Brancher', 'Busy', 'Guarded', 'Lead', 'Spender']);
    const r = (label: string): Agent => byLabel(second.runtime, label);

    // Lead: idle, the same session, its usage and its run's figures, its ended row, its changes.
    assert.strictEqual(r('Lead').id, lead.id);
    assert.strictEqual(r('Lead').status, 'idle');
    assert.deepStrictEqual(r('Lead').usage, before.lead.usage);
    assert.strictEqual(r('Lead').run.budget.tokensUsed, before.lead.tokens);
    assert.strictEqual(r('Lead').run.budget.modelCallsUsed, before.lead.calls);
    assert.deepStrictEqual(report.agents.find((x) => x.agent.label === 'Lead')?.ended, extras.ended);
    assert.deepStrictEqual((await second.runtime.changes.list(lead.id)).map((f) => f.path), ['src/list.js']);
    // Watcher: a continuable child of the lead again, stopped with its one queued message.
    const w2 = r('Watcher');
    assert.strictEqual(second.runtime.agents.parentOf(w2), r('Lead'));
    assert.strictEqual(second.runtime.subagents.isContinuable(w2), true);
    assert.strictEqual(w2.pendingCount, before.watcherQueued);
    assert.strictEqual(w2.isParked, true);
    assert.strictEqual(describeHold(w2.holds.find((h) => h.reason === 'stop')!).text, 'stopped');
    // Busy: held interrupted, with what it streamed and the tool result it received.
    const b2 = r('Busy');
    assert.ok(report.interrupted.includes(b2));
    const reload = b2.holds.find((h) => h.reason === 'reload');
    assert.strictEqual(reload?.interrupted, true);
    assert.strictEqual(describeHold(reload).text, 'interrupted (window closed)');
    assert.ok(b2.conversation.some((m) => m.role === 'assistant' && m.content.includes('streamed before the close')));
    assert.ok(b2.conversation.some((m) => m.role === 'tool'));
    assert.strictEqual(b2.status, 'idle', 'nothing runs by itself');
    // Brancher and Twig: held by the branch Stop.
    assert.strictEqual(r('Brancher').isHeld, true);
    assert.strictEqual(r('Twig').isHeld, true);
    // Spender: the run is paused, and a raise lets it go on.
    assert.strictEqual(second.runtime.budgets.holdOf(r('Spender').run)?.detail, before.spenderHold);
    assert.ok(r('Spender').holds.some((h) => h.reason === 'budget'));
    // Guarded: its runaway warning and pause, and its worktree folder and link.
    assert.strictEqual(r('Guarded').run.budget.agentWarning(guarded.id), 'the same call 5 times');
    assert.ok(r('Guarded').holds.some((h) => h.reason === 'runaway'));
    assert.strictEqual(r('Guarded').run.workspace?.folder, worktreeFolder);
    assert.deepStrictEqual(report.agents.find((x) => x.agent.label === 'Guarded')?.worktree, worktree);
    // Asker: its question is asked again, and its turn goes on with the answer.
    await until(() => asked.length === 1, `the question asked again: ${JSON.stringify(r('Asker').log.events.slice(-6))} ${JSON.stringify(r('Asker').holds)}`);
    await r('Asker').whenIdle();
    assert.ok(r('Asker').conversation.some((m) => m.role === 'tool' && m.content.includes('SQLite')));

    // A Send to the restored Watcher runs its parked message first, then the new one.
    second.runtime.sendFromUser(w2, 'and the new one');
    await until(() => w2.status === 'idle' && w2.pendingCount === 0 && userMessages(w2).length >= 3, 'the watcher ran both');
    assert.deepStrictEqual(userMessages(w2).slice(-2), ['parked: check the logs', 'and the new one']);
    // Busy continues where it stopped.
    second.runtime.resumeInterrupted(b2);
    await until(() => b2.status === 'idle' && b2.lastTurnEnd?.reason === 'completed', 'busy continued');
    assert.strictEqual(userMessages(b2).at(-1), INTERRUPTED_NOTE);
    assert.ok(!b2.holds.some((h) => h.reason === 'reload'));
  });

  it('after a crash mid-turn (no shutdown, a record a moment old) the log is the truth: the turn comes back interrupted', async () => {
    const crashed = openWindow(dir, script);
    const busy = crashed.runtime.startRoot({ prompt: 'work', label: 'Busy' });
    await until(() => busy.log.events.some((e) => e.type === 'tool_result'), 'busy got its tool result');
    // The record was last written before the turn began; then the process dies: what it flushed stays, nothing else runs.
    const stale = crashed.runtime.liveRecords!.recordOf(busy);
    crashed.files.writeSync({ ...stale, agents: stale.agents.map((a) => ({ ...a, running: false })) });
    crashed.runtime.liveRecords!.stop();
    crashed.store.flushAllSync();
    // Its window lock goes with the process.
    fs.rmSync(path.join(dir, 'locks'), { recursive: true, force: true });

    const next = track(openWindow(dir, script));
    windows.push(crashed);
    const report = await next.restore();
    const back = byLabel(next.runtime, 'Busy');
    assert.deepStrictEqual(report.interrupted, [back]);
    assert.strictEqual(back.lastTurnEnd?.reason, 'interrupted', 'the open turn was closed as interrupted on load');
    assert.strictEqual(describeHold(back.holds.find((h) => h.reason === 'reload')!).text, 'interrupted (window closed)');
    assert.ok(back.conversation.some((m) => m.role === 'assistant' && m.content.includes('streamed before the close')));
  });

  it('a window killed with SIGKILL mid-turn: the next one puts the agent back interrupted, with what it had streamed', async function () {
    // A deadline against a hang: starting node with tsx takes seconds on a loaded machine.
    this.timeout(120_000);
    const { child, output: out, exited } = childWindow('liveTreeChild.ts', dir);
    await until(() => /^busy \S+$/m.test(out()) || child.exitCode !== null, 'the other window busy mid-turn', 110_000);
    const id = /^busy (\S+)$/m.exec(out())?.[1];
    assert.ok(id, out());
    child.kill('SIGKILL');
    await exited;

    const next = track(openWindow(dir, script));
    const report = await next.restore();
    const back = next.runtime.agents.get(id)!;
    assert.ok(back, `the agent is back: ${JSON.stringify(report.problems)}`);
    assert.deepStrictEqual(report.interrupted, [back]);
    assert.strictEqual(describeHold(back.holds.find((h) => h.reason === 'reload')!).text, 'interrupted (window closed)');
    assert.ok(back.conversation.some((m) => m.role === 'assistant' && m.content.includes('streamed before the kill')));
    assert.ok(back.conversation.some((m) => m.role === 'tool'), 'the tool result it had received');
  });

  it('a subagent started with a write scope has the same scope after the restore', async () => {
    const scoped: ModelScript = {
      version: 1,
      agents: {
        Scoper: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Docs', prompt: 'write the docs', scope: ['docs/**'] } }] }, { text: 'started' }], [{ text: 'heard from Docs' }]], afterLastTurn: 'repeat-last' },
        Docs: { turns: [[{ hang: true }]] },
      },
    };
    const first = track(openWindow(dir, scoped));
    const lead = first.runtime.startRoot({ prompt: 'go', label: 'Scoper' });
    await until(() => lead.status === 'idle' && first.runtime.agents.all().some((a) => a.label === 'Docs' && a.status === 'running'), 'the lead idle and its Docs at work');
    const before = first.runtime.writes.scopeOf(byLabel(first.runtime, 'Docs'));
    assert.deepStrictEqual(before?.globs, ['docs/**']);
    await closeWindow(first);
    windows.splice(0);
    const second = track(openWindow(dir, scoped));
    await second.restore();
    const after = second.runtime.writes.scopeOf(byLabel(second.runtime, 'Docs'));
    assert.deepStrictEqual(after && { terms: after.terms, globs: after.globs, setBy: after.setBy }, { terms: before.terms, globs: before.globs, setBy: before.setBy }, 'what it may change is what it could before');
  });

  it('End takes a root out of what is restored', async () => {
    const first = track(openWindow(dir, script));
    const kept = first.runtime.startRoot({ prompt: 'a', label: 'Guarded' });
    const ended = first.runtime.startRoot({ prompt: 'b', label: 'Guarded' });
    await Promise.all([kept.whenIdle(), ended.whenIdle()]);
    await first.runtime.liveRecords!.flush();
    await first.runtime.end(ended);
    await first.runtime.liveRecords!.flush();
    assert.strictEqual(fs.existsSync(first.files.fileOf(ended.id)), false);
    await closeWindow(first);
    windows.splice(0);
    const second = track(openWindow(dir, script));
    const report = await second.restore();
    assert.deepStrictEqual(report.roots.map((a) => a.id), [kept.id]);
  });

  it('a damaged record is a problem of its root alone; a record whose session is gone is dropped with a log line', async () => {
    const first = track(openWindow(dir, script));
    const good = first.runtime.startRoot({ prompt: 'a', label: 'Guarded' });
    const gone = first.runtime.startRoot({ prompt: 'b', label: 'Guarded' });
    await Promise.all([good.whenIdle(), gone.whenIdle()]);
    await closeWindow(first);
    windows.splice(0);
    const damaged = path.join(first.files.folder, 'damaged-root.json');
    fs.writeFileSync(damaged, JSON.stringify({ version: 1, root: 'damaged-root', agents: 'not a list' }));
    fs.rmSync(first.store.fileOf(gone.id));

    const second = track(openWindow(dir, script));
    const report = await second.restore();
    assert.deepStrictEqual(report.roots.map((a) => a.id), [good.id]);
    assert.deepStrictEqual(report.problems.map((p) => [p.sessionId, p.code]), [['damaged-root', 'LIVE_RECORD_UNREADABLE']]);
    assert.strictEqual(fs.existsSync(damaged), false, 'the damaged record is set aside, reported once');
    assert.ok(second.lines.some((l) => l.includes(gone.id) && l.includes('no longer exists')), second.lines.join('\n'));
    assert.strictEqual(fs.existsSync(second.files.fileOf(gone.id)), false);
  });

  it('a record that lists another root as a child puts back the root alone and says so', async () => {
    const first = track(openWindow(dir, script));
    const a = first.runtime.startRoot({ prompt: 'a', label: 'Guarded' });
    const b = first.runtime.startRoot({ prompt: 'b', label: 'Guarded' });
    await Promise.all([a.whenIdle(), b.whenIdle()]);
    await closeWindow(first);
    windows.splice(0);
    const record = JSON.parse(fs.readFileSync(first.files.fileOf(a.id), 'utf8')) as LiveRootRecord;
    record.agents.push({ ...record.agents[0], id: b.id, parent: a.id, kind: 'continuable' });
    fs.writeFileSync(first.files.fileOf(a.id), JSON.stringify(record));
    fs.rmSync(first.files.fileOf(b.id));

    const second = track(openWindow(dir, script));
    const report = await second.restore();
    assert.deepStrictEqual(report.roots.map((r) => r.id), [a.id]);
    assert.strictEqual(second.runtime.agents.get(b.id), undefined, 'not taken as a subagent of another root');
    assert.deepStrictEqual(report.problems.map((p) => [p.sessionId, p.code]), [[b.id, 'LIVE_RECORD_UNREADABLE']]);
  });

  it('restores from a record cut at every offset, and from a log cut at every offset of its last batch', async function () {
    // Some hundreds of windows opened and closed: seconds alone, much longer on a loaded machine.
    this.timeout(240_000);
    const first = track(openWindow(dir, script));
    const other = first.runtime.startRoot({ prompt: 'a', label: 'Guarded' });
    const cut = first.runtime.startRoot({ prompt: 'b', label: 'Guarded' });
    await Promise.all([other.whenIdle(), cut.whenIdle()]);
    await cut.log.flush();
    const logFile = first.store.fileOf(cut.id);
    const sizeBeforeLastBatch = fs.statSync(logFile).size;
    first.runtime.sendFromUser(cut, 'one more');
    await until(() => cut.turnCount === 2 && cut.status === 'idle', 'the last turn');
    await closeWindow(first);
    windows.splice(0);
    const record = fs.readFileSync(first.files.fileOf(cut.id));
    const log = fs.readFileSync(logFile);
    const saved = path.join(dir, 'saved');
    fs.mkdirSync(saved);

    for (let at = 0; at < record.length; at += Math.max(1, Math.floor(record.length / 40))) {
      fs.writeFileSync(first.files.fileOf(cut.id), record.subarray(0, at));
      const w = openWindow(dir, script);
      const report = await w.restore();
      assert.deepStrictEqual(report.roots.map((a) => a.id), [other.id], `record cut at ${at}`);
      assert.deepStrictEqual(report.problems.map((p) => p.sessionId), [cut.id], `record cut at ${at}`);
      await closeWindow(w);
      for (const name of fs.readdirSync(first.files.folder)) if (name.includes('.damaged-')) fs.rmSync(path.join(first.files.folder, name));
    }
    for (let at = sizeBeforeLastBatch; at < log.length; at++) {
      fs.writeFileSync(first.files.fileOf(cut.id), record);
      fs.writeFileSync(logFile, log.subarray(0, at));
      const w = openWindow(dir, script);
      const report = await w.restore();
      assert.deepStrictEqual(report.roots.map((a) => a.id).sort(), [other.id, cut.id].sort(), `log cut at ${at}`);
      assert.deepStrictEqual(report.problems, [], `log cut at ${at}`);
      assert.ok(byLabel(w.runtime, 'Guarded'));
      await closeWindow(w);
    }
  });

  it('never takes a session another live process holds (two stores of two processes)', async function () {
    // A deadline against a hang: starting node with tsx takes seconds on a loaded machine.
    this.timeout(120_000);
    const first = track(openWindow(dir, script));
    const mine = first.runtime.startRoot({ prompt: 'a', label: 'Guarded' });
    const theirs = first.runtime.startRoot({ prompt: 'b', label: 'Guarded' });
    await Promise.all([mine.whenIdle(), theirs.whenIdle()]);
    await closeWindow(first);
    windows.splice(0);
    const holder = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, '..', '..', 'support', 'sessionHolderChild.ts'), dir, theirs.id, 'the other window', 'reopen'], { cwd: path.join(__dirname, '..', '..', '..') });
    let output = '';
    holder.stdout.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise((resolve) => holder.on('exit', resolve));
    try {
      await until(() => output.split('\n').includes('ready') || holder.exitCode !== null, 'the other window holding its session', 110_000);
      assert.ok(output.includes('ready'), output);
      const second = track(openWindow(dir, script));
      const report = await second.restore();
      assert.deepStrictEqual(report.roots.map((a) => a.id), [mine.id]);
      assert.deepStrictEqual(report.problems.map((p) => [p.sessionId, p.code]), [[theirs.id, 'SESSION_IN_USE']]);
      assert.strictEqual(second.runtime.agents.get(theirs.id), undefined);
    } finally {
      holder.stdin.write('close\n');
      await exited;
    }
  });
});

