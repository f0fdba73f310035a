import * as assert from 'assert';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, endEverything, childNamed, toolResults, turnEnds, userMessages, waitFor } from './support';
import { ui } from './ui';

const question = (id: string, q: string, extra: Record<string, unknown> = {}) => ({
  questions: [{ id, question: q, options: [{ label: 'Alpha', description: 'the first' }, { label: 'Beta' }], ...extra }],
});

/** Leave the window as the suite found it: no live agent, no open prompt. */

/** root -> kid (continuable) and sib (continuable), all hanging until stopped. */
const family = {
  version: 1,
  agents: {
    Boss: {
      turns: [
        [
          { toolCalls: [{ name: 'start_subagent', arguments: { label: 'Kid', prompt: 'work' } }, { name: 'start_subagent', arguments: { label: 'Sib', prompt: 'work' } }] },
          { hang: true },
        ],
      ],
    },
    Kid: { turns: [[{ hang: true }]], afterLastTurn: 'repeat-last' },
    Sib: { turns: [[{ hang: true }]] },
  },
};

describe('Agents view during the demo', function () {
  this.timeout(90_000);
  let t: ArborTesting;
  let root: Agent;
  let watcher: Agent;
  let researcher: Agent;
  let summarizer: Agent | undefined;

  before(async () => {
    t = await arborTesting();
    await vscode.commands.executeCommand('workbench.view.extension.arbor');
  });
  after(() => endEverything(t));

  it('shows the root with its continuable and one-shot children nested under it, with live states', async () => {
    t.runtime.onEvent((e) => {
      if (e.type === 'agent_added' && e.agent.label === 'Summarizer') summarizer = e.agent;
    });
    const rootId = await vscode.commands.executeCommand<string>('arbor.runDemo');
    root = t.runtime.agents.get(rootId)!;
    assert.ok(root, 'Run Demo returned no live root');
    await waitFor(() => ['Researcher', 'Watcher', 'Summarizer'].every((l) => childNamed(t, root, l)), 'the three subagents');
    watcher = childNamed(t, root, 'Watcher')!;
    researcher = childNamed(t, root, 'Researcher')!;
    assert.ok(t.tree.getChildren().includes(root), 'the root is at the top of the tree');
    assert.deepStrictEqual(
      // The agent rows: files the lead changed would follow them.
      t.tree.getChildren(root).flatMap((a) => ('label' in a ? [a.label] : [])),
      ['Researcher', 'Watcher', 'Summarizer'],
      'children nest under the root in creation order',
    );
    for (const child of t.tree.getChildren(root)) assert.strictEqual(t.tree.getParent(child), root);
    const rootItem = t.tree.getTreeItem(root);
    assert.strictEqual(rootItem.id, root.id, 'stable node ids come from session ids');
    assert.strictEqual(rootItem.contextValue, 'agent:running:root');
    assert.strictEqual(t.tree.getTreeItem(watcher).contextValue, 'agent:running:continuable');
    assert.strictEqual(t.tree.getTreeItem(summarizer!).contextValue, 'agent:running:one-shot');
    const tooltip = t.tree.resolveTreeItem(t.tree.getTreeItem(summarizer!), summarizer!).tooltip;
    const tooltipText = tooltip instanceof vscode.MarkdownString ? tooltip.value : '';
    assert.match(tooltipText, /Stop that agent to stop this one/, 'the one-shot tooltip says who owns it');
    assert.ok(tooltipText.includes(`belongs to "${root.label}"`), `the tooltip names its holder: ${tooltipText}`);
    assert.match(String(t.tree.getTreeItem(summarizer!).description), /^one-shot for .+, no Stop · /, 'the row itself says why it has no Stop');
    await t.treeView.reveal(watcher, { select: false, focus: false });
    if (ui.available) {
      assert.ok(await ui.pageHasText('Watcher'), 'the Watcher row is visible');
      assert.ok(await ui.pageHasText('Summarizer'), 'the one-shot row is visible');
      await ui.screenshot('demo-tree-running');
    }
  });

  it("lets the one-shot child's question open no UI: it gets DELEGATED_CALLER and puts the question in its result", async () => {
    await waitFor(() => summarizer !== undefined && !t.runtime.agents.isLive(summarizer), 'the Summarizer to finish');
    const asked = toolResults(summarizer!).find((r) => r.name === 'ask_user_question');
    assert.ok(asked, 'the Summarizer tried to ask');
    assert.strictEqual(JSON.parse(asked.content).code, 'DELEGATED_CALLER');
    assert.ok(!t.observed.prompts.some((o) => o.agentId === summarizer!.id), 'no prompt was ever opened for the one-shot child');
    const delegated = toolResults(root).find((r) => r.name === 'delegate_task');
    assert.match(delegated!.content, /Open question for the user/, "the parent received the child's question in its result");
  });

  it("a real click on the Watcher's inline Stop ends only its turn; its queued message stays parked", async function () {
    ui.requireBrowser(this);
    await waitFor(() => watcher.pendingCount === 1, "the lead's message to wait in the Watcher's queue");
    // The lead's question is open meanwhile: Stop must work with a prompt on screen.
    await waitFor(() => t.runtime.interaction.pending().some((p) => p.agent?.id === root.id), 'the lead to ask');
    await ui.clickInlineAction('Watcher', 'Stop');
    await waitFor(() => turnEnds(watcher).length === 1, "the Watcher's turn to end");
    assert.deepStrictEqual(turnEnds(watcher), ['aborted:user']);
    assert.strictEqual(t.runtime.agents.isLive(watcher), true, 'the stopped child survives');
    assert.strictEqual(watcher.isParked, true);
    assert.strictEqual(watcher.pendingCount, 1);
    assert.strictEqual(root.status, 'running', 'the parent keeps running');
    assert.ok(!turnEnds(researcher).some((r) => r.startsWith('aborted')), 'the sibling was not stopped');
    await watcher.whenIdle(); // resolves only when no turn runs and none is about to start
    assert.strictEqual(watcher.status, 'idle', 'nothing auto-starts after the stop');
    await waitFor(() => t.tree.getTreeItem(watcher).contextValue === 'agent:parked:continuable', 'the node to show the parked queue');
    assert.match(String(t.tree.getTreeItem(watcher).description), /stopped, 1 queued/);
    await ui.screenshot('demo-tree-watcher-stopped');
  });

  it("answers the root's questions through the real quick pick by keyboard, with multi-select and Other…", async function () {
    ui.requireBrowser(this);
    await waitFor(() => t.runtime.interaction.pending().some((p) => p.agent?.id === root.id), 'the lead to ask');
    await waitFor(() => t.treeView.badge?.value === 1, 'the badge to count one waiting agent');
    assert.strictEqual(t.tree.getTreeItem(root).contextValue, 'agent:waiting:root');
    assert.ok(await ui.pageHasText('Demo lead asks: Report (1/2)'), 'the first question is shown, naming the asking agent');
    await ui.screenshot('demo-question');
    await ui.pressKeys('ArrowDown', 'Enter'); // Full report
    assert.ok(await ui.pageHasText('Demo lead asks: Extras (2/2)'), 'the second question is shown');
    // Focus moves from the filter box into the list, then Space toggles: Price chart + Other…
    await ui.pressKeys('ArrowDown', 'Space', 'ArrowDown', 'ArrowDown', 'ArrowDown', 'Space', 'Enter');
    assert.ok(await ui.pageHasText('What else should the report include?'), 'Other… opens an input box with the question as its prompt');
    await ui.typeText('A budget line');
    await ui.pressKeys('Enter');
    await waitFor(() => toolResults(root).some((r) => r.name === 'ask_user_question'), 'the answers to reach the lead');
    const answers = JSON.parse(toolResults(root).find((r) => r.name === 'ask_user_question')!.content);
    assert.deepStrictEqual(answers, {
      answers: [
        { id: 'format', selected: ['Full report'] },
        { id: 'extras', selected: ['Price chart'], custom: 'A budget line' },
      ],
    });
    await waitFor(() => t.treeView.badge === undefined, 'the badge to clear');
  });

  it('a message sent to the stopped Watcher resumes its parked queue in order, and the transcript follows live', async function () {
    ui.requireBrowser(this);
    await vscode.commands.executeCommand('arbor.openTranscript', watcher);
    const doc = () => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'arbor-transcript' && d.uri.query === watcher.id);
    await waitFor(() => doc() !== undefined, 'the transcript to open');
    assert.match(doc()!.getText(), /Turn 1 ended: aborted \(user\)/);
    const sending = vscode.commands.executeCommand('arbor.sendMessage', watcher);
    assert.ok(await ui.pageHasText('Message to Watcher'), 'the message box names the agent');
    await ui.typeText('Carry on please');
    await ui.pressKeys('Enter');
    await sending;
    await waitFor(() => turnEnds(watcher).length >= 3, 'the parked and the new message to run');
    assert.deepStrictEqual(turnEnds(watcher).slice(0, 3), ['aborted:user', 'completed', 'completed']);
    assert.deepStrictEqual(userMessages(watcher).slice(1, 3), ['When you get a chance, also check the test logs.', 'Carry on please'], 'FIFO: the parked message first');
    await waitFor(() => /Got your message: "Carry on please"/.test(doc()!.getText()), 'the transcript to update live');
    await ui.screenshot('demo-transcript');
  });
});

