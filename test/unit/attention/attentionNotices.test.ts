import '../../support/vscodeStub';
import * as assert from 'node:assert/strict';
import type { AttentionItem } from '../../../src/core/attention';
import { AttentionNotices, OPEN, SHOW_WAITING } from '../../../src/extension/attention/attentionNotices';

const item = (key: string, kind: AttentionItem['kind'], label: string, since: number): AttentionItem => ({ key, kind, agentId: label, agentLabel: label, path: ['Lead', label], asks: `${label}?`, since, promptId: kind === 'budget' ? undefined : key });

function notices(shown?: string) {
  const told: Array<{ message: string; actions: string[]; close: (pick?: string) => void }> = [];
  const opened: string[] = [];
  const n = new AttentionNotices({
    shownId: () => shown,
    open: (key) => opened.push(key),
    showInformationMessage: (message, ...actions) => new Promise((resolve) => told.push({ message, actions, close: resolve })),
  });
  return { n, told, opened };
}

describe('the notices of what waits: one per kind, never one per item', () => {
  it('tells a waiting question once, with Open and Show What Is Waiting; Open opens that item', async () => {
    const { n, told, opened } = notices();
    n.update([item('ask:1', 'question', 'Researcher', 1)]);
    assert.equal(told.length, 1);
    assert.equal(told[0].message, 'Arbor: Lead › Researcher waits for your question: Researcher?');
    assert.deepEqual(told[0].actions, [OPEN, SHOW_WAITING]);
    told[0].close(OPEN);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(opened, ['ask:1']);
  });

  it('says nothing more of a kind while its notice is open, and tells the count once it was closed', async () => {
    const { n, told } = notices();
    const a = item('ask:1', 'question', 'Researcher', 1);
    const b = item('ask:2', 'question', 'Writer', 2);
    n.update([a]);
    n.update([a, b]);
    assert.equal(told.length, 1, 'not repeated while one is shown');
    told[0].close();
    await new Promise((r) => setImmediate(r));
    const c = item('ask:3', 'question', 'Editor', 3);
    n.update([a, b, c]);
    assert.equal(told.length, 2);
    assert.equal(told[1].message, 'Arbor: 3 questions wait for you, the latest from Lead › Editor.');
    assert.deepEqual(told[1].actions, [SHOW_WAITING]);
  });

  it('kinds are told apart, an item already known is not told again, and the prompt on screen needs no notice', () => {
    const { n, told } = notices('ask:1');
    n.update([item('ask:1', 'question', 'Researcher', 1)]);
    assert.equal(told.length, 0, 'the prompt in front of the human is its own notice');
    n.update([item('ask:1', 'question', 'Researcher', 1), item('ask:2', 'approval', 'Writer', 2), item('ask:3', 'plan-approval', 'Planner', 3)]);
    assert.deepEqual(told.map((t) => t.message), ['Arbor: Lead › Writer waits for your approval: Writer?', 'Arbor: Lead › Planner waits for your plan to approve: Planner?']);
    n.update([item('ask:2', 'approval', 'Writer', 2)]);
    assert.equal(told.length, 2, 'nothing new');
  });

  it('leaves a paused run to its own notice (the budget notifications)', () => {
    const { n, told } = notices();
    n.update([item('budget:r', 'budget', 'Runner', 1)]);
    assert.equal(told.length, 0);
  });
});
