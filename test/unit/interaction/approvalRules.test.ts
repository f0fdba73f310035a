import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  APPROVAL_OPTIONS,
  ApprovalService,
  MemoryApprovalRuleStore,
  UserInteractionService,
  formatApprovalRule,
  parseApprovalRule,
  resolveInteractionPolicy,
  ruleForSubject,
  ruleMatches,
  type ApprovalRequest,
  type ApprovalRule,
  type ApprovalRuleStore,
  type RunInteractionPolicy,
} from '../../../src/core/interaction';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { FakeDirectory, FakeProvider, makeAgent, type FakeAgent } from '../../support/interactionFakes';

const edit = (pattern: string) => ({ kind: 'edit' as const, pattern });
const command = (pattern: string) => ({ kind: 'command' as const, pattern });

describe('approval rules: reading them', () => {
  it('parses "<kind>: <pattern>" and writes it back the same way', () => {
    assert.deepEqual(parseApprovalRule('edit: src/**'), { ok: true, rule: edit('src/**') });
    assert.deepEqual(parseApprovalRule('  command :  npm test  '), { ok: true, rule: command('npm test') });
    assert.deepEqual(parseApprovalRule('tool: mcp_github_*'), { ok: true, rule: { kind: 'tool', pattern: 'mcp_github_*' } });
    assert.equal(formatApprovalRule(command('npm test')), 'command: npm test');
  });

  it('rejects what is not a rule, saying what is wrong', () => {
    const bad = (text: unknown, message: RegExp) => {
      const parsed = parseApprovalRule(text);
      assert.equal(parsed.ok, false, String(text));
      if (!parsed.ok) assert.match(parsed.message, message);
    };
    bad('npm test', /<kind>: <pattern>/);
    bad('run: npm test', /"run" is not a kind of rule; use one of edit, command, tool/);
    bad('edit:   ', /empty/);
    bad('command: a\nb', /one line/);
    bad(42, /is text/);
    bad(`command: ${'x'.repeat(3_000)}`, /./);
  });
});

describe('approval rules: what they match', () => {
  it('an edit rule is a glob over the workspace-relative path, dotfiles included', () => {
    assert.ok(ruleMatches(edit('src/**'), 'edit-file', 'src/a/b.ts'));
    assert.ok(ruleMatches(edit('src/**'), 'edit-file', 'src/.env.example'));
    assert.ok(ruleMatches(edit('src/**'), 'edit-file', './src/a.ts'), 'a leading ./ is the same path');
    assert.ok(!ruleMatches(edit('src/**'), 'edit-file', 'src\\win\\path.ts'), 'a backslash is a character of a top-level name, not a separator');
    assert.ok(ruleMatches(edit('**/*.md'), 'edit-file', 'docs/guide.md'));
    assert.ok(!ruleMatches(edit('src/**'), 'edit-file', 'srcx/a.ts'));
    assert.ok(!ruleMatches(edit('src/**'), 'edit-file', 'test/a.ts'));
    assert.ok(!ruleMatches(edit('src/**'), 'run-command', 'src/a.ts'), 'a rule names one kind of action');
  });

  it('an edit rule never matches a path that leaves the workspace or is absolute', () => {
    for (const subject of ['src/../../etc/passwd', '../outside.ts', '/etc/passwd', 'C:/Windows/x', 'src/..', '']) {
      assert.ok(!ruleMatches(edit('**'), 'edit-file', subject), subject);
    }
  });

  it('a command rule is the exact command line, or a prefix with plain arguments', () => {
    assert.ok(ruleMatches(command('npm test'), 'run-command', 'npm test'));
    assert.ok(ruleMatches(command('npm test'), 'run-command', '  npm test '));
    assert.ok(!ruleMatches(command('npm test'), 'run-command', 'npm test -- --grep x'), 'an exact rule allows no arguments');
    assert.ok(!ruleMatches(command('npm test'), 'run-command', 'npm testing'));
    const prefix = command('npm test *');
    assert.ok(ruleMatches(prefix, 'run-command', 'npm test'));
    assert.ok(ruleMatches(prefix, 'run-command', 'npm test -- --grep "a b"'));
    assert.ok(!ruleMatches(prefix, 'run-command', 'npm testing'));
    for (const chained of ['npm test; rm -rf ~', 'npm test && curl x', 'npm test | sh', 'npm test > /etc/x', 'npm test $(rm -rf ~)', 'npm test `id`', 'npm test\nrm -rf ~', 'npm test & rm x', 'npm test \\; rm']) {
      assert.ok(!ruleMatches(prefix, 'run-command', chained), `${JSON.stringify(chained)} is not "npm test" with arguments`);
    }
    assert.ok(ruleMatches(command('*'), 'run-command', 'anything; at all'), '"*" is every command, as written');
    assert.ok(!ruleMatches(command('*'), 'run-command', '   '));
  });

  it('a tool rule is a glob over the tool name', () => {
    assert.ok(ruleMatches({ kind: 'tool', pattern: 'mcp_github_*' }, 'vscode-tool', 'mcp_github_create_issue'));
    assert.ok(!ruleMatches({ kind: 'tool', pattern: 'mcp_github_*' }, 'vscode-tool', 'mcp_gitlab_x'));
    assert.ok(ruleMatches({ kind: 'tool', pattern: 'fetch' }, 'vscode-tool', 'fetch'));
    assert.ok(!ruleMatches({ kind: 'tool', pattern: 'fetch' }, 'vscode-tool', 'fetcher'));
  });
});

