import assert from 'node:assert/strict';
import { MAX_REVIEWABLE_DETAIL } from '../../../src/core/interaction/approvals';
import {
  APPROVAL_OPTIONS,
  ApprovalService,
  UserInteractionService,
  resolveInteractionPolicy,
  type ApprovalRequest,
  type RunInteractionPolicy,
} from '../../../src/core/interaction';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { FakeDirectory, FakeProvider, makeAgent, type FakeAgent } from '../../support/interactionFakes';

function world() {
  const directory = new FakeDirectory();
  const interaction = new UserInteractionService({ agents: directory });
  const provider = new FakeProvider();
  interaction.registerProvider(provider);
  const approvals = new ApprovalService({ interaction, now: () => new Date('2025-02-03T04:05:06.000Z') });
  const root = makeAgent('root', { label: 'Lead' });
  directory.add(root);
  const request = (
    agent: FakeAgent,
    policy: RunInteractionPolicy,
    extra: Partial<ApprovalRequest> = {},
  ): ApprovalRequest => ({ agent, isSubagent: false, policy, action: 'run-command', detail: 'npm test', log: agent.log, ...extra });
  return { directory, interaction, provider, approvals, root, request };
}

const approvalEvents = (agent: FakeAgent) =>
  agent.log.events.filter((e): e is Extract<SessionEvent, { type: 'approval' }> => e.type === 'approval');

const interactive = resolveInteractionPolicy({});

