import assert from 'node:assert/strict';
import { isArborError } from '../../../src/core/errors';
import { resolveInteractionPolicy, type RunContext } from '../../../src/core/interaction';
import { forged } from '../../support/forged';

const a = (mode: string) => (mode.startsWith('a') ? `an ${mode}` : `a ${mode}`);

const ALL_TOOLS = ['read_file', 'ask_user_question', 'write_file', 'exit_plan_mode', 'run_command'];

describe('resolveInteractionPolicy', () => {
  const cases: Array<[string, RunContext, string]> = [
    ['no hints resolves to interactive', {}, 'interactive'],
    ['nonInteractive resolves to scheduled', { nonInteractive: true }, 'scheduled'],
    ['the github channel resolves to webhook', { channelName: 'github' }, 'webhook'],
    ['another channel does not change the mode', { channelName: 'slack' }, 'interactive'],
    ['disableClarification resolves to autonomous', { disableClarification: true }, 'autonomous'],
    ['false hints resolve to interactive', { nonInteractive: false, disableClarification: false }, 'interactive'],
    ['nonInteractive wins over the github channel', { nonInteractive: true, channelName: 'github' }, 'scheduled'],
    ['nonInteractive wins over disableClarification', { nonInteractive: true, disableClarification: true }, 'scheduled'],
    ['the github channel wins over disableClarification', { channelName: 'github', disableClarification: true }, 'webhook'],
    ['an explicit mode wins over every hint', { interactionMode: 'autonomous', nonInteractive: true, channelName: 'github' }, 'autonomous'],
    ['an explicit interactive mode wins over nonInteractive', { interactionMode: 'interactive', nonInteractive: true }, 'interactive'],
    ['an explicit scheduled mode is kept', { interactionMode: 'scheduled' }, 'scheduled'],
    ['an explicit webhook mode is kept', { interactionMode: 'webhook' }, 'webhook'],
  ];
  for (const [name, ctx, mode] of cases) {
    it(name, () => assert.equal(resolveInteractionPolicy(ctx).mode, mode));
  }

  it('treats an unknown explicit mode as a configuration error, never falling back to interactive', () => {
    for (const interactionMode of ['Interactive', 'unattended', '', 'interactive ']) {
      assert.throws(
        () => resolveInteractionPolicy({ interactionMode }),
        (e) => isArborError(e, 'POLICY_INVALID'),
        JSON.stringify(interactionMode),
      );
    }
    // Even when a legacy hint would have chosen a mode.
    assert.throws(() => resolveInteractionPolicy({ interactionMode: 'later', nonInteractive: true }), (e) => isArborError(e, 'POLICY_INVALID'));
  });

  it('rejects a hint of the wrong type instead of reading it as false', () => {
    assert.throws(() => resolveInteractionPolicy(forged<RunContext>({ nonInteractive: 'true' })), (e) => isArborError(e, 'POLICY_INVALID'));
  });

  it('records which rule chose the mode', () => {
    assert.equal(resolveInteractionPolicy({ interactionMode: 'webhook' }).source, 'interactionMode');
    assert.equal(resolveInteractionPolicy({ channelName: 'github' }).source, 'channelName');
    assert.equal(resolveInteractionPolicy({}).source, 'default');
  });

  it('is immutable once resolved', () => {
    const policy = resolveInteractionPolicy({ nonInteractive: true });
    assert.ok(Object.isFrozen(policy));
    assert.throws(() => {
      (policy as { unattended: boolean }).unattended = false;
    });
    assert.equal(policy.unattended, true);
  });
});

describe('RunInteractionPolicy tool visibility', () => {
  it('offers every tool in an interactive run', () => {
    const policy = resolveInteractionPolicy({});
    assert.equal(policy.unattended, false);
    assert.deepEqual(policy.visibleTools(ALL_TOOLS), ALL_TOOLS);
  });

  for (const mode of ['scheduled', 'webhook', 'autonomous']) {
    it(`hides ask_user_question and exit_plan_mode in ${a(mode)} run`, () => {
      const policy = resolveInteractionPolicy({ interactionMode: mode });
      assert.equal(policy.unattended, true);
      assert.deepEqual(policy.visibleTools(ALL_TOOLS), ['read_file', 'write_file', 'run_command']);
      assert.equal(policy.isToolVisible('ask_user_question'), false);
      assert.equal(policy.isToolVisible('exit_plan_mode'), false);
    });
  }

  it('filters tool definitions by name as well as plain names', () => {
    const policy = resolveInteractionPolicy({ disableClarification: true });
    const tools = ALL_TOOLS.map((name) => ({ name }));
    assert.deepEqual(policy.visibleTools(tools).map((t) => t.name), ['read_file', 'write_file', 'run_command']);
  });
});

describe('RunInteractionPolicy suppressed clarification', () => {
  for (const mode of ['scheduled', 'webhook', 'autonomous']) {
    it(`tells ${a(mode)} run to use context, list assumptions or return BLOCKED, never to go ahead or wait`, () => {
      const text = resolveInteractionPolicy({ interactionMode: mode }).suppressedClarificationResult('Drop the old table?');
      assert.match(text, /context/);
      assert.match(text, /reversible assumption/);
      assert.match(text, /list every material assumption/);
      assert.match(text, /BLOCKED/);
      assert.match(text, /names the missing decision/);
      assert.match(text, /Do not wait/);
      assert.match(text, /Drop the old table\?/);
      assert.doesNotMatch(text, /proceed|go ahead|just do it|continue anyway/i);
    });
  }
});

describe('RunInteractionPolicy approval eligibility', () => {
  it('asks for a root in an interactive run', () => {
    assert.equal(resolveInteractionPolicy({}).approvalEligibility({ isSubagent: false }), 'ask');
  });
  it('denies a subagent even in an interactive run', () => {
    assert.equal(resolveInteractionPolicy({}).approvalEligibility({ isSubagent: true }), 'deny');
  });
  it('denies everyone in an unattended run', () => {
    for (const mode of ['scheduled', 'webhook', 'autonomous']) {
      const policy = resolveInteractionPolicy({ interactionMode: mode });
      assert.equal(policy.approvalEligibility({ isSubagent: false }), 'deny');
      assert.equal(policy.approvalEligibility({ isSubagent: true }), 'deny');
    }
  });
});

describe('RunInteractionPolicy system-prompt guidance', () => {
  it('is short, mode-specific, and repeats the unattended rule', () => {
    const interactive = resolveInteractionPolicy({}).systemPromptGuidance();
    const scheduled = resolveInteractionPolicy({ interactionMode: 'scheduled' }).systemPromptGuidance();
    const webhook = resolveInteractionPolicy({ interactionMode: 'webhook' }).systemPromptGuidance();
    assert.match(interactive, /ask_user_question/);
    assert.match(scheduled, /schedule/);
    assert.match(webhook, /GitHub/);
    for (const text of [scheduled, webhook]) {
      assert.match(text, /BLOCKED/);
      assert.match(text, /Never wait for a human/);
      assert.doesNotMatch(text, /proceed/i);
    }
    for (const text of [interactive, scheduled, webhook]) assert.ok(text.length < 700, `${text.length} characters`);
  });
});
