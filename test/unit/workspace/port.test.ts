import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isArborError } from '../../../src/core/errors';
import { ChangeSets, FileChangeSetStorage, NodeWorkspace, resolveWorkspacePath } from '../../../src/core/workspace';
import { writeTree } from '../../support/workspaceTree';

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => isArborError(err) && err.code === code);
}

describe('workspace paths are confined to the workspace folders', () => {
  let root: string;
  let elsewhere: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-ws-'));
    elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-elsewhere-'));
    writeTree(root, { 'src/a.js': 'a\n' });
    writeTree(elsewhere, { 'secret.txt': 'secret\n' });
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(elsewhere, { recursive: true, force: true });
  });

  it('resolves relative and absolute paths inside a folder', async () => {
    const rel = await resolveWorkspacePath([root], 'src/a.js');
    assert.strictEqual(rel.relative, 'src/a.js');
    assert.strictEqual(rel.absolute, path.join(root, 'src', 'a.js'));
    const abs = await resolveWorkspacePath([root], path.join(root, 'src/a.js'));
    assert.strictEqual(abs.relative, 'src/a.js');
    assert.strictEqual((await resolveWorkspacePath([root], 'src/../src/new.js')).relative, 'src/new.js');
  });

  it('refuses .., absolute paths elsewhere and symlinks that lead out, with PATH_OUTSIDE_WORKSPACE', async () => {
    await rejectsWith(resolveWorkspacePath([root], '../x'), 'PATH_OUTSIDE_WORKSPACE');
    await rejectsWith(resolveWorkspacePath([root], 'src/../../x'), 'PATH_OUTSIDE_WORKSPACE');
    await rejectsWith(resolveWorkspacePath([root], path.join(elsewhere, 'secret.txt')), 'PATH_OUTSIDE_WORKSPACE');
    fs.symlinkSync(elsewhere, path.join(root, 'link'));
    await rejectsWith(resolveWorkspacePath([root], 'link/secret.txt'), 'PATH_OUTSIDE_WORKSPACE');
    await rejectsWith(resolveWorkspacePath([root], 'link/new-file.txt'), 'PATH_OUTSIDE_WORKSPACE');
    fs.symlinkSync(path.join(elsewhere, 'secret.txt'), path.join(root, 'file-link'));
    await rejectsWith(resolveWorkspacePath([root], 'file-link'), 'PATH_OUTSIDE_WORKSPACE');
  });

  it('a symlink that stays inside the workspace is fine, and the path names where it really leads', async () => {
    fs.symlinkSync(path.join(root, 'src'), path.join(root, 'alias'));
    const p = await resolveWorkspacePath([root], 'alias/a.js');
    assert.strictEqual(p.relative, 'src/a.js');
    assert.strictEqual(p.absolute, path.join(root, 'src', 'a.js'));
  });

  it('with no folder open, says so (WORKSPACE_NONE)', async () => {
    await rejectsWith(resolveWorkspacePath([], 'a.js'), 'WORKSPACE_NONE');
  });

  it('in a multi-root workspace, a path may start with a folder name', async () => {
    const second = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-second-'));
    try {
      writeTree(second, { 'b.txt': 'b' });
      const p = await resolveWorkspacePath([root, second], `${path.basename(second)}/b.txt`);
      assert.strictEqual(p.absolute, path.join(second, 'b.txt'));
      assert.strictEqual(p.relative, `${path.basename(second)}/b.txt`);
    } finally {
      fs.rmSync(second, { recursive: true, force: true });
    }
  });
});