describe('approval rules: the rule offered for one subject', () => {
  it('is the exact command, and none for a command that would read as a wildcard', () => {
    assert.deepEqual(ruleForSubject('run-command', ' npm test '), command('npm test'));
    assert.equal(ruleForSubject('run-command', 'ls *'), undefined);
    assert.equal(ruleForSubject('run-command', '*'), undefined);
    assert.equal(ruleForSubject('run-command', undefined), undefined);
    assert.equal(ruleForSubject('network', 'example.com'), undefined, 'no rules for actions rules cannot name');
  });

  it('is the exact path with glob characters escaped', () => {
    const rule = ruleForSubject('edit-file', 'app/[id]/page(1).tsx');
    assert.ok(rule);
    assert.ok(ruleMatches(rule, 'edit-file', 'app/[id]/page(1).tsx'));
    assert.ok(!ruleMatches(rule, 'edit-file', 'app/i/page1.tsx'));
    assert.equal(ruleForSubject('edit-file', '../x'), undefined);
  });

  it('matches its own subject and no other, for any path or command (property)', () => {
    const segment = fc.string({ minLength: 1, maxLength: 8, unit: fc.constantFrom(...'ab.*?[]{}()!+@|^$-_ \\'.split('')) }).filter((s) => s !== '.' && s !== '..');
    const pathArb = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
    fc.assert(
      fc.property(pathArb, pathArb, (subject, other) => {
        const rule = ruleForSubject('edit-file', subject);
        if (!rule) return true;
        assert.ok(ruleMatches(rule, 'edit-file', subject), `${formatApprovalRule(rule)} matches ${subject}`);
        if (other !== subject) assert.ok(!ruleMatches(rule, 'edit-file', other), `${formatApprovalRule(rule)} must not match ${other}`);
        return true;
      }),
      { numRuns: 400 },
    );
    const commandArb = fc.string({ minLength: 1, maxLength: 20, unit: fc.constantFrom(...'ab *;&|-'.split('')) });
    fc.assert(
      fc.property(commandArb, commandArb, (subject, other) => {
        const rule = ruleForSubject('run-command', subject);
        if (!rule) return true;
        assert.ok(ruleMatches(rule, 'run-command', subject));
        if (other.trim() !== subject.trim()) assert.ok(!ruleMatches(rule, 'run-command', other), `${formatApprovalRule(rule)} must not match ${other}`);
        return true;
      }),
      { numRuns: 400 },
    );
  });
});

function world(rules: ApprovalRuleStore = new MemoryApprovalRuleStore()) {
  const directory = new FakeDirectory();
  const interaction = new UserInteractionService({ agents: directory });
  const provider = new FakeProvider();
  interaction.registerProvider(provider);
  const approvals = new ApprovalService({ interaction, rules });
  const root = makeAgent('root', { label: 'Lead' });
  directory.add(root);
  const request = (agent: FakeAgent, policy: RunInteractionPolicy, extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
    agent,
    isSubagent: false,
    policy,
    action: 'run-command',
    detail: 'npm test',
    subject: 'npm test',
    log: agent.log,
    ...extra,
  });
  return { directory, provider, approvals, root, request, rules };
}

const approvalEvents = (agent: FakeAgent) => agent.log.events.filter((e): e is Extract<SessionEvent, { type: 'approval' }> => e.type === 'approval');
const interactive = resolveInteractionPolicy({});
const autonomous = resolveInteractionPolicy({ interactionMode: 'autonomous' });

