import * as assert from 'assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isArborError } from '../../../src/core/errors';
import { NodeWorkspace } from '../../../src/core/workspace';
import { ripgrepListFiles, ripgrepSearch } from '../../../src/core/workspace/workspaceFiles';
import { writeTree } from '../../support/workspaceTree';
import { until } from '../../support/until';

/** The ripgrep on PATH (the Debian package the test machines install), as the editor ships its own. */
const RG = process.env.ARBOR_RG ?? 'rg';

/** Live rg processes whose working directory is `dir`. */
function rgProcessesIn(dir: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')[0];
      if (path.basename(cmd) === 'rg' && fs.readlinkSync(`/proc/${name}/cwd`) === dir) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe('listing and search with ripgrep agree with the Node scan', () => {
  let root: string;
  before(() => {
    execFileSync(RG, ['--version']);
  });
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-rg-')));
    writeTree(root, {
      '.gitignore': 'build/\n*.log\n',
      'src/a.js': 'const apples = 1;\nconst pears = 2;\n',
      'src/nested/.gitignore': 'local.js\n',
      'src/nested/local.js': 'const apples = 3;\n',
      'src/nested/kept.js': 'APPLES\n',
      'build/out.js': 'const apples = 4;\n',
      'debug.log': 'apples\n',
      'dist/bundle.js': 'apples\n',
      'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x61, 0x70, 0x70, 0x6c, 0x65, 0x73]),
      '.git/HEAD': 'apples\n',
    });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('lists the same files, and caps the same way', async () => {
    const exclude = ['**/dist'];
    const node = new NodeWorkspace({ folders: [root], exclude });
    for (const glob of [undefined, '*.js', 'src/*.js', 'src/**/*.js', '**/*.log']) {
      const expected = await node.listFiles({ glob, limit: 100 });
      assert.deepStrictEqual(await ripgrepListFiles(RG, { folders: [root], exclude }, glob, 100), expected, String(glob));
    }
    assert.deepStrictEqual(await ripgrepListFiles(RG, { folders: [root], exclude }, undefined, 2), await node.listFiles({ limit: 2 }));
  });

  it('finds the same matches, literal and regex, and names a bad expression', async () => {
    const exclude = ['**/dist'];
    const node = new NodeWorkspace({ folders: [root], exclude });
    for (const q of [
      { pattern: 'apples', isRegex: false, caseSensitive: false },
      { pattern: 'apples', isRegex: false, caseSensitive: true },
      { pattern: '^const (pears|apples) = [12];$', isRegex: true, caseSensitive: true },
      { pattern: 'a.p', isRegex: false, caseSensitive: false },
      { pattern: 'apples', isRegex: false, caseSensitive: false, glob: '*.js' },
      { pattern: 'apples', isRegex: false, caseSensitive: false, glob: 'src/nested/*.js' },
      { pattern: 'apples', isRegex: false, caseSensitive: false, glob: 'nowhere/*.js' },
    ]) {
      const expected = await node.searchText({ ...q, limit: 100 });
      assert.deepStrictEqual(await ripgrepSearch(RG, { folders: [root], exclude }, { ...q, limit: 100 }), expected, q.pattern);
    }
    const capped = await ripgrepSearch(RG, { folders: [root], exclude }, { pattern: 'const', isRegex: false, caseSensitive: false, limit: 1 });
    assert.strictEqual(capped.matches.length, 1);
    assert.strictEqual(capped.truncated, true);
    await assert.rejects(
      ripgrepSearch(RG, { folders: [root], exclude: [] }, { pattern: '(', isRegex: true, caseSensitive: false, limit: 1 }),
      (e: unknown) => isArborError(e, 'SEARCH_INVALID'),
    );
  });

  it('an abort kills the search that would never end', async () => {
    // rg reads every .gitignore it meets; one that is a FIFO with no writer blocks it for good.
    const fifo = path.join(root, 'src', 'nested', 'deeper', '.gitignore');
    fs.mkdirSync(path.dirname(fifo), { recursive: true });
    execFileSync('mkfifo', [fifo]);
    const controller = new AbortController();
    const search = ripgrepSearch(RG, { folders: [root], exclude: [], signal: controller.signal }, { pattern: 'apples', isRegex: false, caseSensitive: false, limit: 10 });
    const settled = search.then(
      () => 'resolved',
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    await until(() => rgProcessesIn(root).length > 0, 'rg to run', 10_000);
    assert.ok(rgProcessesIn(root).length > 0, 'rg is running');
    controller.abort(new Error('stopped by the user'));
    assert.strictEqual(await settled, 'stopped by the user');
    await until(() => rgProcessesIn(root).length === 0, 'rg to be killed', 10_000);
    assert.deepStrictEqual(rgProcessesIn(root), [], 'rg was killed');
  });
});