describe('NodeWorkspace', () => {
  let root: string;
  let ws: NodeWorkspace;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-ws-'));
    writeTree(root, {
      '.gitignore': 'build/\n*.log\n',
      'src/a.js': 'const apples = 1;\nconst pears = 2;\n',
      'src/nested/.gitignore': 'local.js\n',
      'src/nested/local.js': 'const apples = 3;\n',
      'src/nested/kept.js': 'APPLES\n',
      'build/out.js': 'const apples = 4;\n',
      'debug.log': 'apples\n',
      'dist/bundle.js': 'apples\n',
      'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x61, 0x70]),
      '.git/HEAD': 'apples\n',
    });
    ws = new NodeWorkspace({ folders: [root], exclude: ['**/dist'] });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('lists files without .git, git-ignored (nested .gitignore too) and excluded ones', async () => {
    const { files, truncated } = await ws.listFiles({ limit: 100 });
    assert.deepStrictEqual(files, ['.gitignore', 'image.png', 'src/a.js', 'src/nested/.gitignore', 'src/nested/kept.js']);
    assert.strictEqual(truncated, false);
    assert.deepStrictEqual((await ws.listFiles({ glob: '*.js', limit: 100 })).files, ['src/a.js', 'src/nested/kept.js']);
    assert.deepStrictEqual((await ws.listFiles({ glob: 'src/*.js', limit: 100 })).files, ['src/a.js']);
    const capped = await ws.listFiles({ limit: 2 });
    assert.deepStrictEqual(capped, { files: ['.gitignore', 'image.png'], truncated: true });
  });

  it('searches text and regex, case-insensitive by default, skipping binary and ignored files, capped', async () => {
    const found = await ws.searchText({ pattern: 'apples', isRegex: false, caseSensitive: false, limit: 100 });
    assert.deepStrictEqual(
      found.matches.map((m) => `${m.path}:${m.line}:${m.text}`),
      ['src/a.js:1:const apples = 1;', 'src/nested/kept.js:1:APPLES'],
    );
    const exact = await ws.searchText({ pattern: 'apples', isRegex: false, caseSensitive: true, limit: 100 });
    assert.deepStrictEqual(exact.matches.map((m) => m.path), ['src/a.js']);
    const regex = await ws.searchText({ pattern: '^const (pears|apples) = [12];$', isRegex: true, caseSensitive: true, limit: 100 });
    assert.deepStrictEqual(regex.matches.map((m) => m.line), [1, 2]);
    const capped = await ws.searchText({ pattern: 'const', isRegex: false, caseSensitive: false, limit: 1 });
    assert.strictEqual(capped.matches.length, 1);
    assert.strictEqual(capped.truncated, true);
    await rejectsWith(ws.searchText({ pattern: '(', isRegex: true, caseSensitive: false, limit: 1 }), 'SEARCH_INVALID');
  });

  it('a search stops when its signal aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await assert.rejects(ws.searchText({ pattern: 'x', isRegex: false, caseSensitive: false, limit: 10, signal: controller.signal }), /stopped/);
  });

  it('reads text, refuses binary files and missing ones', async () => {
    const a = await ws.resolve('src/a.js');
    assert.deepStrictEqual(await ws.readText(a), { text: 'const apples = 1;\nconst pears = 2;\n', source: 'disk' });
    await rejectsWith(ws.readText(await ws.resolve('image.png')), 'FILE_BINARY');
    await rejectsWith(ws.readText(await ws.resolve('nope.js')), 'FILE_NOT_FOUND');
  });

  it('writes only over the expected content: EDIT_STALE when it changed, FILE_EXISTS for a create over a file', async () => {
    const a = await ws.resolve('src/a.js');
    await rejectsWith(ws.writeText(a, 'x', { expected: 'something else' }), 'EDIT_STALE');
    assert.strictEqual(fs.readFileSync(a.absolute, 'utf8'), 'const apples = 1;\nconst pears = 2;\n');
    await rejectsWith(ws.writeText(a, 'x', { expected: null }), 'FILE_EXISTS');
    await ws.writeText(a, 'new', { expected: 'const apples = 1;\nconst pears = 2;\n' });
    assert.strictEqual(fs.readFileSync(a.absolute, 'utf8'), 'new');
    const created = await ws.resolve('deep/new/file.txt');
    await ws.writeText(created, 'hello', { expected: null });
    assert.strictEqual(fs.readFileSync(created.absolute, 'utf8'), 'hello');
  });
});

describe('change sets record what each agent changed, beside the session', () => {
  let root: string;
  let sessions: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-ws-'));
    sessions = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-sessions-'));
    writeTree(root, { 'a.txt': 'original\n' });
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(sessions, { recursive: true, force: true });
  });

  it('keeps the content before the first change only, survives a new instance (a reload), and restores', async () => {
    const ws = new NodeWorkspace({ folders: [root] });
    const changes = new ChangeSets(new FileChangeSetStorage(sessions), () => ws);
    const a = await ws.resolve('a.txt');
    const b = await ws.resolve('b.txt');
    assert.strictEqual(await changes.recordBefore('s1', a, 'original\n'), true);
    await ws.writeText(a, 'first edit\n');
    await changes.recordWritten('s1', 'a.txt', 'first edit\n');
    assert.strictEqual(await changes.recordBefore('s1', a, 'first edit\n'), false, 'only the first change is recorded');
    await ws.writeText(a, 'second edit\n');
    await changes.recordWritten('s1', 'a.txt', 'second edit\n');
    await changes.recordBefore('s1', b, null);
    await ws.writeText(b, 'created\n');
    await changes.recordWritten('s1', 'b.txt', 'created\n');

    const reloaded = new ChangeSets(new FileChangeSetStorage(sessions), () => ws);
    const listed = await reloaded.list('s1');
    assert.deepStrictEqual(listed.map((f) => [f.path, f.original]), [['a.txt', 'original\n'], ['b.txt', null]]);
    assert.deepStrictEqual(await reloaded.list('other'), []);

    await reloaded.restore('s1', 'a.txt');
    assert.strictEqual(fs.readFileSync(a.absolute, 'utf8'), 'original\n');
    await reloaded.restore('s1', 'b.txt');
    assert.strictEqual(fs.existsSync(b.absolute), false, 'a created file is removed');
    assert.deepStrictEqual(await reloaded.list('s1'), []);
    await rejectsWith(reloaded.restore('s1', 'a.txt'), 'FILE_NOT_FOUND');
  });

  it('a damaged record is CHANGES_UNREADABLE, not an empty one', async () => {
    const storage = new FileChangeSetStorage(sessions);
    fs.writeFileSync(storage.fileOf('s1'), '{"version":1,"files":[{"path":3}]}');
    const changes = new ChangeSets(storage, () => undefined);
    await rejectsWith(changes.list('s1'), 'CHANGES_UNREADABLE');
  });
});
