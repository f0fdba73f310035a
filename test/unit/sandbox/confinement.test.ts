import * as assert from 'assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { CommandSandbox, DEFAULT_SANDBOX_SETTINGS } from '../../../src/core/sandbox';
import { until } from '../../support/runtimeFixture';
import { makePlace, removePlace, requireSandbox, runSandboxed, sandboxWith, type SandboxPlace } from './sandboxFixture';

/** Each test: a marker file outside the run folder, which the sandboxed command must leave as it was. */
describe('a sandboxed command (Linux, bubblewrap)', function () {
  this.timeout(30_000);
  requireSandbox();
  let place: SandboxPlace;
  beforeEach(() => (place = makePlace()));
  afterEach(() => removePlace(place));

  const markerUntouched = (): void => {
    assert.strictEqual(fs.readFileSync(place.marker, 'utf8'), 'original\n');
    assert.deepStrictEqual(fs.readdirSync(place.outside), ['marker']);
  };

  it('writes in the run folder and its own /tmp, and cannot create or change a file outside it', async () => {
    const r = await runSandboxed(sandboxWith(place), place, `echo made > inside.txt && echo t > /tmp/t && cat /tmp/t; echo x > ${place.marker}; touch ${place.outside}/new; echo done`);
    assert.ok(r.sandboxed);
    assert.match(r.output, /Read-only file system/);
    assert.strictEqual(fs.readFileSync(path.join(place.workspace, 'inside.txt'), 'utf8'), 'made\n');
    markerUntouched();
  });

  it('cannot read a deny-listed file, by its path, a link, .. or /proc/self/root', async () => {
    fs.symlinkSync(place.secrets, path.join(place.workspace, 'link'));
    const r = await runSandboxed(sandboxWith(place), place, `cat ${place.secretFile}; cat link/id_key; cat ../secrets/id_key; cat /proc/self/root${place.secretFile}; ls -a ${place.secrets}`);
    assert.doesNotMatch(r.output, /TOP-SECRET/);
    markerUntouched();
  });

  it('cannot write outside through a link to outside, /proc/self/root, .., or a link made while it runs', async () => {
    fs.symlinkSync(place.outside, path.join(place.workspace, 'out-link'));
    const r = await runSandboxed(sandboxWith(place), place, [
      'echo x > out-link/marker',
      `echo x > /proc/self/root${place.marker}`,
      'echo x > ../outside/marker',
      'ln -s ../outside late && echo x > late/marker; touch late/new',
      `mv ${place.marker} ${place.workspace}/stolen`,
      'echo finished',
    ].join('; '));
    assert.match(r.output, /finished/);
    markerUntouched();
  });

  it('cannot make a user namespace (unshare), and a PATH of its choosing only finds programs that are confined too', async () => {
    const bin = path.join(place.outside, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'evil'), `#!/bin/sh\necho x > ${place.marker}\necho evil-ran\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'marker2'), '');
    const r = await runSandboxed(sandboxWith(place), place, `unshare -r -m sh -c 'echo x > ${place.marker}' && echo unshared; unshare -n true && echo net-unshared; PATH=${bin}:$PATH; evil; echo finished`);
    assert.doesNotMatch(r.output, /unshared/);
    assert.match(r.output, /evil-ran/);
    assert.strictEqual(fs.readFileSync(place.marker, 'utf8'), 'original\n');
  });

  it('binds sockets only inside itself: the host cannot reach a server it starts', async () => {
    const port = await freePort();
    const server = `const fs=require('fs');const s=require('net').createServer(c=>c.end('from-sandbox')).listen(${port},'127.0.0.1',()=>{fs.writeFileSync('listening','');const t=setInterval(()=>{if(fs.existsSync('probed')){clearInterval(t);s.close()}},20)})`;
    const running = runSandboxed(sandboxWith(place), place, `node -e "${server}"; echo closed`);
    await until(() => fs.existsSync(path.join(place.workspace, 'listening')), 'the server to listen inside the sandbox', 20_000);
    const reached = await new Promise<boolean>((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => (c.destroy(), resolve(true)));
      c.on('error', () => resolve(false));
    });
    fs.writeFileSync(path.join(place.workspace, 'probed'), '');
    const r = await running;
    assert.match(r.output, /closed/);
    assert.strictEqual(reached, false, 'the host reached a server bound inside the sandbox');
  });

  it('does not get secret-looking variables unless they are listed', async () => {
    const env = { GITHUB_TOKEN: 'tok-1', MY_API_KEY: 'key-2', GIT_AUTHOR_NAME: 'ann' };
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      const hidden = await runSandboxed(sandboxWith(place), place, 'echo "[$GITHUB_TOKEN][$MY_API_KEY][$GIT_AUTHOR_NAME]"');
      assert.strictEqual(hidden.output.trim(), '[][][ann]');
      const listed = await runSandboxed(sandboxWith(place, { envAllow: ['MY_API_KEY'] }), place, 'echo "[$GITHUB_TOKEN][$MY_API_KEY][$GIT_AUTHOR_NAME]"');
      assert.strictEqual(listed.output.trim(), '[][key-2][ann]');
    } finally {
      for (const name of Object.keys(env)) if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('a run folder inside a deny-listed folder (a worktree in the editor\'s storage) is usable, the rest of that folder is not', async () => {
    // The editor's layout: the user data folder denied, and inside it the extension's storage (denied too) holding the worktree, beside a workspace's storage.
    const storage = path.join(place.secrets, 'storage');
    const worktree = path.join(storage, 'worktrees', 'wt');
    const workspaceStorage = path.join(place.secrets, 'workspaceStorage', 'x');
    fs.mkdirSync(worktree, { recursive: true });
    fs.mkdirSync(workspaceStorage, { recursive: true });
    fs.writeFileSync(path.join(storage, 'session.jsonl'), 'SESSION-CONTENT\n');
    const sandbox = new CommandSandbox({ settings: DEFAULT_SANDBOX_SETTINGS, denyRead: [place.secrets, storage, workspaceStorage] });
    const r = await runSandboxed(sandbox, place, `echo ok > made.txt && cat made.txt; cat ${storage}/session.jsonl; cat ${place.secretFile}; echo x > ${place.marker}`, {}, worktree);
    assert.match(r.output, /^ok$/m);
    assert.doesNotMatch(r.output, /SESSION-CONTENT|TOP-SECRET/);
    assert.strictEqual(fs.readFileSync(path.join(worktree, 'made.txt'), 'utf8'), 'ok\n');
    markerUntouched();
  });

  it('cannot change what runs outside the sandbox later: git hooks and config, .vscode', async () => {
    for (const dir of ['.git/hooks', '.vscode']) fs.mkdirSync(path.join(place.workspace, dir), { recursive: true });
    fs.writeFileSync(path.join(place.workspace, '.git/config'), '[core]\n');
    fs.writeFileSync(path.join(place.workspace, '.vscode/tasks.json'), '{}\n');
    const r = await runSandboxed(sandboxWith(place), place, [
      'echo "echo pwned > ' + place.marker + '" > .git/hooks/pre-commit',
      'git config core.hooksPath /tmp; printf "[core]\\n\\thooksPath = /tmp\\n" >> .git/config',
      'echo "{ \\"tasks\\": [] }" > .vscode/tasks.json',
      'echo x > .git/ORIG_HEAD && echo other-git-files-writable',
    ].join('; '));
    assert.match(r.output, /other-git-files-writable/);
    assert.strictEqual(fs.existsSync(path.join(place.workspace, '.git/hooks/pre-commit')), false);
    assert.strictEqual(fs.readFileSync(path.join(place.workspace, '.git/config'), 'utf8'), '[core]\n');
    assert.strictEqual(fs.readFileSync(path.join(place.workspace, '.vscode/tasks.json'), 'utf8'), '{}\n');
  });

  it('builds and tests inside the workspace (npm test)', async () => {
    fs.writeFileSync(path.join(place.workspace, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts: { build: 'node build.js', test: 'npm run build && node --test' } }));
    fs.writeFileSync(path.join(place.workspace, 'build.js'), "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/sum.js','module.exports=(a,b)=>a+b')");
    fs.writeFileSync(path.join(place.workspace, 'sum.test.js'), "const t=require('node:test');const a=require('assert');t('adds',()=>a.strictEqual(require('./dist/sum.js')(2,3),5));");
    const r = await runSandboxed(sandboxWith(place), place, 'npm test 2>&1');
    assert.strictEqual(r.code, 0, r.output);
    assert.match(r.output, /pass 1/);
    assert.ok(fs.existsSync(path.join(place.workspace, 'dist', 'sum.js')));
    markerUntouched();
  });
});

describe('a sandboxed command\'s network (Linux, bubblewrap)', function () {
  this.timeout(30_000);
  requireSandbox();
  let place: SandboxPlace;
  let server: http.Server;
  let port: number;
  beforeEach(async () => {
    place = makePlace();
    server = http.createServer((_req, res) => res.end('LOOPBACK-REACHED'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterEach(() => {
    server.close();
    removePlace(place);
  });

  it('cannot reach a loopback server unless loopback is allowed, and can once it is', async () => {
    const closed = await runSandboxed(sandboxWith(place), place, `curl -sS -m 10 http://127.0.0.1:${port}/; curl -sS -m 10 --noproxy '*' http://127.0.0.1:${port}/`);
    assert.doesNotMatch(closed.output, /LOOPBACK-REACHED/);
    assert.deepStrictEqual(closed.blocked, [`127.0.0.1:${port}`]);
    const open = await runSandboxed(sandboxWith(place, { allowLoopback: true }), place, `curl -sS -m 10 http://127.0.0.1:${port}/`);
    assert.match(open.output, /LOOPBACK-REACHED/);
  });

  it('is refused a domain that is not allowed, and the refusal names it', async () => {
    const r = await runSandboxed(sandboxWith(place, { networkAllow: ['registry.npmjs.org'] }), place, 'curl -sS -m 10 https://example.com/ ; curl -sS -m 10 http://example.com/ ; echo rc=$?');
    assert.match(r.output, /403/);
    assert.match(r.output, /example\.com:80 is blocked \(not in arbor\.sandbox\.network\.allow\)/);
    assert.deepStrictEqual(r.blocked, ['example.com:443', 'example.com:80']);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
