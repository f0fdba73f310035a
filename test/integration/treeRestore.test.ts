import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import type { ArborTesting } from '../../src/extension/extension';
import type { ReviewOpened } from '../../src/extension/review';
import { arborTesting, childNamed, toolResults, userMessages, waitFor } from './support';
import { ui } from './ui';
import { windowReload } from './windowReload';

// The Agents tree survives a window reload by itself, as a user sees it: a lead stopped with its
// queue, a stopped Watcher with a parked message, an ended Researcher and Summarizer, a file the
// lead created, an idle agent in a worktree of its own with a change there; after Developer:
// Reload Window the view shows the same rows with the same words, with nothing clicked, and Review
// Worktree Changes still lists the worktree agent. It runs after the other suites of its phase (index.ts), so none of them
// ends its agents before the reload.

const SUITE = path.basename(__filename);
const STATE_KEY = 'treeRestore';
const LEAD = 'Restore lead';
const NOTES = 'restore-notes';
const RULE = `edit: ${NOTES}/**`;

interface BeforeReload {
  leadId: string;
  watcherId: string;
  /** Every row of the lead's subtree, in order: "label | description". */
  rows: string[];
  /** The lead's run in the status bar's tooltip. */
  usageLine: string;
  leadQueued: number;
  worktreeId: string;
  worktreeRows: string[];
  /** Whether this suite made the workspace a git repository (removed again after the reload). */
  madeRepo: boolean;
}

const WORKTREE_AGENT = 'Restore worktree';
const worktreeScript = {
  version: 1,
  agents: { [WORKTREE_AGENT]: { turns: [[{ toolCalls: [{ name: 'create_file', arguments: { path: `${NOTES}/draft.md`, content: 'a draft\n' } }] }, { text: 'Drafted.' }]] } },
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, '-c', 'user.email=test@example.com', '-c', 'user.name=Test', ...args], { encoding: 'utf8' });
}

const beforeScript = {
  version: 1,
  agents: {
    [LEAD]: {
      turns: [
        [
          { toolCalls: [{ name: 'start_subagent', arguments: { label: 'Researcher', prompt: 'Compare the prices.' } }, { name: 'start_subagent', arguments: { label: 'Watcher', prompt: 'Watch the build.' } }] },
          { toolCalls: [{ name: 'delegate_task', arguments: { label: 'Summarizer', prompt: 'Summarise the list.' } }] },
          { toolCalls: [{ name: 'create_file', arguments: { path: `${NOTES}/list.md`, content: 'apples, oats, coffee\n' } }] },
          { toolCalls: [{ name: 'send_message', arguments: { agent_id: '{{agent:Watcher}}', message: 'Also check the test logs.' } }] },
          { hang: true },
        ],
      ],
    },
    Researcher: { turns: [[{ hang: true }]] },
    Watcher: { turns: [[{ hang: true }]] },
    Summarizer: { turns: [[{ text: 'Six items, mostly fruit.' }]] },
  },
};

function text(label: string | vscode.TreeItemLabel | undefined): string {
  return typeof label === 'string' ? label : (label?.label ?? '');
}

/** The rows of `root`'s subtree as the Agents view gives them: each row's label and description. */
function rowsOf(t: ArborTesting, root: Agent): string[] {
  const out: string[] = [];
  const walk = (node: Parameters<ArborTesting['tree']['getTreeItem']>[0], depth: number): void => {
    const item = t.tree.getTreeItem(node);
    out.push(`${'  '.repeat(depth)}${text(item.label)} | ${String(item.description ?? '')}`);
    for (const child of t.tree.getChildren(node)) walk(child, depth + 1);
  };
  walk(root, 0);
  return out;
}

function usageLine(t: ArborTesting): string {
  const tooltip = t.usageBar.item.tooltip;
  const value = tooltip instanceof vscode.MarkdownString ? tooltip.value : String(tooltip ?? '');
  return value.split('\n').find((line) => line.startsWith(`**${LEAD}**`)) ?? '';
}

async function setRule(on: boolean): Promise<void> {
  const config = vscode.workspace.getConfiguration('arbor');
  const rules = (config.get<string[]>('approvals.rules') ?? []).filter((r) => r !== RULE);
  await config.update('approvals.rules', on ? [...rules, RULE] : rules.length ? rules : undefined, vscode.ConfigurationTarget.Global);
}

