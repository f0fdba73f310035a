import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, waitFor } from './support';
import { ui } from './ui';

const commandRun = (command: string) => ({ name: 'run_command', arguments: { command } });
const delegate = (label: string) => ({ name: 'delegate_task', arguments: { label, prompt: 'do your part' } });

/** What each agent (by label) was told its tools came to, as its session records it: one-shots end before a test can read them. */
function toolResultsByLabel(t: ArborTesting): { of(label: string): Array<Record<string, unknown>>; dispose(): void } {
  const seen = new Map<string, Array<Record<string, unknown>>>();
  const listening = t.runtime.onEvent((event) => {
    if (event.type !== 'agent_changed' || event.change.type !== 'log' || event.change.event.type !== 'tool_result') return;
    const list = seen.get(event.agent.label) ?? [];
    list.push({ name: event.change.event.name, ...(JSON.parse(event.change.event.content.startsWith('{') ? event.change.event.content : '{}') as Record<string, unknown>), text: event.change.event.content });
    seen.set(event.agent.label, list);
  });
  return { of: (label) => seen.get(label) ?? [], dispose: () => listening.dispose() };
}

/** The open approval of the live agent labelled `label`, once it is open. */
async function approvalOf(t: ArborTesting, label: string): Promise<string> {
  await waitFor(() => t.runtime.interaction.pending().some((p) => p.agent?.label === label && p.intent === 'approval'), `${label}'s approval`);
  return t.runtime.interaction.pending().find((p) => p.agent?.label === label)!.questions[0].question;
}