describe('ApprovalService with remembered rules', () => {
  it('a matching rule allows without asking in interactive, unattended and delegated runs alike, and the log names the rule', async () => {
    const w = world(new MemoryApprovalRuleStore([{ kind: 'command', pattern: 'npm test', scope: 'workspace' }]));
    const child = makeAgent('child', { kind: 'one-shot' });
    w.directory.add(child, w.root);
    for (const req of [w.request(w.root, interactive), w.request(w.root, autonomous), w.request(child, interactive, { isSubagent: true })]) {
      const outcome = await w.approvals.request(req);
      assert.equal(outcome.decision, 'allow-rule');
      assert.match(outcome.reason, /workspace rule "command: npm test"/);
    }
    assert.equal(w.provider.calls, 0);
    const [event] = approvalEvents(child);
    assert.equal(event.rule, 'command: npm test');
    assert.equal(event.ruleScope, 'workspace');
    assert.equal(event.decision, 'allow-rule');
  });

  it('an unattended run is denied what no rule covers, told what, why, and which rule would allow it, and never asks', async () => {
    const w = world(new MemoryApprovalRuleStore([{ kind: 'command', pattern: 'npm test', scope: 'user' }]));
    const outcome = await w.approvals.request(w.request(w.root, autonomous, { subject: 'npm run deploy', detail: 'npm run deploy' }));
    assert.equal(outcome.decision, 'deny');
    assert.equal(outcome.suggestedRule, 'command: npm run deploy');
    assert.match(outcome.reason, /autonomous run is unattended/);
    assert.match(outcome.reason, /run a command \("npm run deploy"\)/);
    assert.match(outcome.reason, /the rule "command: npm run deploy" \(Arbor: Manage Approvals\.\.\. or the setting arbor\.approvals\.rules\) would let it run/);
    assert.match(outcome.reason, /Do not wait/);
    assert.equal(w.provider.calls, 0);
  });

  it('a subagent is denied what no rule covers, with the same hint', async () => {
    const w = world();
    const child = makeAgent('child', { kind: 'continuable' });
    w.directory.add(child);
    const outcome = await w.approvals.request(w.request(child, interactive, { isSubagent: true, action: 'edit-file', subject: 'src/a.ts', detail: '--- a/src/a.ts' }));
    assert.equal(outcome.decision, 'deny');
    assert.match(outcome.reason, /delegated agent cannot get approval to edit files \("src\/a\.ts"\)/);
    assert.match(outcome.reason, /"edit: src\/a\.ts"/);
    assert.equal(w.provider.calls, 0);
  });

  it('offers "for this workspace" and "always" with the exact rule when the subject has one', async () => {
    const w = world();
    w.provider.choose(APPROVAL_OPTIONS.deny);
    await w.approvals.request(w.request(w.root, interactive));
    const options = w.provider.prompts[0].questions[0].options;
    assert.deepEqual(options.map((o) => o.label), ['Allow once', 'Allow for this agent', 'Allow for this agent and the agents it starts', 'Allow for this workspace', 'Allow always', 'Deny', 'Deny, and tell it why']);
    assert.match(options[3].description ?? '', /"command: npm test" in this workspace/);
    await w.approvals.request(w.request(w.root, interactive, { subject: undefined }));
    assert.deepEqual(w.provider.prompts[1].questions[0].options.map((o) => o.label), ['Allow once', 'Allow for this agent', 'Allow for this agent and the agents it starts', 'Deny', 'Deny, and tell it why'], 'no subject, no rule to offer');
  });

  for (const [choice, scope, decision] of [
    [APPROVAL_OPTIONS.workspace, 'workspace', 'allow-workspace'],
    [APPROVAL_OPTIONS.always, 'user', 'allow-always'],
  ] as const) {
    it(`"${choice}" stores the exact rule in the ${scope} scope, which then allows that command, not others, without asking`, async () => {
      const w = world();
      w.provider.choose(choice);
      const first = await w.approvals.request(w.request(w.root, interactive));
      assert.equal(first.decision, decision);
      assert.deepEqual(w.rules.rules(), [{ kind: 'command', pattern: 'npm test', scope }] satisfies ApprovalRule[]);
      assert.equal((await w.approvals.request(w.request(w.root, autonomous))).decision, 'allow-rule', 'the unattended run may now run it');
      assert.equal(w.provider.calls, 1);
      w.provider.choose(APPROVAL_OPTIONS.deny);
      assert.equal((await w.approvals.request(w.request(w.root, interactive, { subject: 'npm run build', detail: 'npm run build' }))).decision, 'deny');
      assert.equal(w.provider.calls, 2, 'another command is asked');
      assert.equal(approvalEvents(w.root)[0].rule, 'command: npm test');
    });
  }

  it('a rule that cannot be saved still allows this once and says so', async () => {
    const failing: ApprovalRuleStore = { rules: () => [], remember: () => Promise.reject(new Error('disk full')) };
    const w = world(failing);
    w.provider.choose(APPROVAL_OPTIONS.workspace);
    const outcome = await w.approvals.request(w.request(w.root, interactive));
    assert.equal(outcome.decision, 'allow-workspace');
    assert.match(outcome.reason, /could not be saved \(disk full\)/);
  });

  it('a store that throws when read allows nothing by rule', async () => {
    const broken: ApprovalRuleStore = {
      rules: () => {
        throw new Error('unreadable');
      },
      remember: () => Promise.resolve(),
    };
    const w = world(broken);
    assert.equal((await w.approvals.request(w.request(w.root, autonomous))).decision, 'deny');
  });
});