describe('Stop and questions from the command palette', function () {
  this.timeout(60_000);
  let t: ArborTesting;
  before(async () => {
    t = await arborTesting();
  });
  after(() => endEverything(t));

  it('Arbor: Stop Agent... lists running agents and stops the chosen one the same way', async function () {
    ui.requireBrowser(this);
    const boss = t.startScripted(family, 'go', 'Boss');
    await waitFor(() => ['Kid', 'Sib'].every((l) => childNamed(t, boss, l)?.status === 'running'), 'Kid and Sib to run');
    const kid = childNamed(t, boss, 'Kid')!;
    const sib = childNamed(t, boss, 'Sib')!;
    await t.runtime.subagents.deliver(boss, kid.id, 'queued follow-up');
    const stopping = vscode.commands.executeCommand<string>('arbor.stopAgent');
    assert.ok(await ui.pageHasText('Boss › Kid'), 'the pick shows each agent with its path in the tree');
    await ui.typeText('Boss › Kid');
    await ui.pressKeys('Enter');
    assert.strictEqual(await stopping, kid.id);
    await waitFor(() => turnEnds(kid).length === 1, "Kid's turn to end");
    assert.deepStrictEqual(turnEnds(kid), ['aborted:user']);
    assert.strictEqual(sib.status, 'running', 'the sibling keeps running');
    assert.strictEqual(boss.status, 'running', 'the parent keeps running');
    assert.strictEqual(kid.isParked, true, 'the queued message is parked');
    t.runtime.stop(boss);
    t.runtime.stop(sib);
  });

  it('Stop works on a continuable child while its parent agent is offline', async () => {
    const boss = t.startScripted(family, 'go', 'Boss');
    await waitFor(() => childNamed(t, boss, 'Kid')?.status === 'running', 'Kid to run');
    const kid = childNamed(t, boss, 'Kid')!;
    const sib = childNamed(t, boss, 'Sib')!;
    // The parent agent goes away; the child is still reachable by its durable parent address.
    boss.dispose();
    t.runtime.agents.remove(boss);
    await waitFor(() => t.tree.getChildren().includes(kid), 'the orphaned child to show at the top level');
    await vscode.commands.executeCommand('arbor.stop', kid);
    await waitFor(() => turnEnds(kid).length === 1, "Kid's turn to end");
    assert.deepStrictEqual(turnEnds(kid), ['aborted:user']);
    t.runtime.stop(sib);
  });

  it('a dismissed prompt gives the agent ASK_CANCELLED', async function () {
    ui.requireBrowser(this);
    const asker = t.startScripted(
      { version: 1, agents: { Asker: { turns: [[{ toolCalls: [{ name: 'ask_user_question', arguments: question('pick', 'Alpha or Beta?') }] }, { text: 'fine' }]] } } },
      'go',
      'Asker',
    );
    assert.ok(await ui.pageHasText('Asker asks'), 'the prompt is shown and names the asking agent');
    await ui.pressKeys('Escape');
    await asker.whenIdle();
    const result = toolResults(asker).find((r) => r.name === 'ask_user_question')!;
    assert.strictEqual(result.isError, true);
    assert.strictEqual(JSON.parse(result.content).code, 'ASK_CANCELLED');
  });

  it('Enter on a multi-select question with nothing ticked answers none of its options', async function () {
    ui.requireBrowser(this);
    const asker = t.startScripted(
      { version: 1, agents: { Chooser: { turns: [[{ toolCalls: [{ name: 'ask_user_question', arguments: question('extras', 'What else should the report include?', { multiSelect: true }) }] }, { text: 'fine' }]] } } },
      'go',
      'Chooser',
    );
    assert.ok(await ui.pageHasText('Chooser asks'), 'the multi-select prompt is shown');
    await ui.pressKeys('Enter');
    try {
      await waitFor(() => toolResults(asker).some((r) => r.name === 'ask_user_question'), 'Enter with nothing ticked to answer the question', 15_000);
    } finally {
      // A prompt left open would stand in front of the next tests' prompts: stopping the asker closes it.
      if (asker.status === 'running' && !toolResults(asker).some((r) => r.name === 'ask_user_question')) t.runtime.stop(asker);
    }
    assert.deepStrictEqual(JSON.parse(toolResults(asker).find((r) => r.name === 'ask_user_question')!.content), { answers: [{ id: 'extras', selected: [] }] });
    await asker.whenIdle();
    assert.deepStrictEqual(turnEnds(asker), ['completed']);
  });

  it('several roots asking at once are queued one prompt at a time, and an aborted asker closes its prompt', async function () {
    ui.requireBrowser(this);
    const ask = (label: string, q: string) =>
      t.startScripted({ version: 1, agents: { [label]: { turns: [[{ toolCalls: [{ name: 'ask_user_question', arguments: question('q', q) }] }, { text: 'ok' }]] } } }, 'go', label);
    const first = ask('First', 'First question?');
    const second = ask('Second', 'Second question?');
    const asking = (a: Agent) => t.runtime.interaction.pending().some((p) => p.agent?.id === a.id);
    await waitFor(() => asking(first) && asking(second), 'both questions pending');
    assert.ok(await ui.pageHasText('First asks'));
    assert.strictEqual(await ui.pageHasText('Second asks', { timeoutMs: 1000 }), false, 'one prompt at a time');
    t.runtime.stop(first); // the asking turn ends: its prompt closes and the next one opens
    await first.whenIdle();
    assert.ok(await ui.pageHasText('Second asks'), 'the queued prompt opens next');
    await ui.pressKeys('Enter'); // Alpha
    await second.whenIdle();
    assert.deepStrictEqual(JSON.parse(toolResults(second)[0].content), { answers: [{ id: 'q', selected: ['Alpha'] }] });
    assert.deepStrictEqual(turnEnds(first), ['aborted:user']);
  });

  it("a waiting node's Answer action opens its prompt at once, putting the one in front back unanswered", async function () {
    ui.requireBrowser(this);
    const ask = (label: string) =>
      t.startScripted({ version: 1, agents: { [label]: { turns: [[{ toolCalls: [{ name: 'ask_user_question', arguments: question('q', `${label}?`) }] }, { text: 'ok' }]] } } }, 'go', label);
    const a = ask('Ann');
    const b = ask('Ben');
    const c = ask('Cat');
    const asking = (x: Agent) => t.runtime.interaction.pending().some((p) => p.agent?.id === x.id);
    await waitFor(() => [a, b, c].every(asking), 'three questions pending');
    assert.ok(await ui.pageHasText('Ann asks'));
    assert.strictEqual(t.tree.getTreeItem(c).contextValue, 'agent:waiting:root', 'the waiting node offers Answer');
    await vscode.commands.executeCommand('arbor.answer', c);
    assert.ok(await ui.pageHasText('Cat asks'), "Cat's prompt opens at once");
    await ui.pressKeys('Enter'); // answers Cat
    await c.whenIdle();
    // Ann's prompt went back to Waiting for you, unanswered: it is the oldest, so nothing opens by itself.
    assert.ok(asking(a) && asking(b), 'Ann and Ben still wait');
    assert.strictEqual(t.picker.shownId, undefined, 'nothing opened in its place');
    await vscode.commands.executeCommand('arbor.answer', a);
    assert.ok(await ui.pageHasText('Ann asks'));
    await ui.pressKeys('Enter');
    assert.ok(await ui.pageHasText('Ben asks'), "Ben's prompt, the oldest left, opens by itself once Ann's is settled");
    await ui.pressKeys('Enter');
    await Promise.all([a, b, c].map((x) => x.whenIdle()));
    for (const x of [a, b, c]) assert.deepStrictEqual(turnEnds(x), ['completed']);
  });

  it('a burst of runtime events costs one repaint, of the changed node only', async () => {
    await endEverything(t); // earlier tests' agents have no part in this tree
    const boss = t.startScripted(family, 'go', 'Boss');
    await waitFor(() => ['Kid', 'Sib'].every((l) => childNamed(t, boss, l)?.status === 'running'), 'the family to run');
    const kid = childNamed(t, boss, 'Kid')!;
    const sib = childNamed(t, boss, 'Sib')!;
    // A quiet tree first, reached by state, not by waiting: running leaves are repainted once a
    // second for their elapsed time, and a stopped child's report reaches its parent later. So
    // both children are stopped, their reports are waiting in Boss's queue (Boss is a parent,
    // never repainted for time), and no repaint is pending.
    t.runtime.stop(kid);
    t.runtime.stop(sib);
    await Promise.all([kid.whenIdle(), sib.whenIdle()]);
    await waitFor(() => boss.pendingCount === 2, "both children's reports to reach Boss");
    await waitFor(() => !t.tree.repaintPending, 'the repaints of the stops to be done');
    const fired: Array<readonly Agent[] | undefined> = [];
    const sub = t.tree.onDidChangeTreeData((e) => fired.push(e === undefined ? undefined : Array.isArray(e) ? e : [e]));
    let events = 0;
    const others: string[] = [];
    const counter = t.runtime.onEvent((e) => {
      events++;
      if (e.agent !== kid) others.push(`${e.agent.label}:${e.type === 'agent_changed' ? e.change.type : e.type}`);
    });
    for (let i = 0; i < 50; i++) kid.send(`note ${i}`, { from: 'user', wake: false }); // one synchronous burst
    assert.ok(t.tree.repaintPending, 'the burst waits for one coalesced repaint');
    await waitFor(() => fired.length > 0 && !t.tree.repaintPending, 'the coalesced repaint');
    counter.dispose();
    sub.dispose();
    assert.ok(events >= 100, `the burst had ${events} events`);
    // Nothing else in the tree had a reason to change, so the design leaves no other repaint.
    assert.deepStrictEqual(fired.map((nodes) => nodes?.map((a) => a.label) ?? 'the whole tree'), [['Kid']], `${events} events cost one repaint, of Kid only (its parent is not refreshed, so clicks on its siblings stay reliable); other agents' events: ${others.join(', ')}`);
    t.runtime.stop(boss);
  });
});

