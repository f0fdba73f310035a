import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import type { ArborTesting } from '../../src/extension/extension';
import type { DiagnosticNode, SessionNode } from '../../src/extension/history/historyNodes';
import { arborTesting, EXTENSION_ID, toolResults, turnEnds, userMessages, waitFor } from './support';
import { ui } from './ui';
import { windowReload } from './windowReload';

const SUITE = path.basename(__filename);
const STATE_KEY = 'history';

/** What the first phase leaves for the checks after the reload. */
interface BeforeReload {
  leadId: string;
  kidId: string;
  leadTurns: number;
  kidTurns: number;
  leadUsage: { inputTokens: number; outputTokens: number };
  storageRoot: string;
  /** The extension host process before the reload: the one after it must be another. */
  hostPid: number;
}

/** A lead that starts a continuable kid; the kid answers once and settles. */
const family = (lead: string, kid: string) => ({
  version: 1,
  agents: {
    [lead]: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: kid, prompt: 'Count the apples in the basket.' } }] }, { text: 'The kid is counting.', usage: { inputTokens: 30, outputTokens: 7 } }]] },
    [kid]: { turns: [[{ text: 'There are 3 apples.', usage: { inputTokens: 11, outputTokens: 4 } }]] },
  },
});

async function startFamily(t: ArborTesting, lead: string, kid: string): Promise<{ lead: Agent; kidId: string }> {
  const root = t.startScripted(family(lead, kid), 'Ask a subagent to count the apples.', lead);
  await waitFor(() => userMessages(root).some((m) => m.includes('has been released')), `the settled report of ${kid}`);
  await root.whenIdle();
  const started = JSON.parse(toolResults(root)[0].content) as { agent_id: string };
  return { lead: root, kidId: started.agent_id };
}

async function sessionNode(t: ArborTesting, id: string): Promise<SessionNode> {
  t.history.refresh();
  const node = (await t.history.sessions()).find((n) => n.entry.header.id === id);
  assert.ok(node, `History does not list session ${id}`);
  return node;
}

async function transcriptText(uri: string | undefined): Promise<string> {
  assert.ok(uri, 'no transcript was opened');
  return (await vscode.workspace.openTextDocument(vscode.Uri.parse(uri))).getText();
}

async function endAll(t: ArborTesting | undefined): Promise<void> {
  if (!t) return;
  for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
  await waitFor(() => t.runtime.agents.size === 0, 'every agent to end');
}