describe('Approvals that name who asks, with scoped answers', function () {
  this.timeout(120_000);
  let t: ArborTesting;

  before(async () => {
    t = await arborTesting();
  });
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
    await waitFor(() => t.runtime.agents.size === 0, 'every agent to end');
    await vscode.workspace.getConfiguration('arbor').update('approvals.subagents', undefined, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('with ask, a subagent\'s prompt names it and its branch; a branch grant covers a subagent it starts later, and only in its branch; Deny, and tell it why reaches the agent', async function () {
    ui.requireBrowser(this);
    await vscode.workspace.getConfiguration('arbor').update('approvals.subagents', 'ask', vscode.ConfigurationTarget.Global);
    await waitFor(() => t.runtime.approvals.subagents === 'ask', 'the setting to be read');
    const results = toolResultsByLabel(t);
    try {
      const lead = t.startScripted(
        {
          version: 1,
          agents: {
            'Demo lead': { turns: [[{ toolCalls: [delegate('Researcher')] }, { toolCalls: [delegate('Writer')] }, { text: 'done' }]] },
            Researcher: { turns: [[{ toolCalls: [commandRun('echo researched')] }, { toolCalls: [delegate('Helper')] }, { text: 'researched' }]] },
            Helper: { turns: [[{ toolCalls: [commandRun('echo helped')] }, { text: 'helped' }]] },
            Writer: { turns: [[{ toolCalls: [commandRun('echo written')] }, { text: 'written' }]] },
          },
        },
        'research, then write',
        'Demo lead',
      );
      const question = await approvalOf(t, 'Researcher');
      // The command, then how the sandbox runs it.
      assert.ok(question.startsWith('Researcher (one-shot subagent, in Demo lead › Researcher) wants to run a command: echo researched'), question);
      assert.ok(await ui.pageHasText('Researcher (one-shot subagent, in Demo lead › Researcher) asks: Approval'), 'the prompt on screen names the subagent and its branch');
      await ui.clickRow('Allow for this agent and the agents it starts');

      // Helper starts after the grant, below Researcher: it runs without a prompt.
      await waitFor(() => results.of('Helper').length > 0, "the Helper's command");
      assert.strictEqual(results.of('Helper')[0].exit_code, 0, JSON.stringify(results.of('Helper')[0]));
      assert.strictEqual(results.of('Researcher')[0].exit_code, 0);

      // Writer is the lead's, outside Researcher's branch: it is asked.
      const writerQuestion = await approvalOf(t, 'Writer');
      assert.ok(writerQuestion.startsWith('Writer (one-shot subagent, in Demo lead › Writer) wants to run a command: echo written'), writerQuestion);
      assert.ok(!t.runtime.interaction.pending().some((p) => p.agent?.label === 'Helper'), 'Helper never asked');
      assert.ok(await ui.pageHasText('Writer (one-shot subagent, in Demo lead › Writer) asks: Approval'), "the Writer's prompt is on screen");
      await ui.clickRow('Deny, and tell it why');
      assert.ok(await ui.pageHasText('Why do you deny it?'), 'the box for the reason');
      await ui.typeText('write to the docs folder instead');
      await ui.pressKeys('Enter');
      await lead.whenIdle();
      await waitFor(() => results.of('Writer').length > 0, "the Writer's result");
      const denied = results.of('Writer')[0];
      assert.deepStrictEqual([denied.status, denied.code], ['denied', 'APPROVAL_DENIED']);
      assert.strictEqual(denied.reason, 'Denied by the human, who said: "write to the docs folder instead"');
      assert.strictEqual(t.runtime.approvals.grants.grants().length, 0, 'the branch grant ended with Researcher');
    } finally {
      results.dispose();
    }
  });

  it("with ask, an interactive run's subagent waits for you while an unattended run's subagent is denied at once; with deny, both are denied at once", async function () {
    ui.requireBrowser(this);
    const script = (root: string, kid: string) => ({
      version: 1,
      agents: { [root]: { turns: [[{ toolCalls: [delegate(kid)] }, { text: 'done' }]] }, [kid]: { turns: [[{ toolCalls: [commandRun(`echo ${kid}`)] }, { text: 'tried' }]] } },
    });
    const results = toolResultsByLabel(t);
    try {
      // deny (the default): an interactive run's subagent is not held.
      const plain = t.startScripted(script('Plain lead', 'Plain kid'), 'go', 'Plain lead');
      await plain.whenIdle();
      assert.strictEqual(results.of('Plain kid')[0].status, 'denied');
      assert.strictEqual(results.of('Plain kid')[0].rule_that_would_allow, 'command: echo Plain kid');

      await vscode.workspace.getConfiguration('arbor').update('approvals.subagents', 'ask', vscode.ConfigurationTarget.Global);
      await waitFor(() => t.runtime.approvals.subagents === 'ask', 'the setting to be read');
      const opened = t.observed.prompts.length;
      const attended = t.startScripted(script('Attended lead', 'Attended kid'), 'go', 'Attended lead');
      await approvalOf(t, 'Attended kid');
      const unattended = t.startScripted(script('Nightly lead', 'Nightly kid'), 'go', 'Nightly lead', 'autonomous');
      await unattended.whenIdle();
      assert.strictEqual(results.of('Nightly kid')[0].status, 'denied', 'the unattended run\'s subagent is denied at once');
      assert.match(String(results.of('Nightly kid')[0].reason), /unattended/);
      assert.ok(!t.runtime.interaction.pending().some((p) => p.agent?.label === 'Nightly kid'), 'nothing of the unattended run waits');
      assert.ok(t.observed.prompts.every((p, i) => i < opened || !/Nightly/.test(p.title)), 'no prompt opened for it');

      await waitFor(() => t.observed.prompts.slice(opened).some((p) => p.title.startsWith('Attended kid (one-shot subagent')), "the held approval's quick pick");
      assert.ok(await ui.pageHasText('Attended kid (one-shot subagent, in Attended lead › Attended kid) asks: Approval'), `the held approval is on screen, naming the subagent (opened: ${JSON.stringify(t.observed.prompts.slice(opened))})`);
      await ui.clickRow('Allow once');
      await attended.whenIdle();
      assert.strictEqual(results.of('Attended kid')[0].exit_code, 0, 'allowed by you, it ran');
    } finally {
      results.dispose();
    }
  });

  it('Manage Approvals lists a live grant next to the rules and revokes it with its trash button', async function () {
    ui.requireBrowser(this);
    const lead = t.startScripted({ version: 1, agents: { 'Grant holder': { turns: [[{ toolCalls: [commandRun('echo granted')] }, { text: 'done' }]] } } }, 'go', 'Grant holder');
    await approvalOf(t, 'Grant holder');
    assert.ok(await ui.pageHasText('Grant holder (root agent) asks: Approval'), 'the prompt is on screen');
    await ui.clickRow('Allow for this agent');
    await lead.whenIdle();
    assert.deepStrictEqual(t.runtime.approvals.grants.grants().map((g) => [g.scope, g.action, g.holder.label]), [['agent', 'run-command', 'Grant holder']], 'the idle root keeps its grant');
    // The list is a quick pick: a notification arriving as it opens (the agent's "done") can close
    // it, as it would for a person, who opens it again.
    let listed = false;
    for (let open = 0; open < 3 && !listed; open++) {
      await vscode.commands.executeCommand('arbor.manageApprovals');
      listed = (await ui.pageHasText('Grant holder may run a command', { timeoutMs: 5_000 })) && (await ui.pageHasText('this agent only, until it ends', { timeoutMs: 3_000 }));
    }
    assert.ok(listed, 'the grant is listed, with how far it reaches');
    await ui.clickInlineAction('Grant holder may run a command', 'Revoke grant');
    await waitFor(() => t.runtime.approvals.grants.grants().length === 0, 'the grant to be revoked');
    await waitFor(() => !(t.manageApprovals.current?.items ?? []).some((i) => i.grant), 'the list to drop it');
  });
});
