import * as assert from 'assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, toolResults, waitFor } from './support';

const FILE = 'worktree-demo/list.txt';
const BEFORE = 'apples\noats\n';
const AFTER = 'apples\noats\ntea\n';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, '-c', 'user.email=test@example.com', '-c', 'user.name=Test', ...args], { encoding: 'utf8' });
}

describe('Start Agent in a Worktree', function () {
  this.timeout(180_000);
  let t: ArborTesting;
  let root: string;
  let madeRepo = false;

  before(async () => {
    t = await arborTesting();
    root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    fs.mkdirSync(path.join(root, path.dirname(FILE)), { recursive: true });
    fs.writeFileSync(path.join(root, FILE), BEFORE);
    if (!fs.existsSync(path.join(root, '.git'))) {
      git(root, 'init', '-q');
      madeRepo = true;
    }
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'the user tree');
  });
  after(async () => {
    for (const entry of t.worktrees.list()) {
      t.worktrees.confirmDiscard = () => Promise.resolve(true);
      await t.worktrees.discard(entry.agent.id);
    }
    for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
    await waitFor(() => t.runtime.agents.size === 0, 'every agent to end');
    fs.rmSync(path.join(root, path.dirname(FILE)), { recursive: true, force: true });
    // Other suites expect the plain folder they started with.
    if (madeRepo) fs.rmSync(path.join(root, '.git'), { recursive: true, force: true });
  });

  it("an agent in a worktree edits its own copy; the user's file changes on disk only when they Keep", async () => {
    const agent = await t.startScriptedInWorktree(
      {
        version: 1,
        agents: {
          Isolated: {
            turns: [[{ toolCalls: [{ name: 'edit_file', arguments: { path: FILE, old_text: 'oats\n', new_text: 'oats\ntea\n' } }] }, { text: 'Added tea.' }]],
          },
        },
      },
      'add tea to the list',
      'Isolated',
    );
    const entry = t.worktrees.get(agent.id);
    assert.ok(entry, 'the agent has a worktree');
    assert.ok(!entry.worktree.root.startsWith(root + path.sep), 'outside the user folder');
    assert.match(t.tree.getTreeItem(agent).description as string, /in worktree/);

    await waitFor(() => t.runtime.interaction.pending().some((p) => p.agent?.id === agent.id), 'the approval prompt', 60_000);
    await waitFor(() => t.observed.prompts.some((o) => o.agentId === agent.id), 'the approval quick pick to open', 60_000);
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await agent.whenIdle();
    assert.strictEqual(JSON.parse(toolResults(agent)[0].content).status, 'edited');

    assert.strictEqual(fs.readFileSync(path.join(entry.worktree.folder, FILE), 'utf8'), AFTER, 'the worktree has the edit');
    assert.strictEqual(fs.readFileSync(path.join(root, FILE), 'utf8'), BEFORE, "the user's file is untouched");
    assert.deepStrictEqual(await t.runtime.changes.list(agent.id), [], 'nothing for the in-place Review to undo');

    assert.strictEqual(await vscode.commands.executeCommand('arbor.reviewWorktree', agent), 1, 'Review shows the one changed file');
    const base = await vscode.workspace.openTextDocument(
      vscode.Uri.file(path.join(entry.worktree.folder, FILE)).with({ scheme: 'arbor-worktree-base', query: new URLSearchParams({ agent: agent.id, path: FILE }).toString() }),
    );
    assert.strictEqual(base.getText(), BEFORE, 'the left side is the base');

    assert.strictEqual(await vscode.commands.executeCommand('arbor.keepWorktree', agent), 1);
    assert.strictEqual(fs.readFileSync(path.join(root, FILE), 'utf8'), AFTER, "Keep changed the user's file");
    assert.ok(!fs.existsSync(entry.worktree.root), 'and removed the worktree');
    assert.strictEqual(git(root, 'branch', '--list', entry.worktree.branch).trim(), '', 'and its branch');
    assert.strictEqual(t.worktrees.get(agent.id), undefined);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