if (windowReload.phase() === 'before') {
  describe('History view', function () {
    this.timeout(60_000);
    let t: ArborTesting;
    const extraFiles: string[] = [];

    before(async () => {
      t = await arborTesting();
      assert.ok(t.sessions, 'Arbor has no durable session store in this host');
    });
    after(async () => {
      for (const file of extraFiles) fs.rmSync(file, { force: true });
      await endAll(t);
    });

    it('saves sessions in the storage folder and lists them, subagents nested under their parent', async () => {
      const { lead, kidId } = await startFamily(t, 'History lead', 'History kid');
      assert.ok(t.sessions!.root.endsWith(`${path.sep}sessions`), `sessions live in the storage folder's sessions/ (${t.sessions!.root})`);
      await waitFor(() => fs.existsSync(t.sessions!.fileOf(kidId)), 'the settled kid to be on disk');
      const leadNode = await sessionNode(t, lead.id);
      assert.deepStrictEqual(
        leadNode.children.map((n) => n.entry.header.id),
        [kidId],
        'the kid is nested under its recorded parent',
      );
      const top = await t.history.topLevel();
      assert.ok(top.includes(leadNode), 'the root is at the top level');
      const leadItem = t.history.getTreeItem(leadNode);
      assert.strictEqual(leadItem.contextValue, 'session:live:root', 'a live session is marked live (no Resume)');
      const kidItem = t.history.getTreeItem(leadNode.children[0]);
      assert.strictEqual(kidItem.contextValue, 'session:past:continuable');
      assert.match(String(kidItem.description), /^continuable · .+ · completed$/);
      assert.match((kidItem.tooltip as vscode.MarkdownString).value, /Count the apples/, 'the tooltip previews the first message');
      assert.strictEqual(t.history.getParent(leadNode.children[0]), leadNode);
      if (ui.available) {
        await vscode.commands.executeCommand('arbor.history.focus');
        await t.historyView.reveal(leadNode.children[0], { expand: true, select: false, focus: false });
        assert.ok(await ui.pageHasText('History lead'), 'the History view shows the session');
        await ui.screenshot('history-view');
      }
    });

    it('refreshes on its own while visible, once per burst of agent events', async () => {
      await vscode.commands.executeCommand('arbor.history.focus');
      await waitFor(() => t.historyView.visible, 'the History view to be visible');
      // Earlier suites' refreshes are done (by state, not by waiting a while).
      await waitFor(() => t.history.settled, 'History to settle');
      const readsBefore = t.observed.historyReads;
      // One synchronous burst of runtime events: ten agents start at once (and then wait).
      const burst = Array.from({ length: 10 }, (_, i) =>
        t.startScripted({ version: 1, agents: { [`Burst ${i}`]: { turns: [[{ hang: true }]] } } }, 'wait', `Burst ${i}`),
      );
      await waitFor(() => t.observed.historyReads > readsBefore && t.history.settled, 'History to re-read the folder by itself');
      // The waiting agents send no further event that History listens to, so nothing else reads.
      assert.strictEqual(t.observed.historyReads - readsBefore, 1, `${t.observed.historyReads - readsBefore} reads for one burst`);
      for (const agent of burst) await t.runtime.end(agent);
    });

    it('shows unreadable session files as warnings with their reason, and keeps listing the others', async () => {
      const root = t.sessions!.root;
      const corrupt = path.join(root, 'broken-session.jsonl');
      const newer = path.join(root, 'from-the-future.jsonl');
      fs.writeFileSync(corrupt, '{"type":"header", this is not json\n');
      fs.writeFileSync(newer, JSON.stringify({ type: 'header', version: 99, id: 'from-the-future' }) + '\n');
      extraFiles.push(corrupt, newer);
      t.history.refresh();
      const diagnostics = (await t.history.topLevel()).filter((n): n is DiagnosticNode => n.type === 'diagnostic');
      const byFile = new Map(diagnostics.map((d) => [path.basename(d.diagnostic.file), d] as const));
      assert.strictEqual(byFile.get('broken-session.jsonl')?.diagnostic.code, 'SESSION_CORRUPT');
      assert.strictEqual(byFile.get('from-the-future.jsonl')?.diagnostic.code, 'SESSION_VERSION');
      const item = t.history.getTreeItem(byFile.get('from-the-future.jsonl')!);
      assert.strictEqual((item.iconPath as vscode.ThemeIcon).id, 'warning');
      assert.match(String(item.description), /newer Arbor/);
      assert.ok((await t.history.sessions()).some((n) => n.entry.header.label === 'History lead'), 'good sessions are still listed');
    });

    it("opens a past session's transcript read-only from History", async () => {
      const kid = (await t.history.sessions()).find((n) => n.entry.header.label === 'History kid');
      assert.ok(kid);
      const uri = await vscode.commands.executeCommand<string>('arbor.openSessionTranscript', kid);
      assert.strictEqual(vscode.Uri.parse(uri).scheme, 'arbor-transcript', 'a content-provider document: no way to write back');
      const text = await transcriptText(uri);
      assert.match(text, /Count the apples in the basket/);
      assert.match(text, /There are 3 apples/);
    });

    it("warns at the top of a damaged session's transcript what was left out", async () => {
      const id = 'damaged-transcript';
      const file = t.sessions!.fileOf(id);
      const header = { type: 'header', version: 1, id, createdAt: new Date().toISOString(), delegationDepth: 0, kind: 'root', label: 'Damaged', interactionMode: 'interactive' };
      const at = new Date().toISOString();
      const lines = [
        header,
        { type: 'user_message', at, text: 'Plan the move.', from: 'user' },
        { type: 'turn_start', at, turn: 1 },
        { type: 'assistant_text', at, text: 'First, pack the books.' },
      ].map((l) => JSON.stringify(l));
      fs.writeFileSync(file, [...lines, 'not json at all', JSON.stringify({ type: 'assistant_text', at, text: 'Lost words.' })].join('\n') + '\n');
      extraFiles.push(file);
      const text = await transcriptText(await vscode.commands.executeCommand<string>('arbor.openSessionTranscript', id));
      assert.match(text, /> \*\*Warning:\*\* Line 5 is damaged \(it is not JSON\).*that line and the 1 after it/);
      assert.match(text, /First, pack the books/, 'the part before the damage is shown');
      assert.doesNotMatch(text, /Lost words/);
    });

    it('Resume Session reopens a past subagent session as a root in the Agents view', async () => {
      const kidNode = (await t.history.sessions()).find((n) => n.entry.header.label === 'History kid')!;
      const id = await vscode.commands.executeCommand<string>('arbor.resumeSession', kidNode);
      assert.strictEqual(id, kidNode.entry.header.id, 'the same session continues');
      const agent = t.runtime.agents.get(id)!;
      assert.ok(agent, 'the resumed agent is live');
      assert.strictEqual(t.runtime.agents.isRoot(agent), true, 'it has no owner, so it may ask the human');
      assert.ok(t.tree.getChildren().includes(agent), 'it is at the top of the Agents view');
      assert.strictEqual(t.tree.getTreeItem(agent).contextValue, 'agent:idle:root');
      assert.deepStrictEqual({ ...agent.usage }, { inputTokens: 11, outputTokens: 4 }, 'its past usage is shown');
      assert.match(String(t.tree.getTreeItem(agent).description), /15 tok/);
      const again = await vscode.commands.executeCommand<string>('arbor.resumeSession', kidNode);
      assert.strictEqual(again, id, 'resuming a live session reveals it instead of opening it twice');
      assert.strictEqual(t.runtime.agents.all().filter((a) => a.id === id).length, 1);
      await t.runtime.end(agent);
    });

    it('links only registered commands from its welcome content', async () => {
      const registered = new Set(await vscode.commands.getCommands(true));
      const welcome = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.viewsWelcome as { view: string; contents: string }[];
      const links = welcome.filter((w) => w.view === 'arbor.history').flatMap((w) => [...w.contents.matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1]));
      assert.ok(links.length > 0, 'the History welcome content offers no next step');
      for (const command of links) assert.ok(registered.has(command), `welcome content links ${command}, which is not registered`);
    });

    it('before a window reload: records a lead and its settled subagent, and asks for the reload', async function () {
      if (!windowReload.available) {
        if (this.test) Reflect.set(this.test, Symbol.for('arbor.test.skipReason'), windowReload.unavailableReason);
        this.skip();
      }
      const { lead, kidId } = await startFamily(t, 'Reload lead', 'Reload kid');
      // Its conversation view stays open across the reload (it has shown the conversation, so it
      // knows which session it belongs to).
      t.conversations.open(lead, { preserveFocus: true });
      await waitFor(() => (t.conversations.stats(lead.id)?.snapshots ?? 0) > 0, "the lead's conversation view to load");
      const state: BeforeReload = {
        leadId: lead.id,
        kidId,
        leadTurns: lead.turnCount,
        kidTurns: 1,
        leadUsage: { ...lead.usage },
        storageRoot: t.sessions!.root,
        hostPid: process.pid,
      };
      // Nothing is flushed by hand: turn ends and deactivation are what keep the sessions.
      windowReload.request(SUITE, STATE_KEY, state);
    });
  });
} else {
  describe('History after a window reload', function () {
    this.timeout(90_000);
    let t: ArborTesting;
    let recorded: BeforeReload;
    const scriptFile = 'reload-script.json';

    before(async () => {
      t = await arborTesting();
      recorded = windowReload.state<BeforeReload>(STATE_KEY)!;
      assert.ok(recorded, 'the first phase left no state');
    });
    after(async () => {
      const config = vscode.workspace.getConfiguration('arbor');
      await config.update('model.provider', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('scriptedModel.scriptFile', undefined, vscode.ConfigurationTarget.Workspace);
      // Only its own agents: the reload put back another suite's live roots, which that suite checks next.
      for (const id of [recorded?.leadId, recorded?.kidId]) {
        const agent = id === undefined ? undefined : t?.runtime.agents.get(id);
        if (agent) await t.runtime.end(agent);
      }
    });

    it('starts with nothing live, and History still lists the session with its subagent nested', async () => {
      assert.notStrictEqual(process.pid, recorded.hostPid, 'a new extension host process runs after the reload');
      assert.strictEqual(t.sessions?.root, recorded.storageRoot, 'the same storage folder');
      await t.restored;
      assert.strictEqual(t.runtime.agents.get(recorded.leadId), undefined, 'the lead was ended before the reload, so it is not put back');
      const lead = await sessionNode(t, recorded.leadId);
      assert.deepStrictEqual(lead.children.map((n) => n.entry.header.id), [recorded.kidId]);
      assert.strictEqual(t.history.getTreeItem(lead).contextValue, 'session:past:root', 'now it can be resumed');
      assert.strictEqual(lead.entry.summary.turnCount, recorded.leadTurns, 'every turn reached the disk');
      if (ui.available) {
        await vscode.commands.executeCommand('arbor.history.focus');
        // Other suites leave newer sessions above it: bring its row into view first.
        await t.historyView.reveal(lead, { select: true, focus: false });
        assert.ok(await ui.pageHasText('Reload lead'), 'the History view shows the session after the reload');
        await ui.screenshot('history-after-reload');
      }
    });

    it("opens the session's transcript from History with the conversation from before the reload", async () => {
      const text = await transcriptText(await vscode.commands.executeCommand<string>('arbor.openSessionTranscript', await sessionNode(t, recorded.leadId)));
      assert.match(text, /Ask a subagent to count the apples/);
      assert.match(text, /There are 3 apples/, "the kid's report is part of the lead's transcript");
    });

    it("brings back the conversation view that was open, on the session's saved conversation, read-only", async () => {
      const isConversation = (tab: vscode.Tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('arbor.conversation') && tab.label === 'Reload lead';
      const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs);
      assert.ok(tabs.some(isConversation), `the conversation tab is back after the reload (tabs: ${tabs.map((tab) => tab.label).join(', ')})`);
      // VS Code restores a background webview when it is shown: leave only that tab.
      await vscode.window.tabGroups.close(tabs.filter((tab) => !isConversation(tab)));
      await waitFor(() => t.conversations.isOpen(recorded.leadId), 'the conversation view to be restored');
      // A restored webview loads its page when first shown; on a cold editor just after a reload that can take a while.
      await waitFor(() => (t.conversations.stats(recorded.leadId)?.snapshots ?? 0) > 0, 'the restored view to load', 60_000);
      const [refused] = t.conversations.receive(recorded.leadId, { type: 'send', text: 'are you there?' });
      assert.ok(refused?.type === 'error' && refused.code === 'AGENT_DISPOSED' && /History/.test(refused.message), 'read-only until resumed');
      if (ui.available) {
        assert.ok(await ui.webviewHasText('Ask a subagent to count the apples.'), 'the conversation from before the reload is shown');
        assert.ok(await ui.webviewHasText('Reload kid finished its turn and is idle'), "the kid's report reads as one line");
      }
    });

    it('Resume Session reopens it as a root with its conversation and usage, and it cold-resumes its settled subagent from disk', async () => {
      // The resumed lead runs on the workspace's scripted model: its next turn messages the kid,
      // whose agent_id it reads from its own rebuilt conversation.
      const filler = (n: number) => Array.from({ length: n }, () => [{ text: '(an earlier turn)' }]);
      const script = {
        version: 1,
        agents: {
          'Reload lead': { turns: [...filler(recorded.leadTurns), [{ toolCalls: [{ name: 'send_message', arguments: { agent_id: '{{agent:Reload kid}}', message: 'And the pears?' } }] }, { text: 'Asked.' }]] },
          'Reload kid': { turns: [...filler(recorded.kidTurns), [{ text: 'There are 2 pears.' }]] },
        },
      };
      const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
      fs.writeFileSync(path.join(folder, scriptFile), JSON.stringify(script));
      const config = vscode.workspace.getConfiguration('arbor');
      await config.update('scriptedModel.scriptFile', scriptFile, vscode.ConfigurationTarget.Workspace);
      await config.update('model.provider', 'scripted', vscode.ConfigurationTarget.Workspace);
      // Arbor reads the settings in its configuration listener, which has run once the new
      // values are visible here: then the model plays the script file.
      await waitFor(() => {
        const now = vscode.workspace.getConfiguration('arbor');
        return now.get('scriptedModel.scriptFile') === scriptFile && now.get('model.provider') === 'scripted';
      }, 'the new settings to reach Arbor');
      await waitFor(() => t.model.provider.id === 'scripted', 'the scripted model to be in use');

      const id = await vscode.commands.executeCommand<string>('arbor.resumeSession', await sessionNode(t, recorded.leadId));
      assert.strictEqual(id, recorded.leadId);
      const lead = t.runtime.agents.get(id)!;
      assert.ok(lead && t.runtime.agents.isRoot(lead), 'a live root');
      assert.ok(t.tree.getChildren().includes(lead), 'shown in the Agents view');
      assert.deepStrictEqual({ ...lead.usage }, recorded.leadUsage, 'usage from before the reload');
      assert.strictEqual(lead.turnCount, recorded.leadTurns);
      assert.match(lead.conversation.map((m) => m.content).join('\n'), /There are 3 apples/, 'the conversation carried over');
      const [accepted] = t.conversations.receive(lead.id, { type: 'ready' });
      assert.ok(accepted?.type === 'snapshot' && accepted.state.phase !== 'ended', 'the restored view follows the resumed agent');
      if (ui.available) {
        await vscode.commands.executeCommand('arbor.agents.focus');
        assert.ok(await ui.pageHasText('Reload lead'), 'the Agents view shows the resumed session');
      }

      let kid: Agent | undefined;
      const sub = t.runtime.onEvent((e) => {
        if (e.type === 'agent_added' && e.agent.id === recorded.kidId) kid = e.agent;
      });
      try {
        t.runtime.sendFromUser(lead, 'Ask the kid about the pears.');
        await waitFor(() => userMessages(lead).some((m) => m.includes('There are 2 pears')), "the cold-resumed kid's report");
      } finally {
        sub.dispose();
      }
      assert.ok(kid, 'the kid was reopened from disk');
      assert.deepStrictEqual(JSON.parse(toolResults(lead).at(-1)!.content), { agent_id: recorded.kidId, status: 'resumed' });
      assert.deepStrictEqual(
        userMessages(kid).filter((m) => !m.startsWith('[')),
        ['Count the apples in the basket.', 'And the pears?'],
        'the kid continued its own session',
      );
      assert.deepStrictEqual(turnEnds(kid), ['completed', 'completed']);
    });
  });
}
