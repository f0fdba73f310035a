import '../../support/vscodeStub';
import * as assert from 'node:assert/strict';
import type { AttentionItem } from '../../../src/core/attention';
import { AgentsTreeProvider } from '../../../src/extension/agents/agentsTree';
import { isWaitingNode } from '../../../src/extension/attention/waitingNode';
import { OPEN_WAITING_COMMAND, WaitingSectionRows } from '../../../src/extension/attention/waitingRows';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { makeRuntime } from '../../support/runtimeFixture';
import { FakeClock } from '../../support/treeViewHost';

const item = (key: string, label: string, since: number): AttentionItem => ({ key, kind: 'question', agentId: label, agentLabel: label, path: ['Demo lead', label], asks: `${label}, which one?`, since, promptId: key });

describe('the Waiting for you section of the Agents view', () => {
  const track = disposeAfterEach();

  it('is the first row while something waits, lists each item under it in the queue order, and goes when nothing waits', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { Lead: { turns: [[{ text: 'done' }]] } } });
    track(runtime);
    const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
    await lead.whenIdle();
    const tree = new AgentsTreeProvider(runtime, runtime.interaction, undefined, new FakeClock());
    track(tree);
    const rows = new WaitingSectionRows();
    tree.showWaiting(rows);
    assert.deepEqual(tree.getChildren(), [lead], 'no section while nothing waits');

    rows.update([item('ask:1', 'Researcher', 1), item('ask:2', 'Writer', 2)]);
    tree.showWaiting(rows);
    const [section, ...agents] = tree.getChildren();
    assert.ok(isWaitingNode(section) && section.type === 'waiting-section');
    assert.deepEqual(agents, [lead]);
    assert.equal(tree.getTreeItem(section).label, 'Waiting for you');
    assert.equal(tree.getTreeItem(section).description, '2');
    const children = tree.getChildren(section);
    assert.deepEqual(children.map((n) => tree.getTreeItem(n).label), ['Demo lead › Researcher', 'Demo lead › Writer']);
    const first = tree.getTreeItem(children[0]);
    assert.equal(first.description, 'question: Researcher, which one?');
    assert.deepEqual(first.command, { command: OPEN_WAITING_COMMAND, title: 'Open', arguments: ['ask:1'] });
    assert.equal(tree.getParent(children[0]), section);

    rows.update([item('ask:2', 'Writer', 2)]);
    tree.showWaiting(rows);
    assert.strictEqual(tree.getChildren(tree.getChildren()[0]).at(0), children[1], 'a row that stays is the same node');
    rows.update([]);
    tree.showWaiting(rows);
    assert.deepEqual(tree.getChildren(), [lead]);
  });
});
