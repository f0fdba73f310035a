import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  APPROVAL_OPTIONS,
  ApprovalGrants,
  ApprovalService,
  UserInteractionService,
  branchPath,
  inBranch,
  readApprovalAnswer,
  resolveInteractionPolicy,
  type AgentLineage,
  type ApprovalRequest,
  type RunInteractionPolicy,
} from '../../../src/core/interaction';
import type { AgentKind } from '../../../src/core/sessions/types';
import { FakeDirectory, FakeProvider, makeAgent, type FakeAgent } from '../../support/interactionFakes';

/** A live tree: the directory the interaction guards read, and the lineage grants read. */
class Tree implements AgentLineage {
  readonly directory = new FakeDirectory();
  private readonly parents = new Map<object, object>();

  add(id: string, options: { label?: string; kind?: AgentKind; parent?: FakeAgent; owned?: boolean; definition?: string } = {}): FakeAgent {
    const agent = makeAgent(id, { label: options.label, kind: options.kind ?? (options.parent ? 'continuable' : 'root') });
    if (options.definition) Object.assign(agent, { definition: { name: options.definition } });
    this.directory.add(agent, options.owned ? options.parent : undefined);
    if (options.parent) this.parents.set(agent, options.parent);
    return agent;
  }

  parentOf(agent: object): object | undefined {
    return this.parents.get(agent);
  }
}

const interactive = resolveInteractionPolicy({});

function world() {
  const tree = new Tree();
  const interaction = new UserInteractionService({ agents: tree.directory });
  const provider = new FakeProvider();
  const registration = interaction.registerProvider(provider);
  const approvals = new ApprovalService({ interaction, lineage: tree });
  const lead = tree.add('lead', { label: 'Demo lead' });
  const request = (agent: FakeAgent, extra: Partial<ApprovalRequest> = {}, policy: RunInteractionPolicy = interactive): ApprovalRequest => ({
    agent,
    isSubagent: agent.kind !== 'root',
    policy,
    action: 'run-command',
    detail: 'npm test',
    subject: 'npm test',
    log: agent.log,
    ...extra,
  });
  return { tree, interaction, provider, registration, approvals, lead, request };
}

