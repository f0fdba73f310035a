import * as assert from 'assert';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import type { AttentionItem } from '../../src/core/attention';
import type { ArborTesting } from '../../src/extension/extension';
import { isWaitingNode } from '../../src/extension/attention/waitingNode';
import { arborTesting, childNamed, endEverything, runFromPalette, toolResults, waitFor } from './support';
import { ui } from './ui';

// Waiting for you: three agents of one tree ask at once; the inbox (the Agents view's section,
// Show What Is Waiting..., the status bar) lists them oldest first with their paths, and each is
// answered from there. Later puts a prompt back; with `manual` nothing opens by itself.

const ask = (question: string) => ({ toolCalls: [{ name: 'ask_user_question', arguments: { questions: [{ id: 'pick', question, options: [{ label: 'Yes' }, { label: 'No' }] }] } }] });
const LEAD = 'Inbox lead';
const family = {
  version: 1,
  agents: {
    [LEAD]: {
      turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Researcher', prompt: 'Find the source.' } }, { name: 'start_subagent', arguments: { label: 'Writer', prompt: 'Write it up.' } }] }, ask('Ship the report?'), { text: 'Lead done.' }]],
      afterLastTurn: 'repeat-last',
    },
    Researcher: { turns: [[ask('Which source should I trust?'), { text: 'Researcher done.' }]] },
    Writer: { turns: [[ask('Which tone should I use?'), { text: 'Writer done.' }]] },
  },
};

const pathOf = (item: AttentionItem): string => item.path.join(' › ');

