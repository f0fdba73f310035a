import '../../support/vscodeStub';
import * as assert from 'node:assert/strict';
import type { Agent } from '../../../src/core/agents/agent';
import { registerAgentCommands } from '../../../src/extension/agents/agentCommands';
import { presentLiveAgent } from '../../../src/extension/agents/agentPresentation';
import { AgentRows, type AgentRow } from '../../../src/extension/agents/agentRows';
import { AgentsTreeProvider, type ChangedFilesSource } from '../../../src/extension/agents/agentsTree';
import { COALESCE_MS, REPAINT_INTERVAL_MS } from '../../../src/extension/agents/repaintQueue';
import type { ChangedFileNode } from '../../../src/extension/review';
import { forged } from '../../support/forged';
import { FakeClock } from '../../support/treeViewHost';
import { vscodeStub } from '../../support/vscodeStub';
import { makeRuntime, until } from '../../support/runtimeFixture';
import { whenState } from '../../support/events';

const TICK_MS = 1000;

/** A lead whose one turn runs until it is stopped, its tree on a clock of the test's, and every repaint fired. */
async function runningLead(files?: ChangedFilesSource) {
  const { runtime } = makeRuntime({ version: 1, agents: { Lead: { turns: [[{ hang: true }]] } } });
  const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
  await whenState(runtime, () => lead.status === 'running', 'the turn to run');
  const clock = new FakeClock();
  const tree = new AgentsTreeProvider(runtime, runtime.interaction, files, clock);
  // Each repaint, as the labels of the rows it names.
  const fired: Array<string[] | 'whole'> = [];
  tree.onDidChangeTreeData((e) => fired.push(e === undefined ? 'whole' : (Array.isArray(e) ? e : [e]).map((a) => a.label)));
  // The workbench's first fetch.
  tree.getChildren();
  const shown = String(tree.getTreeItem(lead).description);
  const end = async () => {
    tree.dispose();
    runtime.stop(lead);
    await runtime.dispose();
  };
  return { runtime, lead, clock, tree, fired, shown, end };
}

/** Waits, in real time, until the lead's row would read differently from `shown` (its elapsed time moved on). */
function untilItsTimeMoves(runtime: ReturnType<typeof makeRuntime>['runtime'], lead: Agent, shown: string): Promise<void> {
  return until(() => presentLiveAgent(lead, runtime.agents, []).description !== shown, 'a second of the turn to pass', 5000);
}

