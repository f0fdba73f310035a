import * as assert from 'assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents/agent';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { Runtime } from '../../../src/core/runtime';
import { until } from '../../support/runtimeFixture';
import { closeWindow, openTestWindow, sessionsFolderPerTest } from '../../support/windows';

// A run's wall-time budget, and a branch's, go on after a reload from what they had used: the
// reload neither gives the time back (the budget starting again at zero) nor charges the time no
// window ran the run.

const NONE = { inputTokens: 0, outputTokens: 0 };
const script: ModelScript = {
  version: 1,
  agents: {
    Lead: {
      turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Timed', prompt: 'work', budget: { wallTimeSeconds: 500 } } }], usage: NONE }, { text: 'lead waits', usage: NONE }]],
      afterLastTurn: 'repeat-last',
    },
    // Still at work when the window closes.
    Timed: { turns: [[{ hang: true }]], afterLastTurn: 'repeat-last' },
  },
};

const openWindow = (dir: string, clock: { now: number }) => openTestWindow(dir, script, { limits: { maxWallTimeSeconds: 1000 }, now: () => clock.now, shutdownWaitMs: 5_000 });

const byLabel = (runtime: Runtime, label: string): Agent => {
  const agent = runtime.agents.all().find((a) => a.label === label);
  assert.ok(agent, `no live agent labelled ${label}`);
  return agent;
};

const said = (agent: Agent, text: string): boolean => agent.log.events.some((e) => e.type === 'assistant_text' && e.text === text);
/** The lead waits for its branch, which is at work. */
const settled = (runtime: Runtime): boolean => {
  const lead = runtime.agents.all().find((a) => a.label === 'Lead');
  const timed = runtime.agents.all().find((a) => a.label === 'Timed');
  return lead !== undefined && timed !== undefined && said(lead, 'lead waits') && lead.status === 'idle' && timed.status === 'running';
};

const wallUsed = (runtime: Runtime, agent: Agent): number | undefined => runtime.budgets.status(agent.run).measures.find((m) => m.key === 'wallTime')?.used;

describe('restore: wall-time budgets go on from what they had used', () => {
  const folder = sessionsFolderPerTest('arbor-wall-');
  const { windows } = folder;

  /** A window whose run and branch used 40 s of wall time (both are checked) closes; its clock goes on. */
  async function closedAfter40s(): Promise<{ now: number }> {
    const clock = { now: Date.parse('2026-12-01T10:00:00.000Z') };
    const first = windows.open(openWindow(folder.dir, clock));
    first.runtime.startRoot({ prompt: 'go', label: 'Lead' });
    await until(() => settled(first.runtime), 'the lead to wait for its branch at work');
    clock.now += 40_000;
    assert.strictEqual(wallUsed(first.runtime, byLabel(first.runtime, 'Lead')), 40);
    assert.strictEqual(first.runtime.budgets.slices.ownSliceOf(byLabel(first.runtime, 'Timed'))?.used('wallTimeSeconds', clock.now), 40);
    await closeWindow(first);
    windows.forget();
    return clock;
  }

  it("the run's and the branch's wall time after a reload are what they were when the window closed, not zero and not the hour it was closed", async () => {
    const clock = await closedAfter40s();

    // The window stays closed for an hour.
    clock.now += 3_600_000;
    const second = windows.open(openWindow(folder.dir, clock));
    const report = await second.runtime.restoreLive();
    assert.deepStrictEqual(report.problems, []);
    const lead2 = byLabel(second.runtime, 'Lead');
    assert.strictEqual(wallUsed(second.runtime, lead2), 40, "the run's 40 s, neither 0 nor 3,640");
    const timed = byLabel(second.runtime, 'Timed');
    assert.strictEqual(second.runtime.budgets.slices.ownSliceOf(timed)?.used('wallTimeSeconds', clock.now), 40, "the branch's 40 s");
    // And it goes on counting from there.
    clock.now += 20_000;
    assert.strictEqual(wallUsed(second.runtime, lead2), 60);
    assert.strictEqual(second.runtime.budgets.status(lead2.run).level, 'ok');
  });

  it('a record written before wall time was kept puts the run back with none used, as before', async () => {
    const clock = await closedAfter40s();
    // An older version's record: no wallSeconds on the run or the slice.
    const files = fs.readdirSync(path.join(folder.dir, 'live')).filter((name) => name.endsWith('.json'));
    assert.strictEqual(files.length, 1);
    const file = path.join(folder.dir, 'live', files[0]);
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as { run: { wallSeconds?: number }; agents: Array<{ slice?: { wallSeconds?: number } }> };
    assert.strictEqual(record.run.wallSeconds, 40);
    delete record.run.wallSeconds;
    for (const agent of record.agents) delete agent.slice?.wallSeconds;
    fs.writeFileSync(file, JSON.stringify(record));

    const second = windows.open(openWindow(folder.dir, clock));
    const report = await second.runtime.restoreLive();
    assert.deepStrictEqual(report.problems, []);
    assert.strictEqual(wallUsed(second.runtime, byLabel(second.runtime, 'Lead')), 0);
    assert.strictEqual(second.runtime.budgets.slices.ownSliceOf(byLabel(second.runtime, 'Timed'))?.used('wallTimeSeconds', clock.now), 0);
  });
});
