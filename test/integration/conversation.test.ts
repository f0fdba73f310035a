// The conversation view (a webview) driven like a user: typing, Send and Stop inside the view.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, endEverything, childNamed, sleep, turnEnds, userMessages, waitFor } from './support';
import { ui } from './ui';

/**
 * One run for the whole suite (one session in History): Boss starts two continuable children
 * and hands a task to a one-shot Helper, which hangs, so Boss keeps running. Kid says something,
 * lists the agents and hangs until it is stopped; its later turns answer "Done: <message>".
 */
const script = {
  version: 1,
  agents: {
    Boss: {
      turns: [
        [
          {
            toolCalls: [
              { name: 'start_subagent', arguments: { label: 'Kid', prompt: 'Check the build' } },
              { name: 'start_subagent', arguments: { label: 'Sib', prompt: 'Watch the logs' } },
              { name: 'delegate_task', arguments: { label: 'Helper', prompt: 'Sum it up' } },
            ],
          },
        ],
      ],
    },
    Kid: { turns: [[{ text: 'Looking at the <b>build</b> now.', toolCalls: [{ name: 'list_agents', arguments: {} }] }, { hang: true }]], afterLastTurn: 'echo' },
    Sib: { turns: [[{ hang: true }]] },
    Helper: { turns: [[{ hang: true }]] },
  },
};

