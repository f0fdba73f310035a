import * as assert from 'assert';
import * as fs from 'node:fs';
import type { Agent } from '../../../src/core/agents/agent';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { LiveRecordFiles } from '../../../src/core/restore';
import { Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore } from '../../../src/core/sessions';
import type { GitWorktree } from '../../../src/core/workspace';
import { EndedSubagents } from '../../../src/extension/agents/endedSubagents';
import { inOrderAmong, restoreAtStart } from '../../../src/extension/agents/restoreAtStart';
import { makeTempDir } from '../../support/sessionFixtures';
import { recordingModel, until } from '../../support/runtimeFixture';
import { closeWindow } from '../../support/windows';

const script: ModelScript = {
  version: 1,
  agents: {
    Lead: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Kid', prompt: 'count' } }] }, { text: 'waiting for the kid' }], [{ text: 'thanks' }]] },
    Kid: { turns: [[{ text: 'three' }]] },
    Busy: { turns: [[{ hang: true }]] },
    Broken: { turns: [[{ text: 'ok' }]] },
  },
};

/** A window as activation makes it: a runtime on durable sessions, the tree's ended rows, the worktree runs and the log. */
function editorWindow(dir: string) {
  const store = new JsonlSessionStore(dir, { flushDelayMs: 1 });
  let n = 0;
  const runtime = new Runtime({ model: recordingModel(script).model, sessions: store, liveRecordsFolder: dir, liveRecordDelayMs: 5, newId: (l) => `${l.toLowerCase()}-${Date.now().toString(36)}-${++n}`, onProblem: () => undefined });
  const ended = new EndedSubagents(runtime.agents, (parent) => runtime.liveRecords?.changed(parent));
  runtime.onEvent((e) => ended.observe(e));
  const worktrees = new Map<string, GitWorktree>();
  const warnings: string[] = [];
  const lines: string[] = [];
  const asked: string[] = [];
  const deps = {
    runtime,
    ended,
    worktreeOf: (root: Agent) => worktrees.get(root.id),
    adoptWorktree: (root: Agent, worktree: GitWorktree) => worktrees.set(root.id, worktree),
    log: { info: (l: string) => lines.push(l), warn: (l: string) => lines.push(`warn: ${l}`) },
    warn: (m: string) => warnings.push(m),
    afterReload: {
      setting: () => 'ask' as const,
      // The person dismisses the question: the agents stay held.
      notifications: { showInformationMessage: async (message: string) => (asked.push(message), undefined) },
      reveal: () => undefined,
    },
  };
  return { store, runtime, ended, worktrees, warnings, lines, asked, deps };
}

describe('editor: the tree of the last window comes back at start', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-restore-start-')));
  afterEach(() => cleanup());

  it("puts back the ended rows and the worktree link, says once what it could not put back, and hands the interrupted agents on", async () => {
    const first = editorWindow(dir);
    await restoreAtStart(first.deps);
    const lead = first.runtime.startRoot({ prompt: 'count with a kid', label: 'Lead' });
    await until(() => first.ended.count(lead) === 1 && lead.status === 'idle', 'the kid settled into an ended row');
    const busy = first.runtime.startRoot({ prompt: 'work', label: 'Busy' });
    first.worktrees.set(busy.id, { repo: dir, root: dir, folder: dir, branch: 'arbor/busy', base: 'abc' });
    await until(() => busy.status === 'running', 'busy running');
    const broken = first.runtime.startRoot({ prompt: 'x', label: 'Broken' });
    await broken.whenIdle();
    await closeWindow(first);
    fs.writeFileSync(new LiveRecordFiles(dir).fileOf(broken.id), '{"version":1,"root":');
    const kidRow = { ...first.ended.of(lead)[0] };

    const second = editorWindow(dir);
    const report = await restoreAtStart(second.deps);
    const lead2 = second.runtime.agents.get(lead.id)!;
    const busy2 = second.runtime.agents.get(busy.id)!;
    const { creationOrder: _order, ...kid } = kidRow;
    assert.deepStrictEqual(second.ended.of(lead2).map(({ creationOrder: _o, ...r }) => r), [kid], "the kid's ended row is back under the lead");
    assert.deepStrictEqual(second.worktrees.get(busy.id)?.branch, 'arbor/busy', 'Review, Keep and Discard Worktree list it again');
    assert.deepStrictEqual(report.interrupted, [busy2]);
    await until(() => second.asked.length === 1, 'the after-reload question');
    assert.match(second.asked[0], /"Busy" was interrupted when the window closed/, 'the interrupted agent is asked about');
    assert.ok(busy2.holds.some((h) => h.reason === 'reload' && h.interrupted), 'dismissed, it stays held');
    assert.strictEqual(second.warnings.length, 1, second.warnings.join('\n'));
    assert.match(second.warnings[0], /could not put back one agent/);
    assert.deepStrictEqual(report.problems.map((p) => p.sessionId), [broken.id]);
    await closeWindow(second);
  });
});

describe('editor: Clear Ended Subagents takes the rows out of what is restored', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-restore-clear-')));
  afterEach(() => cleanup());

  it('a cleared row does not come back after a reload', async () => {
    const first = editorWindow(dir);
    await restoreAtStart(first.deps);
    const lead = first.runtime.startRoot({ prompt: 'count with a kid', label: 'Lead' });
    await until(() => first.ended.count(lead) === 1 && lead.status === 'idle', 'the kid settled into an ended row');
    await first.runtime.liveRecords!.flush();
    assert.strictEqual(first.ended.clear(lead), 1);
    await closeWindow(first);

    const second = editorWindow(dir);
    await restoreAtStart(second.deps);
    const back = second.runtime.agents.get(lead.id);
    assert.ok(back, 'the lead is back');
    assert.deepStrictEqual(second.ended.of(back), [], 'its cleared row is not');
    await closeWindow(second);
  });
});

describe('editor: ended rows keep their place among the restored children', () => {
  it('numbers each ended row between the restored siblings it stood between', () => {
    // Before the reload: Researcher (2, ended), Watcher (3, live), Summarizer (4, ended), Notes (5, ended), Kid (6, live).
    const rows = [
      { id: 's', creationOrder: 4 },
      { id: 'r', creationOrder: 2 },
      { id: 'n', creationOrder: 5 },
    ];
    const children = [
      { recorded: 6, now: 12, id: 'k' },
      { recorded: 3, now: 11, id: 'w' },
    ];
    const placed = inOrderAmong(children, rows);
    const order = [...placed.map((r) => ({ id: r.id, at: r.creationOrder })), ...children.map((c) => ({ id: c.id, at: c.now }))].sort((a, b) => a.at - b.at).map((x) => x.id);
    assert.deepStrictEqual(order, ['r', 'w', 's', 'n', 'k']);
    assert.deepStrictEqual(inOrderAmong([], rows).map((r) => r.id), ['r', 's', 'n'], 'with no live sibling the rows keep their own order');
  });
});
