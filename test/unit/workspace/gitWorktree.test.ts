import * as assert from 'assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isArborError } from '../../../src/core/errors';
import { baseContent, createWorktree, discardWorktree, keepWorktree, worktreeChanges, type GitWorktree } from '../../../src/core/workspace';

const SHOPPING = "const items = ['apples', 'oats', 'coffee'];\n";
const EDITED = "const items = ['apples', 'oats', 'coffee', 'tea'];\n";

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => isArborError(err) && err.code === code);
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' });
}

describe('git worktree runs: the user tree is untouched until Keep', () => {
  let repo: string;
  let storage: string;
  beforeEach(() => {
    repo = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-wt-repo-'));
    storage = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-wt-storage-'));
    git(repo, 'init', '-q');
    git(repo, 'config', 'user.email', 'test@example.com');
    git(repo, 'config', 'user.name', 'Test');
    fs.mkdirSync(path.join(repo, 'src'));
    fs.writeFileSync(path.join(repo, 'src/shoppingList.js'), SHOPPING);
    fs.writeFileSync(path.join(repo, 'old.txt'), 'old\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
  });
  afterEach(() => {
    fs.rmSync(repo, { recursive: true, force: true });
    fs.rmSync(storage, { recursive: true, force: true });
  });

  async function agentEdits(): Promise<GitWorktree> {
    const wt = await createWorktree({ workspaceFolder: repo, storage, label: 'Add tea!', id: 'abc123' });
    fs.writeFileSync(path.join(wt.folder, 'src/shoppingList.js'), EDITED);
    fs.writeFileSync(path.join(wt.folder, 'notes.md'), '# notes\n');
    fs.rmSync(path.join(wt.folder, 'old.txt'));
    return wt;
  }

  it('creates a worktree on a new branch outside the repository, from HEAD', async () => {
    const wt = await createWorktree({ workspaceFolder: repo, storage, label: 'Add tea!', id: 'abc123' });
    assert.strictEqual(wt.branch, 'arbor/add-tea-abc123');
    assert.ok(!wt.root.startsWith(repo + path.sep), 'the worktree lives outside the repository');
    assert.strictEqual(fs.readFileSync(path.join(wt.folder, 'src/shoppingList.js'), 'utf8'), SHOPPING);
    assert.strictEqual(wt.base, git(repo, 'rev-parse', 'HEAD').trim());
  });

  it('lists the changes against the base, uncommitted and untracked included, and reads the base content', async () => {
    const wt = await agentEdits();
    const changes = await worktreeChanges(wt);
    assert.deepStrictEqual(
      [...changes].sort((a, b) => a.path.localeCompare(b.path)),
      [
        { path: 'notes.md', kind: 'added' },
        { path: 'old.txt', kind: 'deleted' },
        { path: 'src/shoppingList.js', kind: 'modified' },
      ],
    );
    assert.strictEqual(await baseContent(wt, 'src/shoppingList.js'), SHOPPING);
    assert.strictEqual(await baseContent(wt, 'notes.md'), undefined);
    assert.strictEqual(fs.readFileSync(path.join(repo, 'src/shoppingList.js'), 'utf8'), SHOPPING, 'the user tree is untouched');
  });

  it('Keep applies the changes to the user tree, not to its index', async () => {
    const wt = await agentEdits();
    await keepWorktree(wt);
    assert.strictEqual(fs.readFileSync(path.join(repo, 'src/shoppingList.js'), 'utf8'), EDITED);
    assert.strictEqual(fs.readFileSync(path.join(repo, 'notes.md'), 'utf8'), '# notes\n');
    assert.ok(!fs.existsSync(path.join(repo, 'old.txt')));
    assert.strictEqual(git(repo, 'diff', '--cached', '--name-only'), '', 'nothing staged');
  });

  it('Keep refuses a change that no longer fits and changes nothing', async () => {
    const wt = await agentEdits();
    fs.writeFileSync(path.join(repo, 'src/shoppingList.js'), "const items = ['bread'];\n");
    await rejectsWith(keepWorktree(wt), 'WORKTREE_CONFLICT');
    assert.strictEqual(fs.readFileSync(path.join(repo, 'src/shoppingList.js'), 'utf8'), "const items = ['bread'];\n");
    assert.ok(!fs.existsSync(path.join(repo, 'notes.md')), 'no other file was applied');
    assert.ok(fs.existsSync(path.join(repo, 'old.txt')));
  });

  it('Discard removes the worktree and its branch and leaves the user tree alone', async () => {
    const wt = await agentEdits();
    await discardWorktree(wt);
    assert.ok(!fs.existsSync(wt.root));
    assert.strictEqual(git(repo, 'branch', '--list', wt.branch).trim(), '');
    assert.strictEqual(fs.readFileSync(path.join(repo, 'src/shoppingList.js'), 'utf8'), SHOPPING);
  });

  it('works from a workspace folder that is a subfolder of the repository', async () => {
    const wt = await createWorktree({ workspaceFolder: path.join(repo, 'src'), storage, label: 'sub', id: 'sub1' });
    assert.strictEqual(fs.readFileSync(path.join(wt.folder, 'shoppingList.js'), 'utf8'), SHOPPING);
    fs.writeFileSync(path.join(wt.folder, 'shoppingList.js'), EDITED);
    assert.deepStrictEqual(await worktreeChanges(wt), [{ path: 'shoppingList.js', kind: 'modified' }]);
    assert.strictEqual(await baseContent(wt, 'shoppingList.js'), SHOPPING);
    await keepWorktree(wt);
    assert.strictEqual(fs.readFileSync(path.join(repo, 'src/shoppingList.js'), 'utf8'), EDITED);
  });

  it('refuses a folder that is not in a git repository, saying so', async () => {
    const plain = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-wt-plain-'));
    try {
      await assert.rejects(
        createWorktree({ workspaceFolder: plain, storage, label: 'x', id: 'x1' }),
        (err: unknown) => isArborError(err, 'NOT_A_GIT_REPOSITORY') && /not inside a git repository/.test(err.message),
      );
    } finally {
      fs.rmSync(plain, { recursive: true, force: true });
    }
  });
});