describe('Conversation view', function () {
  this.timeout(90_000);
  let t: ArborTesting;
  let boss: Agent;
  let kid: Agent;
  let sib: Agent;

  before(async () => {
    t = await arborTesting();
  });
  after(async () => {
    await endEverything(t);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('opens from the palette for the agent picked, titled with its label, and shows the conversation live', async function () {
    ui.requireBrowser(this);
    boss = t.startScripted(script, 'go', 'Boss');
    await waitFor(() => ['Kid', 'Sib', 'Helper'].every((l) => childNamed(t, boss, l)?.status === 'running'), 'Kid, Sib and Helper to run');
    kid = childNamed(t, boss, 'Kid')!;
    sib = childNamed(t, boss, 'Sib')!;
    await waitFor(() => kid.log.events.some((e) => e.type === 'tool_result'), 'Kid to list the agents');
    const opening = vscode.commands.executeCommand<string>('arbor.openConversation');
    assert.ok(await ui.pageHasText('Boss › Kid'), 'the pick shows each live agent with its path');
    await ui.typeText('Boss › Kid');
    await ui.pressKeys('Enter');
    assert.strictEqual(await opening, kid.id);
    assert.ok(t.conversations.isOpen(kid.id));
    const webviewTabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((tab) => tab.input instanceof vscode.TabInputWebview);
    await waitFor(() => webviewTabs().some((tab) => tab.label === 'Kid' && tab.isActive), 'a webview tab titled with the agent label');
    assert.ok(await ui.webviewHasText('Check the build'), "the parent's message is shown");
    // Agent text is text: markup in it is shown as typed, never parsed.
    assert.ok(await ui.webviewHasText('Looking at the <b>build</b> now.'), 'the assistant text is shown verbatim');
    assert.ok(await ui.webviewHasText('list_agents'), 'the tool call is shown');
    assert.ok(await ui.webviewHasText('thinking'), 'the state says what it is doing: waiting for its model');
    assert.strictEqual(await ui.webviewIsEnabled('Stop'), true, 'Stop is enabled while a turn runs');
    assert.strictEqual(await ui.webviewIsEnabled('Send'), false, 'Send waits for a message');
    // Opening it again reveals the same view.
    await vscode.commands.executeCommand('arbor.openConversation', kid);
    await sleep(200);
    assert.strictEqual(webviewTabs().filter((tab) => tab.label === 'Kid').length, 1, 'one view per agent');
    await ui.screenshot('conversation-running');
  });

  it('a view hidden and shown again is reloaded from a fresh snapshot (no context is retained while hidden)', async function () {
    ui.requireBrowser(this);
    const shown = t.conversations.stats(kid.id)!.snapshots;
    await vscode.commands.executeCommand('arbor.openTranscript', kid); // covers the view in its group
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputText, 'the transcript to cover the view');
    await vscode.commands.executeCommand('arbor.openConversation', kid);
    await waitFor(() => t.conversations.stats(kid.id)!.snapshots === shown + 1, 'the view to ask again and get a snapshot');
    assert.ok(await ui.webviewHasText('Looking at the <b>build</b> now.'), 'the conversation is back');
    await vscode.commands.executeCommand('workbench.action.closeOtherEditors');
  });

  it('Send while the child runs queues the message; the view lists it', async function () {
    ui.requireBrowser(this);
    await ui.webviewType('#message', 'First follow-up');
    await ui.webviewClick('Send');
    await waitFor(() => kid.pendingCount === 1, 'the message to wait in the queue');
    assert.strictEqual(kid.status, 'running', 'Send did not interrupt the turn');
    assert.deepStrictEqual(turnEnds(kid), []);
    assert.ok(await ui.webviewHasText('Queued (1)'), 'the view lists the queued message');
    assert.strictEqual(await ui.webviewIsEnabled('Stop'), true, 'Stop stays available: Send and Stop are independent');
  });

  it("Stop ends only the child's turn through the interrupt: the queue is parked, sibling and parent keep running", async function () {
    ui.requireBrowser(this);
    await ui.webviewClick('Stop');
    await waitFor(() => turnEnds(kid).length === 1, "Kid's turn to end");
    assert.deepStrictEqual(turnEnds(kid), ['aborted:user']);
    assert.ok(kid.log.events.some((e) => e.type === 'interrupt' && e.authority === 'user'), 'it went through the user interrupt');
    assert.strictEqual(t.runtime.agents.isLive(kid), true, 'the stopped child survives');
    assert.strictEqual(kid.isParked, true);
    assert.strictEqual(kid.pendingCount, 1);
    assert.strictEqual(sib.status, 'running', 'the sibling keeps running');
    assert.strictEqual(boss.status, 'running', 'the parent keeps running');
    await kid.whenIdle(); // resolves only when no turn runs and none is about to start
    assert.strictEqual(kid.status, 'idle', 'nothing auto-starts after the stop');
    assert.ok(await ui.webviewHasText('stopped with 1 queued'), 'the state line says what happened');
    assert.ok(await ui.webviewHasText('Turn 1 ended: aborted (stopped by you)'));
    assert.strictEqual(await ui.webviewIsEnabled('Stop'), false, 'Stop applies only while a turn runs');
    await ui.screenshot('conversation-stopped');
  });

  it('a message with an extra key is rejected with INPUT_INVALID, shown in the view, and changes nothing', async function () {
    ui.requireBrowser(this);
    const snapshot = () => ({ events: kid.log.events.length, pending: kid.pendingCount, parked: kid.isParked, status: kid.status });
    const before = snapshot();
    // A valid send would resume the parked queue; this one must not.
    const replies = t.conversations.receive(kid.id, { type: 'send', text: 'Run unattended', interactionMode: 'autonomous' });
    assert.strictEqual(replies.length, 1);
    const [reply] = replies;
    assert.strictEqual(reply.type === 'error' && reply.code, 'INPUT_INVALID');
    assert.match(reply.type === 'error' ? reply.message : '', /unknown key interactionMode/);
    assert.deepStrictEqual(t.conversations.receive(kid.id, { type: 'stop', agentId: sib.id }).map((r) => r.type === 'error' && r.code), ['INPUT_INVALID']);
    // receive() decides synchronously; a send it let through would have started a turn by now.
    await kid.whenIdle();
    assert.deepStrictEqual(snapshot(), before, 'nothing changed: still parked with its one queued message');
    assert.strictEqual(sib.status, 'running', 'the named sibling was not stopped');
    assert.strictEqual(kid.log.header.interactionMode, 'interactive');
    assert.ok(await ui.webviewHasText('INPUT_INVALID'), 'the view shows the error');
    await ui.screenshot('conversation-rejected');
  });

  it('Send to the stopped child resumes the parked message first, then the new one (FIFO), and the view follows live', async function () {
    ui.requireBrowser(this);
    const snapshots = t.conversations.stats(kid.id)!.snapshots;
    await ui.webviewType('#message', 'Second follow-up');
    await ui.webviewClick('Send');
    await waitFor(() => turnEnds(kid).length === 3, 'the parked and the new message to run');
    assert.deepStrictEqual(turnEnds(kid), ['aborted:user', 'completed', 'completed']);
    assert.deepStrictEqual(userMessages(kid), ['Check the build', 'First follow-up', 'Second follow-up'], 'FIFO: the parked message first');
    assert.ok(await ui.webviewHasText('Done: First follow-up'), 'the resumed turn appears');
    assert.ok(await ui.webviewHasText('Done: Second follow-up'), 'the new turn appears');
    assert.ok(await ui.webviewHasText('Turn 3 ended: completed'));
    const stats = t.conversations.stats(kid.id)!;
    assert.strictEqual(stats.snapshots, snapshots, 'live updates never re-sent the whole conversation');
    assert.ok(stats.itemUpdates >= 3, `the new turns came as item updates (${stats.itemUpdates})`);
    await ui.screenshot('conversation-resumed');
  });

  it('when the child settles the view says it is no longer live and disables input; when its parent wakes it, the view follows', async function () {
    ui.requireBrowser(this);
    // Idle, nothing queued, no children: the continuable child settles and leaves the runtime.
    await waitFor(() => !t.runtime.agents.isLive(kid), 'Kid to settle');
    assert.ok(await ui.webviewHasText('no longer live'), 'the view says so');
    assert.ok(await ui.webviewHasText('ended'));
    assert.strictEqual(await ui.webviewIsEnabled('Send'), false);
    assert.strictEqual(await ui.webviewIsEnabled('Stop'), false);
    assert.strictEqual(await ui.webviewIsEnabled('#message'), false, 'the message box is disabled');
    const [reply] = t.conversations.receive(kid.id, { type: 'send', text: 'hello?' });
    assert.strictEqual(reply?.type === 'error' && reply.code, 'AGENT_DISPOSED', 'a send that still arrives gets a typed error');
    assert.ok(await ui.webviewHasText('Done: Second follow-up'), 'the conversation stays readable');
    await ui.screenshot('conversation-ended');
    // Its parent wakes it (a cold resume under the same session id): the open view follows.
    const delivered = await t.runtime.subagents.deliver(boss, kid.id, 'One more check');
    assert.strictEqual(delivered.resumed, true);
    assert.ok(await ui.webviewHasText('Done: One more check'), "the woken child's new turn appears in the same view");
    assert.ok(await ui.webviewHasText('Turn 4 ended: completed'));
    t.conversations.close(kid.id);
  });

  it('a one-shot subagent has no Send and no Stop, and the view says its holder owns it', async function () {
    ui.requireBrowser(this);
    const helper = childNamed(t, boss, 'Helper')!;
    assert.strictEqual(helper.kind, 'one-shot');
    await vscode.commands.executeCommand('arbor.openConversation', helper);
    assert.ok(await ui.webviewHasText('the agent waiting for its result owns it'));
    assert.ok(await ui.webviewHasText('Sum it up'));
    const [reply] = t.conversations.receive(helper.id, { type: 'stop' });
    assert.strictEqual(reply?.type === 'error' && reply.code, 'SUBAGENT_UNAUTHORIZED', 'a stop that still arrives is refused');
    assert.strictEqual(helper.status, 'running');
    await ui.screenshot('conversation-one-shot');
    t.conversations.close(helper.id);
  });

  it('Stop in the view reaches a running continuable child whose parent agent is offline', async function () {
    ui.requireBrowser(this);
    assert.strictEqual(sib.status, 'running');
    // The parent agent goes away; the child stays reachable by its durable parent address.
    boss.dispose();
    t.runtime.agents.remove(boss);
    await vscode.commands.executeCommand('arbor.openConversation', sib);
    assert.ok(await ui.webviewHasText('Its parent agent has ended'), 'the view says the parent is offline');
    assert.strictEqual(await ui.webviewIsEnabled('Stop'), true, 'Stop stays reachable');
    await ui.webviewClick('Stop');
    await waitFor(() => turnEnds(sib).length === 1, "Sib's turn to end");
    assert.deepStrictEqual(turnEnds(sib), ['aborted:user']);
    assert.strictEqual(t.runtime.agents.isLive(sib), true, 'the child survives its stop');
    assert.ok(await ui.webviewHasText('Turn 1 ended: aborted (stopped by you)'));
    await ui.screenshot('conversation-parent-offline');
    t.conversations.close(sib.id);
  });
});