describe('ApprovalService', () => {
  it('asks an interactive root with one three-option question and allows once', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.once);
    const outcome = await w.approvals.request(w.request(w.root, interactive));
    assert.equal(outcome.decision, 'allow-once');
    assert.equal(w.provider.calls, 1);
    const prompt = w.provider.prompts[0];
    assert.equal(prompt.intent, 'approval');
    assert.equal(prompt.detail, 'npm test');
    assert.deepEqual(prompt.questions[0].options.map((o) => o.label), ['Allow once', 'Allow for this agent', 'Allow for this agent and the agents it starts', 'Deny', 'Deny, and tell it why']);
    assert.match(prompt.questions[0].question, /^Lead \(root agent\) wants to run a command: npm test$/);
  });

  it('asks again after "allow once"', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.once);
    await w.approvals.request(w.request(w.root, interactive));
    await w.approvals.request(w.request(w.root, interactive));
    assert.equal(w.provider.calls, 2);
  });

  it('remembers "allow for this agent" per session and action, without opening UI again', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.session);
    assert.equal((await w.approvals.request(w.request(w.root, interactive))).decision, 'allow-session');
    const again = await w.approvals.request(w.request(w.root, interactive, { detail: 'npm run build' }));
    assert.equal(again.decision, 'allow-session');
    assert.equal(w.provider.calls, 1, 'the remembered grant needs no prompt');

    // Another action of the same session is asked separately.
    w.provider.choose(APPROVAL_OPTIONS.deny);
    assert.equal((await w.approvals.request(w.request(w.root, interactive, { action: 'network', detail: 'registry.npmjs.org' }))).decision, 'deny');
    assert.equal(w.provider.calls, 2);

    // Another session is asked separately.
    const other = makeAgent('other-root');
    w.directory.add(other);
    await w.approvals.request(w.request(other, interactive));
    assert.equal(w.provider.calls, 3);

    // Forgetting the session drops the grant.
    w.approvals.forgetSession('root');
    await w.approvals.request(w.request(w.root, interactive));
    assert.equal(w.provider.calls, 4);
  });

  it('a grant belongs to the exact agent: a later agent of the same session (a resume) is asked again', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.session);
    await w.approvals.request(w.request(w.root, interactive));
    assert.equal(w.provider.calls, 1);
    const resumed = makeAgent('root', { label: 'Lead' });
    w.directory.add(resumed);
    await w.approvals.request(w.request(resumed, interactive));
    assert.equal(w.provider.calls, 2, 'same session id, another agent: asked again');
    w.approvals.forgetAgent(w.root);
    await w.approvals.request(w.request(resumed, interactive));
    assert.equal(w.provider.calls, 2, "forgetting the old agent leaves the new agent's grant");
    w.approvals.forgetAgent(resumed);
    await w.approvals.request(w.request(resumed, interactive));
    assert.equal(w.provider.calls, 3);
  });

  it('hands the provider the whole action, however long, and says in the question where to read it', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.deny);
    const command = `echo harmless ${'x'.repeat(7_900)}; rm -rf ~/DANGER-AT-THE-END`;
    await w.approvals.request(w.request(w.root, interactive, { detail: command }));
    const prompt = w.provider.prompts[0];
    assert.equal(prompt.detail, command, 'the detail is the whole command, tail included');
    assert.match(prompt.questions[0].question, new RegExp(`${command.length} characters; read all of it in the preview`));
  });

  it('denies without asking an action too long to be shown whole', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.once);
    const outcome = await w.approvals.request(w.request(w.root, interactive, { detail: 'x'.repeat(MAX_REVIEWABLE_DETAIL + 1) }));
    assert.equal(outcome.decision, 'deny');
    assert.match(outcome.reason, /too long|more than/);
    assert.equal(w.provider.calls, 0, 'no prompt that could only show part of it');
    assert.equal((await w.approvals.request(w.request(w.root, interactive, { detail: 'x'.repeat(MAX_REVIEWABLE_DETAIL) }))).decision, 'allow-once');
  });

  it('denies when the human denies, dismisses, or answers with text instead of a choice', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.deny);
    assert.equal((await w.approvals.request(w.request(w.root, interactive))).decision, 'deny');
    w.provider.dismiss();
    const dismissed = await w.approvals.request(w.request(w.root, interactive));
    assert.equal(dismissed.decision, 'deny');
    assert.match(dismissed.reason, /dismissed/);
    w.provider.choose('', 'only in the test folder');
    const typed = await w.approvals.request(w.request(w.root, interactive));
    assert.equal(typed.decision, 'deny');
    assert.match(typed.reason, /only in the test folder/);
  });

  for (const mode of ['scheduled', 'webhook', 'autonomous']) {
    it(`denies in ${mode === "autonomous" ? "an" : "a"} ${mode} run without opening UI`, async () => {
      const w = world();
      const outcome = await w.approvals.request(w.request(w.root, resolveInteractionPolicy({ interactionMode: mode }), { action: 'network' }));
      assert.equal(outcome.decision, 'deny');
      assert.match(outcome.reason, /unattended/);
      assert.equal(w.provider.calls, 0);
    });
  }

  it('denies a subagent without opening UI, even in an interactive run', async () => {
    const w = world();
    const child = makeAgent('child', { kind: 'continuable' });
    w.directory.add(child); // a continuable child is unowned, yet still a subagent for consent
    const outcome = await w.approvals.request(w.request(child, interactive, { isSubagent: true, action: 'write-outside-workspace', detail: '/etc/hosts' }));
    assert.equal(outcome.decision, 'deny');
    assert.equal(w.provider.calls, 0);
  });

  it('does not use a session grant in an unattended run or for the agents it starts', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.session);
    await w.approvals.request(w.request(w.root, interactive));
    const child = makeAgent('child', { kind: 'continuable' });
    w.directory.add(child);
    assert.equal((await w.approvals.request(w.request(child, interactive, { isSubagent: true }))).decision, 'deny');
    assert.equal((await w.approvals.request(w.request(w.root, resolveInteractionPolicy({ nonInteractive: true })))).decision, 'deny');
  });

  it('denies an owned child that was not flagged as a subagent, through the DELEGATED_CALLER guard', async () => {
    const w = world();
    const child = makeAgent('child', { kind: 'one-shot' });
    w.directory.add(child, w.root);
    const outcome = await w.approvals.request(w.request(child, interactive));
    assert.equal(outcome.decision, 'deny');
    assert.match(outcome.reason, /DELEGATED_CALLER/);
    assert.equal(w.provider.calls, 0);
  });

  it('denies when the turn is cancelled while the approval prompt is open', async () => {
    const w = world();
    w.provider.hang();
    const turn = new AbortController();
    const pending = w.approvals.request(w.request(w.root, interactive, { signal: turn.signal }));
    turn.abort();
    const outcome = await pending;
    assert.equal(outcome.decision, 'deny');
    assert.match(outcome.reason, /cancelled/);
    assert.equal(w.provider.prompts[0].signal.aborted, true);
  });

  it('records every decision in the session log with its action, detail and reason', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.session);
    await w.approvals.request(w.request(w.root, interactive));
    await w.approvals.request(w.request(w.root, interactive));
    await w.approvals.request(w.request(w.root, resolveInteractionPolicy({ interactionMode: 'webhook' }), { action: 'network', detail: 'example.com' }));
    const events = approvalEvents(w.root);
    assert.deepEqual(
      events.map((e) => [e.action, e.detail, e.decision]),
      [
        ['run-command', 'npm test', 'allow-session'],
        ['run-command', 'npm test', 'allow-session'],
        ['network', 'example.com', 'deny'],
      ],
    );
    for (const e of events) {
      assert.ok(e.reason.length > 0);
      assert.equal(e.at, '2025-02-03T04:05:06.000Z');
    }
    assert.match(events[1].reason, /allowed this agent/);
  });
});
