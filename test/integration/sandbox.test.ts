import * as assert from 'assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { probeSandbox } from '../../src/core/sandbox';
import type { ArborTesting } from '../../src/extension/extension';
import { arborTesting, toolResults, waitFor } from './support';

const run = (command: string) => ({ name: 'run_command', arguments: { command } });
const result = (agent: Parameters<typeof toolResults>[0]): Record<string, unknown> => JSON.parse(toolResults(agent)[0].content) as Record<string, unknown>;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, '-c', 'user.email=test@example.com', '-c', 'user.name=Test', ...args], { encoding: 'utf8' });
}

/**
 * What only the editor can show: with no sandbox setting at all, agents' commands run sandboxed
 * (the editor's default is `preferred`), the editor's own storage is denied to them, and a
 * worktree agent, whose worktree lives in that storage, still runs commands in it.
 */
describe('Commands run in the sandbox in the editor (Linux, bubblewrap)', function () {
  this.timeout(120_000);
  let t: ArborTesting;
  let workspace: string;
  let outside: string;
  let marker: string;
  let madeRepo = false;

  before(async function () {
    const available = await probeSandbox();
    if (!available.ok) {
      console.log(`      (skipped: ${available.missing})`);
      this.skip();
    }
    t = await arborTesting();
    workspace = t.runtime.workspaceFolder ?? assert.fail('the integration workspace has a folder');
    outside = fs.mkdtempSync('/var/tmp/arbor-it-sandbox-');
    marker = path.join(outside, 'marker');
    fs.writeFileSync(marker, 'original\n');
    await vscode.workspace.getConfiguration('arbor').update('approvals.rules', ['command: *'], vscode.ConfigurationTarget.Global);
    await waitFor(() => t.approvalRules.rules().some((r) => r.pattern === '*'), 'the rule to be in force');
  });
  after(async () => {
    if (!t) return;
    for (const entry of t.worktrees.list()) {
      t.worktrees.confirmDiscard = () => Promise.resolve(true);
      await t.worktrees.discard(entry.agent.id);
    }
    for (const agent of t.runtime.agents.all()) if (agent.kind !== 'one-shot') await t.runtime.end(agent);
    await vscode.workspace.getConfiguration('arbor').update('approvals.rules', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('notifications.clearAll');
    fs.rmSync(outside, { recursive: true, force: true });
    fs.rmSync(path.join(workspace, 'sandbox-it.txt'), { force: true });
    if (madeRepo) fs.rmSync(path.join(workspace, '.git'), { recursive: true, force: true });
  });

  it('by default a command writes in the workspace but not outside it, and cannot read the editor\'s storage', async () => {
    const root = t.sessions?.root ?? assert.fail('the editor gives Arbor a storage folder');
    const probe = path.join(root, 'sandbox-probe.txt');
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(probe, 'EDITOR-STORAGE-CONTENT\n');
    try {
      const agent = t.startScripted({ version: 1, agents: { Builder: { turns: [[{ toolCalls: [run(`echo in > sandbox-it.txt; echo x > ${marker}; cat ${probe}`)] }, { text: 'done' }]] } } }, 'build', 'Builder');
      await agent.whenIdle();
      const r = result(agent);
      assert.match(String(r.sandbox), /^sandboxed: writes only in/, JSON.stringify(r));
      assert.doesNotMatch(String(r.output), /EDITOR-STORAGE-CONTENT/);
      assert.deepStrictEqual(r.blocked_paths, [marker]);
      assert.strictEqual(fs.readFileSync(marker, 'utf8'), 'original\n');
      assert.strictEqual(fs.readFileSync(path.join(workspace, 'sandbox-it.txt'), 'utf8'), 'in\n');
    } finally {
      fs.rmSync(probe, { force: true });
    }
  });

  it('a worktree agent\'s command writes only in its worktree (which lives in the editor\'s storage)', async () => {
    if (!fs.existsSync(path.join(workspace, '.git'))) {
      git(workspace, 'init', '-q');
      madeRepo = true;
    }
    git(workspace, 'commit', '-q', '--allow-empty', '-m', 'sandbox suite');
    const agent = await t.startScriptedInWorktree({ version: 1, agents: { Isolated: { turns: [[{ toolCalls: [run(`touch in-worktree.txt; touch ${workspace}/from-worktree.txt`)] }, { text: 'done' }]] } } }, 'work', 'Isolated');
    await agent.whenIdle();
    const folder = t.worktrees.get(agent.id)?.worktree.folder ?? assert.fail('the agent has a worktree');
    const r = result(agent);
    assert.match(String(r.sandbox), /^sandboxed/);
    assert.ok(fs.existsSync(path.join(folder, 'in-worktree.txt')), `the command wrote in its worktree: ${JSON.stringify(r)}`);
    assert.strictEqual(fs.existsSync(path.join(workspace, 'from-worktree.txt')), false);
  });
});