describe('Waiting for you: one inbox for what waits on the human', function () {
  this.timeout(120_000);
  let t: ArborTesting;
  let lead: Agent;
  /** The lead and its two children, kept from when they asked: a child that answered and ended is no longer live. */
  const family3 = new Map<string, Agent>();
  const ours = (): AttentionItem[] => t.attention.queue.items().filter((i) => i.path[0] === LEAD);
  const itemOf = (label: string): AttentionItem | undefined => ours().find((i) => i.agentLabel === label);
  const answered = (agent: Agent | undefined, choice: string): boolean => agent !== undefined && toolResults(agent).some((r) => r.name === 'ask_user_question' && r.content.includes(choice));

  before(async () => {
    t = await arborTesting();
    await vscode.commands.executeCommand('workbench.view.extension.arbor');
  });
  after(async () => {
    await vscode.workspace.getConfiguration('arbor').update('attention.openPrompts', undefined, vscode.ConfigurationTarget.Workspace);
    await endEverything(t);
  });

  it('three agents ask at once: the inbox lists the three oldest first, with their paths, and only the oldest prompt opens', async function () {
    ui.requireBrowser(this);
    lead = t.startScripted(family, 'Write the report with your team.', LEAD);
    await waitFor(() => ours().length === 3, 'the three questions in the inbox');
    const items = ours();
    for (const label of ['Researcher', 'Writer']) family3.set(label, childNamed(t, lead, label)!);
    family3.set(LEAD, lead);
    assert.deepStrictEqual(items.map(pathOf).sort(), [LEAD, `${LEAD} › Researcher`, `${LEAD} › Writer`].sort());
    const asked = t.runtime.interaction.pending().filter((p) => items.some((i) => i.promptId === p.id)).sort((a, b) => a.openedAt - b.openedAt);
    assert.deepStrictEqual(items.map((i) => i.promptId), asked.map((p) => p.id), 'oldest first');
    // The section at the top of the Agents view, in the same order.
    const [section] = t.tree.getChildren();
    assert.ok(section && isWaitingNode(section) && section.type === 'waiting-section', 'the section is the first row of the view');
    assert.deepStrictEqual(t.tree.getChildren(section).map((n) => ('label' in n ? n.label : '')).filter((l) => l.startsWith(LEAD)), items.map(pathOf));
    assert.ok(await ui.pageHasText('Waiting for you'), 'the section is on screen');
    for (const item of items) assert.ok(await ui.pageHasText(pathOf(item)), `${pathOf(item)} is on screen`);
    assert.ok(await ui.pageHasText(`${t.attention.queue.items().length} waiting`), 'the status bar counts them');
    assert.strictEqual(t.treeView.badge?.value, t.attention.queue.items().length, 'the badge counts them');
    assert.strictEqual(t.picker.shownId, items[0].promptId, 'only the oldest prompt opened by itself');
    assert.ok(await ui.pageHasText(`${items[0].agentLabel} asks`), 'its quick pick is on screen');
  });

  it("answering from the inbox reaches the right agent, and puts the prompt that was in front back", async function () {
    ui.requireBrowser(this);
    const front = ours()[0];
    // A subagent's question that is not in front.
    const target = ours().find((i) => i !== front && i.agentLabel !== LEAD)!;
    await ui.clickRow(pathOf(target));
    await waitFor(() => t.picker.shownId === target.promptId, `the prompt of ${target.agentLabel} to open`);
    assert.ok(await ui.pageHasText(`${target.agentLabel} asks`), 'its quick pick is on screen');
    await ui.typeText('No');
    await ui.pressKeys('Enter');
    const agent = family3.get(target.agentLabel);
    await waitFor(() => answered(agent, 'No'), `the answer to reach ${target.agentLabel}`);
    for (const other of [...family3.values()].filter((a) => a !== agent)) assert.ok(!answered(other, 'No'), `${other.label} got no answer`);
    await waitFor(() => itemOf(target.agentLabel) === undefined, 'the answered item to leave the inbox');
    assert.ok(ours().some((i) => i.promptId === front.promptId), 'the prompt that was in front still waits, unanswered');
    assert.strictEqual(t.picker.shownId, undefined, 'the prompt put back does not come back by itself');
  });

  it('Later puts a prompt back without answering; Show What Is Waiting... opens it again', async function () {
    ui.requireBrowser(this);
    const child = ours().find((i) => i.agentLabel !== LEAD)!;
    const label = child.agentLabel;
    await runFromPalette('Arbor: Show What Is Waiting');
    assert.ok(await ui.pageHasText('Arbor: Waiting for you'), 'the inbox quick pick is on screen');
    await ui.typeText(label);
    await ui.pressKeys('Enter');
    await waitFor(() => t.picker.shownId === child.promptId, `the prompt of ${label} to open`);
    await ui.clickPromptButton('Later');
    await waitFor(() => t.picker.shownId === undefined, 'the prompt to go back');
    const agent = family3.get(label)!;
    assert.ok(t.runtime.interaction.pending().some((p) => p.id === child.promptId), `${label} still waits for its answer`);
    assert.ok(!toolResults(agent).some((r) => r.name === 'ask_user_question'), 'Later answered nothing');
    assert.ok(itemOf(label), 'the item stays in the inbox');
    await ui.clickRow(pathOf(child));
    await waitFor(() => t.picker.shownId === child.promptId, 'the prompt to open again from its row');
    await ui.typeText('Yes');
    await ui.pressKeys('Enter');
    await waitFor(() => answered(agent, 'Yes'), `the answer to reach ${label}`);
  });

  it("the status bar leads to the last item, the lead's own question", async function () {
    ui.requireBrowser(this);
    await waitFor(() => ours().length === 1 && ours()[0].agentLabel === LEAD, "only the lead's question to wait");
    await ui.clickStatusBarItem('1 waiting');
    assert.ok(await ui.pageHasText('Arbor: Waiting for you'), 'the inbox quick pick is on screen');
    await ui.pressKeys('Enter');
    await waitFor(() => t.picker.shownId === ours()[0]?.promptId, "the lead's prompt to open");
    await ui.typeText('Yes');
    await ui.pressKeys('Enter');
    await waitFor(() => answered(lead, 'Yes'), 'the answer to reach the lead');
    await waitFor(() => ours().length === 0 && t.treeView.badge === undefined, 'the inbox and the badge to empty');
    assert.ok(!t.tree.getChildren().some((n) => isWaitingNode(n)), 'the section leaves the view');
  });

  it('with manual, nothing opens by itself: the question waits in the inbox, and its notice opens it', async function () {
    ui.requireBrowser(this);
    // The notices of the questions above are closed: a notice of a kind still open would hold this one back.
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.workspace.getConfiguration('arbor').update('attention.openPrompts', 'manual', vscode.ConfigurationTarget.Workspace);
    const asker = t.startScripted({ version: 1, agents: { 'Manual asker': { turns: [[ask('May I go on?'), { text: 'Going on.' }]] } } }, 'Ask before you go on.', 'Manual asker');
    await waitFor(() => t.attention.queue.items().some((i) => i.agentId === asker.id), 'the question in the inbox');
    // The picker decided as the question was asked, before the inbox listed it.
    assert.strictEqual(t.picker.shownId, undefined, 'no prompt opened by itself');
    assert.ok(await ui.pageHasText('Manual asker waits for your question'), 'one notice says so');
    await ui.clickNotificationButton('Manual asker waits for your question', 'Open');
    await waitFor(() => t.picker.shownId !== undefined, 'the prompt to open from the notice');
    assert.ok(await ui.pageHasText('Manual asker asks'), 'its quick pick is on screen');
    await ui.typeText('Yes');
    await ui.pressKeys('Enter');
    await waitFor(() => answered(asker, 'Yes'), 'the answer to reach the asker');
  });
});