if (windowReload.phase() === 'before') {
  describe('the Agents tree at a window reload', function () {
    this.timeout(90_000);

    it('before the reload: a lead stopped with its queue, a stopped Watcher with a parked message, ended Researcher and Summarizer, a created file', async function () {
      if (!windowReload.available) {
        if (this.test) Reflect.set(this.test, Symbol.for('arbor.test.skipReason'), windowReload.unavailableReason);
        this.skip();
      }
      const t = await arborTesting();
      // The lead's file is allowed by a rule, so no prompt stands in front of other suites' questions.
      await setRule(true);
      // A worktree needs a repository with a commit.
      const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
      const madeRepo = !fs.existsSync(path.join(folder, '.git'));
      if (madeRepo) git(folder, 'init', '-q');
      git(folder, 'commit', '-q', '--allow-empty', '-m', 'before the reload');
      const inWorktree = await t.startScriptedInWorktree(worktreeScript, 'Draft the notes.', WORKTREE_AGENT);
      await waitFor(() => inWorktree.status === 'idle' && toolResults(inWorktree).length === 1, 'the worktree agent to write its draft and go idle');
      assert.notStrictEqual(toolResults(inWorktree)[0].isError, true, JSON.stringify(toolResults(inWorktree)));
      const lead = t.startScripted(beforeScript, 'Plan the weekly shopping.', LEAD);
      await waitFor(() => toolResults(lead).some((r) => r.name === 'send_message') && childNamed(t, lead, 'Watcher')?.pendingCount === 1, "the lead's message parked in the Watcher's queue");
      assert.ok(!toolResults(lead).some((r) => r.isError), `a tool call of the lead failed: ${JSON.stringify(toolResults(lead))}`);
      const watcher = childNamed(t, lead, 'Watcher')!;
      await t.runtime.end(childNamed(t, lead, 'Researcher')!);
      t.runtime.stop(watcher);
      await waitFor(() => watcher.status === 'idle' && watcher.isParked, 'the Watcher stopped with its parked message');
      t.runtime.sendFromUser(lead, 'Add a budget line to the list.');
      t.runtime.stop(lead);
      await waitFor(() => lead.status === 'idle' && lead.isParked, 'the lead stopped with its queue');
      const says = (agent: Agent, words: RegExp): boolean => words.test(String(t.tree.getTreeItem(agent).description));
      // The rows repaint a moment after each change: compare what the view shows once it shows the stops.
      await waitFor(
        () => t.tree.ended.count(lead) === 2 && says(lead, /stopped, \d+ queued .*1 file changed/) && says(watcher, /stopped, 1 queued/),
        'the rows to show the stopped lead with its changed file, the stopped Watcher and the ended rows',
      );
      if (ui.available) {
        await vscode.commands.executeCommand('arbor.agents.focus');
        assert.ok(await ui.pageHasText(LEAD), 'the lead row is on screen');
        await ui.screenshot('tree-before-reload');
      }
      // The status bar as of now (it repaints a moment after each change).
      t.usageBar.update();
      assert.notStrictEqual(usageLine(t), '', 'the status bar shows the run');
      await waitFor(() => /in worktree/.test(String(t.tree.getTreeItem(inWorktree).description)), 'the worktree agent row to say it is in a worktree');
      const state: BeforeReload = {
        leadId: lead.id,
        watcherId: watcher.id,
        rows: rowsOf(t, lead),
        usageLine: usageLine(t),
        leadQueued: lead.pendingCount,
        worktreeId: inWorktree.id,
        worktreeRows: rowsOf(t, inWorktree),
        madeRepo,
      };
      windowReload.request(SUITE, STATE_KEY, state);
    });
  });
} else {
  describe('the Agents tree after a window reload', function () {
    this.timeout(120_000);
    let t: ArborTesting;
    let recorded: BeforeReload;
    const scriptFile = 'tree-restore-script.json';

    before(async () => {
      t = await arborTesting();
      recorded = windowReload.state<BeforeReload>(STATE_KEY)!;
      assert.ok(recorded, 'the first phase left no state');
      await t.restored;
    });
    after(async () => {
      const config = vscode.workspace.getConfiguration('arbor');
      await config.update('model.provider', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('scriptedModel.scriptFile', undefined, vscode.ConfigurationTarget.Workspace);
      await setRule(false);
      if (t) {
        t.worktrees.confirmDiscard = () => Promise.resolve(true);
        for (const entry of t.worktrees.list()) await t.worktrees.discard(entry.agent.id);
      }
      const lead = t?.runtime.agents.get(recorded?.leadId ?? '');
      if (lead) {
        await t.runtime.changes.keepAll(lead.id);
        for (const agent of t.runtime.agents.all()) if (agent !== lead && agent.run === lead.run && agent.kind !== 'one-shot') await t.runtime.end(agent);
        await t.runtime.end(lead);
      }
      await vscode.window.tabGroups.close(vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((tab) => tab.label.startsWith('Changes by ')));
      const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
      fs.rmSync(path.join(folder, NOTES), { recursive: true, force: true });
      fs.rmSync(path.join(folder, scriptFile), { force: true });
      // Other suites expect the plain folder they started with.
      if (recorded?.madeRepo) fs.rmSync(path.join(folder, '.git'), { recursive: true, force: true });
    });

    it("starts from the code cache the first window's start wrote into Arbor's storage", () => {
      // The first start of this install compiled dist/arbor.js and wrote V8's code cache a moment later (codeCache.ts).
      assert.strictEqual(t.codeCache, 'used');
    });

    it('shows the same rows with the same words, with nothing clicked, and the status bar the same use', async () => {
      const lead = t.runtime.agents.get(recorded.leadId);
      assert.ok(lead && t.tree.getChildren().includes(lead), 'the lead is back at the top of the Agents view');
      // The changed-file row, and the lead's "1 file changed", follow once its record is read and the row repaints.
      await waitFor(() => JSON.stringify(rowsOf(t, lead)) === JSON.stringify(recorded.rows), 'the rows to be back as they were').catch(() => undefined);
      assert.deepStrictEqual(rowsOf(t, lead), recorded.rows);
      assert.strictEqual(lead.pendingCount, recorded.leadQueued, "the lead's queue is back");
      await waitFor(() => usageLine(t) === recorded.usageLine, `the status bar to show the same use: ${usageLine(t)} (before: ${recorded.usageLine})`);
      if (ui.available) {
        await vscode.commands.executeCommand('arbor.agents.focus');
        assert.ok(await ui.pageHasText(LEAD), 'the lead row is on screen');
        await ui.screenshot('tree-after-reload');
      }
    });

    it("Review opens the lead's changes without a Resume", async () => {
      const lead = t.runtime.agents.get(recorded.leadId)!;
      const opened = await vscode.commands.executeCommand<ReviewOpened>('arbor.reviewChanges', lead);
      assert.strictEqual(opened, 'changes-editor');
      await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.label.startsWith(`Changes by "${LEAD}"`) === true, 'the changes editor to be the active tab');
    });

    it('the worktree agent is back in its worktree, and Review Worktree Changes lists it without a Resume', async () => {
      const agent = t.runtime.agents.get(recorded.worktreeId);
      assert.ok(agent && t.tree.getChildren().includes(agent), 'the worktree agent is back at the top of the Agents view');
      assert.deepStrictEqual(rowsOf(t, agent), recorded.worktreeRows);
      assert.ok(t.worktrees.get(agent.id), 'it has its worktree again');
      assert.ok(t.worktrees.list().some((entry) => entry.agent === agent), 'Review / Keep / Discard Worktree list it');
      assert.strictEqual(await vscode.commands.executeCommand('arbor.reviewWorktree', agent), 1, 'Review shows its one changed file');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    });

    it('a Send to the restored Watcher runs its parked message first, then the new one', async () => {
      const script = {
        version: 1,
        agents: { Watcher: { turns: [[{ text: '(the turn the Stop ended)' }], [{ text: 'The test logs are clean.' }], [{ text: 'Carrying on.' }]] } },
      };
      const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
      fs.writeFileSync(path.join(folder, scriptFile), JSON.stringify(script));
      const config = vscode.workspace.getConfiguration('arbor');
      await config.update('scriptedModel.scriptFile', scriptFile, vscode.ConfigurationTarget.Workspace);
      await config.update('model.provider', 'scripted', vscode.ConfigurationTarget.Workspace);
      await waitFor(() => t.model.provider.id === 'scripted', 'the scripted model to be in use');
      const watcher = t.runtime.agents.get(recorded.watcherId)!;
      assert.ok(watcher && watcher.isParked, 'the Watcher is back, stopped with its parked message');
      t.runtime.sendFromUser(watcher, 'Carry on please');
      await waitFor(() => watcher.status === 'idle' && watcher.pendingCount === 0 && userMessages(watcher).includes('Carry on please'), 'the parked and the new message to run');
      const messages = userMessages(watcher);
      assert.deepStrictEqual(messages.slice(messages.indexOf('Also check the test logs.')), ['Also check the test logs.', 'Carry on please'], 'FIFO: the parked message first');
    });
  });
}
