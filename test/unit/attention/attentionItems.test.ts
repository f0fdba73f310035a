import * as assert from 'node:assert/strict';
import { attentionItems, pathText, type AttentionAgent } from '../../../src/core/attention';
import type { Hold } from '../../../src/core/agents/holds';
import type { PendingInteraction } from '../../../src/core/interaction';

interface FakeAgent extends AttentionAgent {
  parent?: FakeAgent;
}

const runA = {};
const runB = {};
const agent = (id: string, label: string, holds: Hold[] = [], parent?: FakeAgent, run: object = runA): FakeAgent => ({ id, label, holds, run, parent });
const hold = (reason: Hold['reason'], since: number, extra: Partial<Hold> = {}): Hold => ({ reason, since: new Date(since).toISOString(), release: 'waking-send', ...extra });
const asked = (id: string, who: FakeAgent | undefined, openedAt: number, intent: PendingInteraction['intent'] = 'clarify', questions = ['Which one?']): PendingInteraction => ({
  id,
  questions: questions.map((question, i) => ({ id: `q${i}`, question, options: [{ label: 'A' }, { label: 'B' }] })),
  ...(who ? { agent: { id: who.id, label: who.label } } : {}),
  intent,
  openedAt,
});

function list(agents: FakeAgent[], pending: PendingInteraction[], seen?: Map<string, number>) {
  return attentionItems({ agents, pending, parentOf: (a) => a.parent, get: (id) => agents.find((a) => a.id === id) }, seen);
}

describe('attention items: what waits on the human, oldest first', () => {
  it('lists questions, approvals, plan approvals and the holds a person releases, oldest first, each with its path in the tree', () => {
    const lead = agent('lead', 'Demo lead');
    const researcher = agent('res', 'Researcher', [hold('runaway', 3000, { detail: 'the same call 5 times in a row' })], lead);
    const writer = agent('wri', 'Writer', [hold('reload', 1000, { interrupted: true })], lead);
    const items = list([lead, researcher, writer], [asked('ask-2', lead, 4000, 'approval', ['Run `npm test`?']), asked('ask-1', lead, 2000, 'plan-approval', ['Approve the plan?'])]);
    assert.deepEqual(
      items.map((i) => [i.kind, pathText(i), i.asks, i.since]),
      [
        ['interrupted', 'Demo lead › Writer', 'the window closed while it was working: Resume it to go on', 1000],
        ['plan-approval', 'Demo lead', 'Approve the plan?', 2000],
        ['runaway', 'Demo lead › Researcher', 'the same call 5 times in a row', 3000],
        ['approval', 'Demo lead', 'Run `npm test`?', 4000],
      ],
    );
    assert.equal(items[1].promptId, 'ask-1');
    assert.equal(items[0].agentId, 'wri');
  });

  it('items of the same time keep the order they were first seen in, whatever order the sources list them', () => {
    const a = agent('a', 'Alpha');
    const b = agent('b', 'Beta');
    const c = agent('c', 'Gamma');
    const seen = new Map([['ask:ask-9', 0], ['ask:ask-3', 1], ['ask:ask-5', 2]]);
    const forward = list([a, b, c], [asked('ask-3', b, 500), asked('ask-5', c, 500), asked('ask-9', a, 500)], seen);
    const backward = list([c, b, a], [asked('ask-9', a, 500), asked('ask-5', c, 500), asked('ask-3', b, 500)], seen);
    assert.deepEqual(forward.map((i) => i.agentLabel), ['Alpha', 'Beta', 'Gamma']);
    assert.deepEqual(backward.map((i) => i.agentLabel), ['Alpha', 'Beta', 'Gamma']);
    // Keys never seen come after those seen, in key order.
    assert.deepEqual(list([a, b], [asked('ask-8', b, 500), asked('ask-7', a, 500)]).map((i) => i.key), ['ask:ask-7', 'ask:ask-8']);
  });

  it("a branch paused by its own budget (a slice) is one item, named by the agent that was given it, whose raise is that slice's", () => {
    const lead = agent('lead', 'Lead');
    const spent = { release: 'slice-raise' as const, slice: 'doc', detail: 'its branch used 100% of its tokens' };
    const docs = agent('doc', 'Docs', [hold('slice', 900, spent)], lead);
    const helper = agent('hel', 'Helper', [hold('slice', 901, spent)], docs);
    const items = list([lead, docs, helper], []);
    assert.deepEqual(
      items.map((i) => [i.key, i.kind, pathText(i), i.asks, i.slice]),
      [['slice:doc', 'budget', 'Lead › Docs', 'paused: its branch used 100% of its tokens', true]],
    );
  });

  it('a run paused at its budget is one item, named by its top agent, however many of its agents it holds', () => {
    const pause = hold('budget', 700, { detail: 'the run used 100% of its tokens', release: 'raise' });
    const root = agent('root', 'Budgeted', [pause]);
    const kid = agent('kid', 'Helper', [pause], root);
    const other = agent('other', 'Other root', [hold('budget', 800, { release: 'raise' })], undefined, runB);
    const items = list([kid, root, other], []);
    assert.deepEqual(items.map((i) => [i.key, i.kind, pathText(i), i.asks]), [
      ['budget:root', 'budget', 'Budgeted', 'paused: the run used 100% of its tokens'],
      ['budget:other', 'budget', 'Other root', 'paused: a run budget is spent'],
    ]);
  });

  it("a Stop, Stop All Below and a reopened queue are the person's own doing: they are not items", () => {
    const a = agent('a', 'Stopped', [hold('stop', 1), hold('branch', 2), hold('reload', 3)]);
    assert.deepEqual(list([a], []), []);
  });

  it('a prompt with several questions is one item that says how many more; one no agent opened is Arbor\'s', () => {
    const items = list([], [asked('ask-1', undefined, 10, 'clarify', ['Which colour?', 'Which size?', 'Which shape?'])]);
    assert.equal(items.length, 1);
    assert.equal(items[0].asks, 'Which colour? (+2 more)');
    assert.equal(items[0].kind, 'question');
    assert.equal(pathText(items[0]), 'Arbor');
  });

  it('an asker that is no longer live is named by its label alone', () => {
    const gone = agent('gone', 'Gone');
    const items = list([], [asked('ask-1', gone, 10)]);
    assert.deepEqual(items[0].path, ['Gone']);
  });
});
