import * as assert from 'assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents/agent';
import { describeHold } from '../../../src/core/agents/holds';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { LiveRecordFiles, type LiveRootRecord, type RestoreReport } from '../../../src/core/restore';
import { INTERRUPTED_NOTE, Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { makeTempDir } from '../../support/sessionFixtures';
import { until, userMessages } from '../../support/runtimeFixture';
import { closeWindow, openTestWindow } from '../../support/windows';
import { childWindow } from '../../support/childWindow';

/** One window on the sessions folder `dir` (as liveTree.test.ts opens them). */
function openWindow(dir: string, script: ModelScript) {
  const { store, runtime } = openTestWindow(dir, script, { onProblem: () => undefined });
  return { store, runtime, files: new LiveRecordFiles(dir), restore: (): Promise<RestoreReport> => runtime.restoreLive() };
}

/** Counts every open of a session file for reading (the store reads them through fs.promises.open; its writes open them to append) while installed. */
function countSessionReads(): { reads: Map<string, number>; stop(): void } {
  const reads = new Map<string, number>();
  const original = fs.promises.open;
  fs.promises.open = (async (file: fs.PathLike, ...rest: unknown[]) => {
    const name = path.basename(String(file));
    const flags = rest[0];
    if (name.endsWith('.jsonl') && (flags === undefined || flags === 'r')) reads.set(name, (reads.get(name) ?? 0) + 1);
    return (original as (...args: unknown[]) => Promise<fs.promises.FileHandle>)(file, ...rest);
  });
  return { reads, stop: () => void (fs.promises.open = original) };
}

const script: ModelScript = {
  version: 1,
  agents: {
    Lead: {
      turns: [
        [{ text: 'Starting the helpers.', toolCalls: [{ name: 'start_subagent', arguments: { label: 'Watcher', prompt: 'watch the build' } }, { name: 'start_subagent', arguments: { label: 'Worker', prompt: 'work on it' } }] }, { text: 'Lead is done for now.' }],
        [{ text: 'lead turn 2' }],
      ],
    },
    Watcher: { turns: [[{ hang: true }], [{ text: 'watched: first' }], [{ text: 'watched: second' }]] },
    Worker: { turns: [[{ text: 'streamed before the close', toolCalls: [{ name: 'list_agents', arguments: {} }] }, { hang: true }], [{ text: 'worker continued' }]] },
  },
};

describe('restore: the tree comes from the live-state records, and transcripts load when needed', () => {
  let dir: string;
  let cleanup: () => void;
  const windows: Array<{ runtime: Runtime; store: JsonlSessionStore }> = [];
  let counter: ReturnType<typeof countSessionReads> | undefined;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-restore-deferred-')));
  afterEach(async () => {
    counter?.stop();
    counter = undefined;
    for (const w of windows.splice(0)) await closeWindow(w).catch(() => undefined);
    cleanup();
  });

  /** A lead idle, its Watcher stopped with a queued message, its Worker in the middle of a turn; then the window goes. */
  async function leaveATree(): Promise<{ lead: Agent; watcher: Agent; worker: Agent; usage: { inputTokens: number; outputTokens: number } }> {
    const first = openWindow(dir, script);
    const lead = first.runtime.startRoot({ prompt: 'plan', label: 'Lead' });
    const live = (label: string): Agent | undefined => first.runtime.agents.all().find((a) => a.label === label);
    await until(() => lead.status === 'idle' && live('Watcher')?.status === 'running' && live('Worker')?.log.events.some((e) => e.type === 'tool_result') === true, 'the lead idle, its helpers busy');
    const watcher = live('Watcher')!;
    const worker = live('Worker')!;
    first.runtime.sendFromUser(watcher, 'parked: check the logs');
    first.runtime.stop(watcher);
    await until(() => watcher.status === 'idle' && watcher.isParked, 'the watcher stopped with its queue');
    const usage = { ...lead.usage };
    await closeWindow(first);
    return { lead, watcher, worker, usage };
  }

  it('puts the tree back without opening a transcript: labels, states, queue, usage, interrupted turn', async () => {
    const before = await leaveATree();
    counter = countSessionReads();
    const second = openWindow(dir, script);
    windows.push(second);
    const report = await second.restore();
    assert.deepStrictEqual(report.problems, []);
    assert.deepStrictEqual([...counter.reads.keys()], [], 'no transcript was opened to put the tree back');

    const lead = second.runtime.agents.get(before.lead.id)!;
    const watcher = second.runtime.agents.get(before.watcher.id)!;
    const worker = second.runtime.agents.get(before.worker.id)!;
    assert.deepStrictEqual(report.roots, [lead]);
    assert.strictEqual(lead.status, 'idle');
    assert.deepStrictEqual(lead.usage, before.usage);
    assert.strictEqual(second.runtime.agents.parentOf(watcher), lead);
    assert.strictEqual(second.runtime.agents.parentOf(worker), lead);
    assert.strictEqual(watcher.pendingCount, 1);
    assert.strictEqual(watcher.isParked, true);
    assert.strictEqual(describeHold(watcher.holds.find((h) => h.reason === 'stop')!).text, 'stopped');
    assert.deepStrictEqual(report.interrupted, [worker]);
    assert.strictEqual(describeHold(worker.holds.find((h) => h.reason === 'reload')!).text, 'interrupted (window closed)');
    assert.strictEqual(worker.lastTurnEnd?.reason, 'interrupted');
    assert.deepStrictEqual([...counter.reads.keys()], [], 'still none read');

    // Opening the Worker's conversation reads its transcript, and only its.
    await worker.loadPast();
    assert.deepStrictEqual([...counter.reads.keys()], [path.basename(second.store.fileOf(worker.id))]);
    assert.ok(worker.conversation.some((m) => m.role === 'assistant' && m.content.includes('streamed before the close')));
    assert.ok(worker.conversation.some((m) => m.role === 'tool'), 'the tool result it had received');
    assert.ok(worker.log.events.some((e) => e.type === 'turn_end' && e.reason === 'interrupted'), 'the open turn was closed on the read');
    await worker.loadPast();
    assert.strictEqual(counter.reads.get(path.basename(second.store.fileOf(worker.id))), 1, 'read once');
  });

  it('the next turn reads the transcript first: a Send to the stopped Watcher runs its parked message, then the new one', async () => {
    const before = await leaveATree();
    counter = countSessionReads();
    const second = openWindow(dir, script);
    windows.push(second);
    await second.restore();
    const watcher = second.runtime.agents.get(before.watcher.id)!;
    const worker = second.runtime.agents.get(before.worker.id)!;
    assert.strictEqual(counter.reads.size, 0);

    second.runtime.sendFromUser(watcher, 'and the new one');
    await until(() => watcher.status === 'idle' && watcher.pendingCount === 0 && userMessages(watcher).length >= 3, 'the watcher ran both');
    assert.deepStrictEqual(userMessages(watcher).slice(-2), ['parked: check the logs', 'and the new one']);
    // The Watcher's, and its lead's, which the Watcher's report reached.
    assert.deepStrictEqual([...counter.reads.keys()].sort(), [path.basename(second.store.fileOf(watcher.id)), path.basename(second.store.fileOf(before.lead.id))].sort());
    // Continuing the interrupted Worker reads it, and its turn goes on where it stopped.
    second.runtime.resumeInterrupted(worker);
    await until(() => worker.status === 'idle' && worker.lastTurnEnd?.reason === 'completed', 'the worker continued');
    assert.strictEqual(userMessages(worker).at(-1), INTERRUPTED_NOTE);
    assert.ok(worker.conversation.some((m) => m.role === 'assistant' && m.content.includes('streamed before the close')));

    // What the window wrote landed in the files, after what they held.
    await closeWindow(second);
    windows.splice(0);
    const loaded = await new JsonlSessionStore(dir).loadSession(before.watcher.id);
    const texts = loaded.events.flatMap((e) => (e.type === 'user_message' ? [e.text] : []));
    assert.deepStrictEqual(texts.slice(-2), ['parked: check the logs', 'and the new one']);
    assert.strictEqual(loaded.events.filter((e) => e.type === 'queued' && e.text === 'and the new one').length, 1, 'the new message written once');
  });

  it('a log written after its record is read at restore (the log is the truth), and only that one', async () => {
    const before = await leaveATree();
    // The Watcher's log grew after its record was written (a crash before the record caught up).
    const file = new JsonlSessionStore(dir).fileOf(before.watcher.id);
    const record = JSON.parse(fs.readFileSync(new LiveRecordFiles(dir).fileOf(before.lead.id), 'utf8')) as LiveRootRecord;
    assert.ok(record.agents.every((a) => a.past !== undefined), 'every agent of the record has its past');
    const grown = record.agents.find((a) => a.id === before.watcher.id)!;
    grown.past!.length -= 1;
    fs.writeFileSync(new LiveRecordFiles(dir).fileOf(before.lead.id), JSON.stringify(record));

    counter = countSessionReads();
    const second = openWindow(dir, script);
    windows.push(second);
    const report = await second.restore();
    assert.deepStrictEqual(report.problems, []);
    assert.deepStrictEqual([...counter.reads.keys()], [path.basename(file)], 'only the log that changed since its record');
    const watcher = second.runtime.agents.get(before.watcher.id)!;
    assert.strictEqual(watcher.pendingCount, 1);
    assert.ok(watcher.conversation.length > 0, 'read at once');
  });

  it('a window killed with SIGKILL while a subagent is mid-turn: the next one puts the tree back from the record, the subagent interrupted, and reads its transcript when it is opened', async function () {
    // A deadline against a hang: starting node with tsx takes seconds on a loaded machine.
    this.timeout(120_000);
    const { child, output: out, exited } = childWindow('liveTreeKilledChild.ts', dir);
    await until(() => /^ready \S+ \S+$/m.test(out()) || child.exitCode !== null, 'the other window with its worker mid-turn', 110_000);
    const [, leadId, workerId] = /^ready (\S+) (\S+)$/m.exec(out()) ?? [];
    assert.ok(workerId, out());
    child.kill('SIGKILL');
    await exited;

    counter = countSessionReads();
    const next = openWindow(dir, script);
    windows.push(next);
    const report = await next.restore();
    assert.deepStrictEqual(report.problems, []);
    const lead = next.runtime.agents.get(leadId)!;
    const worker = next.runtime.agents.get(workerId)!;
    assert.ok(lead && worker, `the tree is back: ${report.agents.map((a) => a.agent.label).join(', ')}`);
    assert.strictEqual(next.runtime.agents.parentOf(worker), lead);
    assert.strictEqual(lead.status, 'idle');
    assert.deepStrictEqual(report.interrupted, [worker]);
    assert.strictEqual(describeHold(worker.holds.find((h) => h.reason === 'reload')!).text, 'interrupted (window closed)');
    assert.deepStrictEqual([...counter.reads.keys()], [], 'put back from the record alone');
    await worker.loadPast();
    assert.ok(worker.conversation.some((m) => m.role === 'assistant' && m.content.includes('streamed before the kill')));
    assert.ok(worker.conversation.some((m) => m.role === 'tool'), 'the tool result it had received');
    assert.strictEqual(worker.lastTurnEnd?.reason, 'interrupted', 'the open turn closed as interrupted when read');
  });

  it('a transcript that cannot be read fails the turn that needs it, on that agent alone, and leaves the tree as it was', async () => {
    const before = await leaveATree();
    const second = openWindow(dir, script);
    windows.push(second);
    await second.restore();
    const watcher = second.runtime.agents.get(before.watcher.id)!;
    const lead = second.runtime.agents.get(before.lead.id)!;
    // The file is replaced by something that is not a session at all.
    fs.writeFileSync(second.store.fileOf(watcher.id), 'not a session\n');
    second.runtime.sendFromUser(watcher, 'go on');
    await until(() => watcher.status === 'idle' && watcher.lastTurnEnd?.reason === 'error', 'the turn failed');
    assert.match(watcher.lastTurnEnd!.message ?? '', /could not be read back/);
    assert.strictEqual(lead.status, 'idle');
    await assert.rejects(watcher.loadPast()!);
  });
});