function fileSource(initial: Record<string, ChangedFileNode[]>) {
  const files = new Map(Object.entries(initial));
  const listeners = new Set<(sessionId: string) => void>();
  const source: ChangedFilesSource = {
    filesOf: (sessionId) => files.get(sessionId) ?? [],
    onDidChange: (listener: (sessionId: string) => void) => {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
  };
  const set = (sessionId: string, list: ChangedFileNode[]): void => {
    files.set(sessionId, list);
    for (const l of listeners) l(sessionId);
  };
  return { source, set };
}

const changed = (sessionId: string, path: string, created = false): ChangedFileNode => ({ type: 'changed-file', sessionId, path, created });

describe('the Agents view builds each row once per repaint', () => {
  it('a repaint builds the row it names once, and the host reads that row without building it again', async () => {
    const { runtime, lead, clock, tree, fired, shown, end } = await runningLead();
    const before = tree.rowBuilds;
    await untilItsTimeMoves(runtime, lead, shown);
    // The clock marks the running row; the repaint builds it, finds it changed and fires it.
    clock.advance(TICK_MS + COALESCE_MS);
    assert.deepEqual(fired, [['Lead']]);
    const item = tree.getTreeItem(lead); // the host asks for the repainted row
    assert.notEqual(item.description, shown, 'the host is given the row the repaint built');
    assert.equal(tree.rowBuilds - before, 1, 'one build for one row in one repaint');
    await end();
  });

  it('a row read outside the repaints changes nothing the next repaint compares with', async () => {
    const { runtime, lead, clock, tree, fired, shown, end } = await runningLead();
    await untilItsTimeMoves(runtime, lead, shown);
    // A reader that is not the view (a picker once was one) reads the row between repaints.
    tree.getTreeItem(lead);
    clock.advance(TICK_MS + COALESCE_MS);
    assert.deepEqual(fired, [['Lead']], 'the view is still told that the row changed');
    await end();
  });

  it("the Stop Agent quick pick describes agents without taking the view's repaint in flight", async () => {
    const { runtime, lead, clock, tree, fired, end } = await runningLead();
    const commands = registerAgentCommands({
      runtime,
      tree,
      transcripts: forged({}),
      log: forged({ info: () => undefined, warn: () => undefined, error: () => undefined }),
      startRun: forged(() => undefined),
      startDemo: forged(() => undefined),
    });
    const offered: Array<Array<{ label: string; description: string; detail: string }>> = [];
    const showQuickPick = vscodeStub.window.showQuickPick;
    vscodeStub.window.showQuickPick = (items) => {
      offered.push(forged(items));
      return Promise.resolve(undefined);
    };
    try {
      lead.send('note 1', { from: 'user', wake: false });
      clock.advance(COALESCE_MS);
      assert.deepEqual(fired, [['Lead']], 'a repaint is in flight: the view has not asked for its row yet');
      lead.send('note 2', { from: 'user', wake: false });
      await vscodeStub.commands.executeCommand('arbor.stopAgent');
      assert.equal(offered.length, 1, 'the pick was shown');
      assert.deepEqual(
        offered[0].map(({ label, description, detail }) => ({ label, description, detail })),
        [{ label: 'Lead', description: 'Lead', detail: presentLiveAgent(lead, runtime.agents, []).description }],
      );
      clock.advance(REPAINT_INTERVAL_MS + COALESCE_MS);
      assert.equal(fired.length, 1, 'the next repaint still waits for the view to take the one in flight');
      tree.getTreeItem(lead); // the host asks
      clock.advance(REPAINT_INTERVAL_MS);
      assert.equal(fired.length, 2, 'then the change made meanwhile is repainted');
      assert.equal(lead.status, 'running', 'dismissing the pick stops nothing');
    } finally {
      vscodeStub.window.showQuickPick = showQuickPick;
      for (const c of commands) c.dispose();
      await end();
    }
  });
});

describe('changed files are rows of the Agents view', () => {
  it('lists them after its subagents, counts them on its row, and names them in its tooltip', async () => {
    const files = fileSource({});
    const { lead, tree, end } = await runningLead(files.source);
    const edited = changed(lead.id, 'src/a.ts');
    const created = changed(lead.id, 'notes.md', true);
    files.set(lead.id, [edited, created]);
    assert.deepEqual(tree.getChildren(lead), [edited, created]);
    assert.equal(tree.getParent(created), lead, 'a file row sits under its agent');
    const file = tree.getTreeItem(edited);
    assert.equal(file.contextValue, 'changedFile:edited');
    assert.equal(file.description, 'src');
    assert.deepEqual(forged<{ command: string; arguments: unknown[] }>(file.command), { command: 'arbor.reviewChanges', title: 'Review Changes', arguments: [edited] });
    assert.equal(tree.getTreeItem(created).contextValue, 'changedFile:created');
    const tooltip = forged<{ value: string }>(tree.resolveTreeItem(tree.getTreeItem(lead), lead).tooltip).value;
    assert.match(tooltip, /\*\*2 files changed\*\* \(Review Changes shows the diffs\):\n\n- `src\/a\.ts`\n- `notes\.md` \(created\)/);
    await end();
  });

  it("a change to an agent's record repaints only that agent's row, which then says how many files it changed", async () => {
    const files = fileSource({});
    const { lead, clock, tree, fired, end } = await runningLead(files.source);
    files.set(lead.id, [changed(lead.id, 'src/a.ts'), changed(lead.id, 'src/b.ts')]);
    clock.advance(COALESCE_MS);
    assert.deepEqual(fired, [['Lead']]);
    const item = tree.getTreeItem(lead);
    assert.match(String(item.description), / · 2 files changed$/);
    assert.equal(item.collapsibleState, vscodeStub.TreeItemCollapsibleState.Expanded);
    files.set(lead.id, Array.from({ length: 6 }, (_, i) => changed(lead.id, `f${i}.ts`)));
    clock.advance(REPAINT_INTERVAL_MS);
    assert.deepEqual(fired, [['Lead'], ['Lead']]);
    assert.equal(tree.getTreeItem(lead).collapsibleState, vscodeStub.TreeItemCollapsibleState.Collapsed, 'more than five start collapsed');
    await end();
  });

  it('a running row with files under it is not repainted for time: it says when its turn started', async () => {
    const files = fileSource({});
    const { runtime, lead, clock, tree, fired, shown, end } = await runningLead(files.source);
    assert.match(shown, /thinking · \d+s/, 'a running row without children shows its elapsed time');
    files.set(lead.id, [changed(lead.id, 'src/a.ts')]);
    clock.advance(COALESCE_MS);
    const since = String(tree.getTreeItem(lead).description);
    assert.match(since, /thinking since \d\d:\d\d:\d\d/);
    await untilItsTimeMoves(runtime, lead, shown);
    clock.advance(3 * TICK_MS);
    assert.deepEqual(fired, [['Lead']], 'only the change of its files repainted it');
    assert.equal(tree.getTreeItem(lead).description, since);
    await end();
  });
});

describe('the row cache', () => {
  it('only a repaint replaces a row; after a whole-tree repaint each row is built again on its next read', () => {
    let text = 'a';
    let builds = 0;
    const row = (): AgentRow => {
      builds++;
      return { presentation: { state: 'idle', contextValue: 'agent:idle:root', icon: 'circle-outline', description: text, tooltip: '' }, description: text, expansion: 'none' };
    };
    const rows = new AgentRows(row);
    const agent = forged<Agent>({});
    assert.equal(rows.rowOf(agent).description, 'a');
    text = 'b';
    assert.equal(rows.rowOf(agent).description, 'a', 'a read returns the row the view was given');
    assert.equal(rows.refresh(agent), true, 'a repaint finds it changed');
    assert.equal(rows.rowOf(agent).description, 'b');
    assert.equal(rows.refresh(agent), false, 'and unchanged the next time');
    assert.equal(builds, 3);
    rows.dropAll();
    text = 'c';
    assert.equal(rows.rowOf(agent).description, 'c');
    assert.equal(rows.rowOf(agent).description, 'c');
    assert.equal(builds, 4, 'one build per read after a whole-tree repaint, once');
    assert.equal(rows.builds, builds);
  });
});