describe('approval grants: scopes', () => {
  it('an agent grant covers that exact agent for that action, not the agents it starts', () => {
    const tree = new Tree();
    const lead = tree.add('lead');
    const child = tree.add('child', { parent: lead });
    const grants = new ApprovalGrants(tree);
    grants.add('agent', lead, 'run-command');
    assert.equal(grants.covering(lead, 'run-command')?.scope, 'agent');
    assert.equal(grants.covering(lead, 'edit-file'), undefined, 'another action');
    assert.equal(grants.covering(child, 'run-command'), undefined, 'a child');
    assert.equal(grants.covering(makeAgent('lead'), 'run-command'), undefined, 'another object of the same session');
  });

  it('a branch grant covers the holder and every agent below it, started before or after, until the holder ends', () => {
    const tree = new Tree();
    const lead = tree.add('lead');
    const researcher = tree.add('researcher', { parent: lead });
    const other = tree.add('other');
    const grants = new ApprovalGrants(tree);
    const grant = grants.add('branch', researcher, 'run-command');
    const later = tree.add('later', { parent: researcher, owned: true, kind: 'one-shot' });
    const deeper = tree.add('deeper', { parent: later });
    for (const agent of [researcher, later, deeper]) assert.equal(grants.covering(agent, 'run-command'), grant, agent.id);
    for (const agent of [lead, other]) assert.equal(grants.covering(agent, 'run-command'), undefined, `${agent.id} is outside the branch`);
    grants.forgetAgent(researcher);
    assert.equal(grants.covering(later, 'run-command'), undefined, 'the branch ended with its holder');
    assert.deepEqual(grants.grants(), []);
  });

  it('revokes a grant by id and announces every change', () => {
    const tree = new Tree();
    const lead = tree.add('lead');
    let changes = 0;
    const grants = new ApprovalGrants(tree, Date.now, () => changes++);
    const a = grants.add('agent', lead, 'run-command');
    assert.equal(grants.add('agent', lead, 'run-command'), a, 'not added twice');
    grants.add('branch', lead, 'edit-file');
    assert.equal(changes, 2);
    assert.equal(grants.revoke(a.id), true);
    assert.equal(grants.revoke(a.id), false);
    assert.equal(changes, 3);
    assert.equal(grants.covering(lead, 'run-command'), undefined);
    assert.equal(grants.covering(lead, 'edit-file')?.scope, 'branch');
  });

  it('a branch grant never covers an agent outside its branch (property)', () => {
    // A forest of up to 12 agents: parents[i] is the index of agent i's parent (always an earlier one), or -1 for a top-level agent.
    const forest = fc.integer({ min: 1, max: 12 }).chain((n) =>
      fc.tuple(fc.tuple(...Array.from({ length: n }, (_, i) => (i === 0 ? fc.constant(-1) : fc.integer({ min: -1, max: i - 1 })))), fc.nat({ max: n - 1 }), fc.array(fc.nat({ max: n - 1 }), { maxLength: 3 })),
    );
    fc.assert(
      fc.property(forest, ([parents, holderIndex, endedIndices]) => {
        const tree = new Tree();
        const agents: FakeAgent[] = [];
        parents.forEach((p, i) => agents.push(tree.add(`a${i}`, { parent: p >= 0 ? agents[p] : undefined })));
        const grants = new ApprovalGrants(tree);
        grants.add('branch', agents[holderIndex], 'run-command');
        // Grants of other agents that ended before the question is asked.
        for (const e of endedIndices) if (e !== holderIndex) {
          grants.add('branch', agents[e], 'run-command');
          grants.forgetAgent(agents[e]);
        }
        const isBelow = (i: number): boolean => (i === holderIndex ? true : parents[i] < 0 ? false : isBelow(parents[i]));
        agents.forEach((agent, i) => {
          const covered = grants.covering(agent, 'run-command') !== undefined;
          assert.equal(covered, isBelow(i), `agent ${i} (parents ${JSON.stringify(parents)}, holder ${holderIndex})`);
          assert.equal(inBranch(agent, agents[holderIndex], tree), isBelow(i));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('a lineage that loops covers nothing and still ends', () => {
    const a = makeAgent('a');
    const b = makeAgent('b');
    const holder = makeAgent('holder');
    const loop: AgentLineage = { parentOf: (x: object) => (x === a ? b : a) };
    assert.equal(inBranch(a, holder, loop), false);
    assert.ok(branchPath(a, loop).length > 0);
  });
});

describe('approval prompts name who asks', () => {
  it('names the agent, its kind, its definition and its branch path', async () => {
    const w = world();
    const researcher = w.tree.add('researcher', { label: 'Researcher', parent: w.lead, owned: true, kind: 'one-shot', definition: 'researcher' });
    w.approvals.subagents = 'ask';
    w.provider.choose(APPROVAL_OPTIONS.once);
    await w.approvals.request(w.request(researcher));
    assert.equal(w.provider.prompts[0].questions[0].question, 'Researcher (one-shot subagent, definition "researcher", in Demo lead › Researcher) wants to run a command: npm test');
    assert.equal(w.provider.prompts[0].agent?.id, 'researcher', 'the prompt is the subagent\'s');
    assert.equal(w.provider.prompts[0].asker, 'Researcher (one-shot subagent, definition "researcher", in Demo lead › Researcher)', 'the prompt names who asks for its title');
  });
});

describe('approval answers and their scopes', () => {
  it('reads each answer as one scope; text is never consent', () => {
    const read = (selected: string[], custom?: string) => readApprovalAnswer({ id: 'approval', selected, ...(custom !== undefined ? { custom } : {}) });
    assert.deepEqual(read([APPROVAL_OPTIONS.once]), { kind: 'once' });
    assert.deepEqual(read([APPROVAL_OPTIONS.session]), { kind: 'agent' });
    assert.deepEqual(read([APPROVAL_OPTIONS.branch]), { kind: 'branch' });
    assert.deepEqual(read([APPROVAL_OPTIONS.workspace]), { kind: 'workspace' });
    assert.deepEqual(read([APPROVAL_OPTIONS.always]), { kind: 'always' });
    assert.deepEqual(read([APPROVAL_OPTIONS.deny]), { kind: 'deny' });
    assert.deepEqual(read([APPROVAL_OPTIONS.denyWhy], '  not on main  '), { kind: 'deny', words: 'not on main' });
    assert.deepEqual(read([APPROVAL_OPTIONS.denyWhy], '   '), { kind: 'deny' });
    assert.deepEqual(read([], 'go ahead'), { kind: 'deny', words: 'go ahead' }, 'typed text alone denies, with the words');
    assert.deepEqual(read([APPROVAL_OPTIONS.once, APPROVAL_OPTIONS.deny]), { kind: 'deny' }, 'a denial among the choices wins');
    assert.deepEqual(read(['Something else']), { kind: 'deny' });
  });

  it('"Allow for this agent and the agents it starts" covers a subagent started after it, without asking, and only in that branch', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.branch);
    const researcher = w.tree.add('researcher', { label: 'Researcher', parent: w.lead });
    w.approvals.subagents = 'ask';
    assert.equal((await w.approvals.request(w.request(researcher))).decision, 'allow-branch');
    assert.equal(w.provider.calls, 1);
    const later = w.tree.add('later', { parent: researcher, owned: true, kind: 'one-shot' });
    const outcome = await w.approvals.request(w.request(later));
    assert.equal(outcome.decision, 'allow-branch');
    assert.match(outcome.reason, /"Researcher" and the agents it starts/);
    assert.equal(w.provider.calls, 1, 'no prompt for the later subagent');
    // A sibling branch is asked; so is the parent.
    const sibling = w.tree.add('sibling', { parent: w.lead });
    w.provider.choose(APPROVAL_OPTIONS.deny);
    assert.equal((await w.approvals.request(w.request(sibling))).decision, 'deny');
    assert.equal((await w.approvals.request(w.request(w.lead))).decision, 'deny');
    assert.equal(w.provider.calls, 3);
  });

  it('a branch grant covers its subagents in the default "deny" setting too: the person allowed them by name', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.branch);
    await w.approvals.request(w.request(w.lead));
    const child = w.tree.add('child', { parent: w.lead, owned: true, kind: 'one-shot' });
    assert.equal(w.approvals.subagents, 'deny');
    assert.equal((await w.approvals.request(w.request(child))).decision, 'allow-branch');
    assert.equal((await w.approvals.request(w.request(child, { action: 'edit-file', subject: 'a.ts', detail: 'diff' }))).decision, 'deny', 'another action is not granted');
    assert.equal(w.provider.calls, 1);
  });

  it('"Deny, and tell it why" puts the person\'s words in the denial', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.denyWhy, 'use npm run test:unit, the whole suite takes an hour');
    const outcome = await w.approvals.request(w.request(w.lead));
    assert.equal(outcome.decision, 'deny');
    assert.equal(outcome.reason, 'Denied by the human, who said: "use npm run test:unit, the whole suite takes an hour"');
    assert.equal(outcome.suggestedRule, 'command: npm test');
  });
});

describe('arbor.approvals.subagents', () => {
  it('deny (the default): a subagent is denied at once with the rule that would allow it', async () => {
    const w = world();
    const child = w.tree.add('child', { parent: w.lead });
    const outcome = await w.approvals.request(w.request(child));
    assert.equal(outcome.decision, 'deny');
    assert.equal(outcome.suggestedRule, 'command: npm test');
    assert.match(outcome.reason, /delegated agent/);
    assert.equal(w.provider.calls, 0);
  });

  it('ask: a subagent of an interactive run waits for the person, and the answer reaches it', async () => {
    const w = world();
    w.approvals.subagents = 'ask';
    const child = w.tree.add('child', { label: 'Researcher', parent: w.lead, owned: true, kind: 'one-shot' });
    w.provider.choose(APPROVAL_OPTIONS.session);
    assert.equal((await w.approvals.request(w.request(child))).decision, 'allow-session');
    assert.equal(w.provider.prompts[0].agent?.label, 'Researcher');
    assert.equal((await w.approvals.request(w.request(child))).decision, 'allow-session', 'its own agent grant');
    assert.equal(w.provider.calls, 1);
  });

  for (const mode of ['scheduled', 'webhook', 'autonomous']) {
    it(`ask: a subagent whose root is unattended (${mode}) is never held`, async () => {
      const w = world();
      w.approvals.subagents = 'ask';
      const child = w.tree.add('child', { parent: w.lead, owned: true, kind: 'one-shot' });
      const outcome = await w.approvals.request(w.request(child, {}, resolveInteractionPolicy({ interactionMode: mode })));
      assert.equal(outcome.decision, 'deny');
      assert.match(outcome.reason, /unattended/);
      assert.equal(w.provider.calls, 0);
    });
  }

  it('ask: with nobody there (no question UI) a subagent is denied at once', async () => {
    const w = world();
    w.approvals.subagents = 'ask';
    w.registration.dispose();
    const child = w.tree.add('child', { parent: w.lead });
    const outcome = await w.approvals.request(w.request(child));
    assert.equal(outcome.decision, 'deny');
    assert.match(outcome.reason, /delegated agent/);
  });

  it('ask changes nothing for questions: ask_user_question from a subagent is still refused', async () => {
    const w = world();
    w.approvals.subagents = 'ask';
    const child = w.tree.add('child', { parent: w.lead, owned: true, kind: 'one-shot' });
    await assert.rejects(w.interaction.ask({ agent: child, questions: [{ id: 'q', question: 'Which?', options: [] }] }), { code: 'DELEGATED_CALLER' });
    await assert.rejects(w.interaction.ask({ agent: child, intent: 'approval', questions: [{ id: 'q', question: 'Allow?', options: [] }] }), { code: 'DELEGATED_CALLER' }, 'ask() itself never holds for a subagent');
    assert.equal(w.provider.calls, 0);
  });
});

describe('the unattended rule (RunInteractionPolicy.approvalEligibility)', () => {
  const cases: Array<[string, boolean, 'deny' | 'ask' | undefined, boolean | undefined, 'ask' | 'deny']> = [
    ['interactive', false, undefined, undefined, 'ask'],
    ['interactive', true, undefined, true, 'deny'],
    ['interactive', true, 'deny', true, 'deny'],
    ['interactive', true, 'ask', true, 'ask'],
    ['interactive', true, 'ask', false, 'deny'],
    ['interactive', true, 'ask', undefined, 'deny'],
    ['scheduled', false, undefined, true, 'deny'],
    ['scheduled', true, 'ask', true, 'deny'],
    ['webhook', true, 'ask', true, 'deny'],
    ['autonomous', true, 'ask', true, 'deny'],
  ];
  for (const [mode, isSubagent, subagents, humanPresent, expected] of cases) {
    it(`${mode}, ${isSubagent ? 'subagent' : 'root'}, subagents=${subagents ?? '-'}, present=${humanPresent ?? '-'}: ${expected}`, () => {
      assert.equal(resolveInteractionPolicy({ interactionMode: mode }).approvalEligibility({ isSubagent, subagents, humanPresent }), expected);
    });
  }
});