describe('Public entry points cannot choose how a run interacts', function () {
  this.timeout(60_000);
  let t: ArborTesting;
  before(async () => {
    t = await arborTesting();
  });
  after(() => endEverything(t));

  it('a link starts an interactive agent only after the human confirms, ignoring internal keys', async function () {
    ui.requireBrowser(this);
    const link = vscode.Uri.parse(`${vscode.env.uriScheme}://arbor.arbor/run?prompt=${encodeURIComponent('Tidy the README')}&label=Tidy&interactionMode=autonomous&nonInteractive=true&channelName=github`);
    const opening = t.links.open(link);
    assert.ok(await ui.pageHasText('A link asks Arbor to start an agent'), 'the confirmation is shown');
    await ui.pressKeys('Enter');
    const agent = await opening;
    assert.ok(agent, 'the confirmed link started an agent');
    assert.strictEqual(agent.label, 'Tidy');
    assert.strictEqual(agent.log.header.interactionMode, 'interactive', 'the link could not make the run unattended');
    const cancelled = t.links.open(vscode.Uri.parse(`${vscode.env.uriScheme}://arbor.arbor/run?prompt=x`));
    assert.ok(await ui.pageHasText('A link asks Arbor to start an agent'));
    await ui.pressKeys('Escape');
    assert.strictEqual(await cancelled, undefined, 'dismissing the confirmation starts nothing');
  });

  it('a link delivers its prompt and label exactly as encoded, with &, =, + and %XX in them', async function () {
    ui.requireBrowser(this);
    const prompt = 'Fix a&b=c, then 1+1 and 100%25 of %41 tests & report=done';
    const label = 'x+y&z=1 %2F';
    const link = vscode.Uri.parse(`${vscode.env.uriScheme}://arbor.arbor/run?prompt=${encodeURIComponent(prompt)}&label=${encodeURIComponent(label)}`);
    const opening = t.links.open(link);
    assert.ok(await ui.pageHasText('A link asks Arbor to start an agent'), 'the confirmation is shown');
    await ui.pressKeys('Enter');
    const agent = await opening;
    assert.ok(agent, 'the confirmed link started an agent');
    assert.strictEqual(agent.label, label);
    await waitFor(() => userMessages(agent).length > 0, 'the first message to be logged');
    assert.strictEqual(userMessages(agent)[0], prompt, 'the prompt arrived unchanged');
  });

  it('the exported API and command arguments reject internal keys and start nothing', async () => {
    const extension = vscode.extensions.getExtension<import('../../src/extension/extension').ArborApi>('arbor.arbor')!;
    const api = await extension.activate();
    const before = t.runtime.agents.size;
    const code = (expected: string) => (e: unknown) => (e as { code?: string }).code === expected;
    assert.throws(() => api.startAgent({ prompt: 'x', disableClarification: true }), code('INTERNAL_KEY_REJECTED'));
    assert.throws(() => api.startAgent({ prompt: 'x', channelName: 'github' }), code('INTERNAL_KEY_REJECTED'));
    assert.throws(() => api.startAgent({ prompt: '' }), code('INPUT_INVALID'));
    const viaCommand = await vscode.commands.executeCommand('arbor.runAgent', { prompt: 'x', interactionMode: 'interactive', nonInteractive: true });
    assert.strictEqual(viaCommand, undefined);
    const unattended = await vscode.commands.executeCommand('arbor.runAgentUnattended', { prompt: 'sneaky' });
    assert.strictEqual(unattended, undefined, 'only a person at the input box starts an unattended run');
    assert.strictEqual(t.runtime.agents.size, before);
    const started = api.startAgent({ prompt: 'Say hello', label: 'Api' });
    assert.strictEqual(t.runtime.agents.get(started.id)?.log.header.interactionMode, 'interactive');
  });
});
