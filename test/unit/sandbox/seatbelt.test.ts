// macOS's sandbox (Seatbelt, `sandbox-exec`): the profile a command gets, the probe that decides
// whether the machine has one, and the launch that starts a command in it with the network
// filter on loopback. The profile is checked as text everywhere; it is applied for real only on
// macOS (the last suite), where the sandbox suites beside this one also run under Seatbelt.
import * as assert from 'assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_SANDBOX_SETTINGS } from '../../../src/core/sandbox';
import { probeSeatbelt } from '../../../src/core/sandbox/availability';
import { launchSandboxed } from '../../../src/core/sandbox/sandboxLaunch';
import { describePlan, planOn, sandboxReport } from '../../../src/core/sandbox/sandboxPlan';
import { sbString, seatbeltProfile } from '../../../src/core/sandbox/seatbeltProfile';
import type { SandboxPlan } from '../../../src/core/sandbox/types';

const SEATBELT = { ok: true as const, seatbelt: '/usr/bin/sandbox-exec' };

/** Where in `profile` the line that starts with `start` is (it must be there). */
function lineOf(profile: string, start: string): number {
  const lines = profile.split('\n');
  const at = lines.findIndex((l) => l.startsWith(start));
  assert.ok(at >= 0, `the profile has a line starting ${start}:\n${profile}`);
  return at;
}

describe('the Seatbelt profile of a sandboxed command (macOS)', () => {
  const plan = {
    writable: ['/Users/u/project'],
    readOnly: ['/Users/u/project/.git/hooks', '/Users/u/project/.vscode'],
    denyRead: [{ path: '/Users/u/.ssh', folder: true }, { path: '/Users/u/project/.env', folder: false }],
    tmp: '/private/var/folders/x/T/arbor-sandbox-1/tmp',
    proxyPort: 50123,
    allowLoopback: false,
  };

  it('denies every write, then allows the run folder, its own temp folder and the devices, then takes back the protected folders', () => {
    const profile = seatbeltProfile(plan);
    const deny = lineOf(profile, '(deny file-write*)');
    const allow = lineOf(profile, '(allow file-write* (subpath "/Users/u/project") (subpath "/private/var/folders/x/T/arbor-sandbox-1/tmp")');
    const devices = lineOf(profile, '  (literal "/dev/null")');
    const protectedAgain = lineOf(profile, '(deny file-write* (subpath "/Users/u/project/.git/hooks") (subpath "/Users/u/project/.vscode"))');
    // Seatbelt applies the last rule that matches: each narrowing comes after what it narrows.
    assert.ok(deny < allow && allow < devices && devices < protectedAgain, profile);
    assert.ok(profile.startsWith('(version 1)\n(allow default)\n'), 'everything else is as for any process of the user');
  });

  it('denies reading and changing each deny-listed path, a folder as a subpath and a file as a literal, after every allow', () => {
    const profile = seatbeltProfile(plan);
    const read = lineOf(profile, '(deny file-read* (subpath "/Users/u/.ssh") (literal "/Users/u/project/.env"))');
    const write = lineOf(profile, '(deny file-write* (subpath "/Users/u/.ssh") (literal "/Users/u/project/.env"))');
    assert.ok(read > lineOf(profile, '(allow file-write*') && write > read, 'a denied file inside the run folder stays denied');
  });

  it('closes the network, then opens only the filter\'s port on loopback; loopback as a whole only when allowed', () => {
    const closed = seatbeltProfile(plan);
    const none = lineOf(closed, '(deny network*)');
    assert.ok(lineOf(closed, '(allow network-outbound (remote ip "localhost:50123"))') > none);
    assert.ok(!closed.includes('localhost:*'), 'no other loopback port');
    assert.ok(!/mDNSResponder|unix-socket/.test(closed), 'not even the name resolver: the filter resolves what it lets through');
    const noFilter = seatbeltProfile({ ...plan, proxyPort: undefined });
    assert.ok(!noFilter.includes('(allow network'), 'without a filter, no network at all');
    const open = seatbeltProfile({ ...plan, allowLoopback: true });
    assert.ok(lineOf(open, '(allow network-outbound (remote ip "localhost:*"))') > lineOf(open, '(deny network*)'));
    assert.ok(open.includes('(allow network-bind (local ip "localhost:*"))'));
  });

  it('writes a path with quotes and backslashes as one string, and refuses a path with a control character', () => {
    assert.strictEqual(sbString('/Users/u/a "b"\\c'), '"/Users/u/a \\"b\\"\\\\c"');
    const profile = seatbeltProfile({ ...plan, writable: ['/Users/u/my "project") (allow file-write* (subpath "/")'] });
    assert.ok(profile.includes('(subpath "/Users/u/my \\"project\\") (allow file-write* (subpath \\"/\\")")'), 'a folder name cannot add a rule');
    assert.throws(() => seatbeltProfile({ ...plan, writable: ['/Users/u/a\nb'] }), /control character/);
  });

  it('the prompt and the result say its own temp folder, not /tmp', () => {
    const sandboxed = planOn(SEATBELT, [os.tmpdir()], DEFAULT_SANDBOX_SETTINGS, []) as Extract<SandboxPlan, { kind: 'sandboxed' }>;
    assert.strictEqual(sandboxed.kind, 'sandboxed');
    assert.match(describePlan(sandboxed), /^Runs sandboxed: writes only in .* and its own temp folder; cannot read ~\/\.ssh/);
    assert.match(String(sandboxReport(sandboxed, '', []).sandbox), /and its own temp folder \(\$TMPDIR\)$/);
  });
});

describe('probing macOS\'s sandbox', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-seatbelt-probe-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A stand-in `sandbox-exec` whose script decides what each profile does. */
  function fake(script: string): string {
    const file = path.join(dir, 'sandbox-exec');
    fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
    return file;
  }

  it('without sandbox-exec there is none, and it says so', async () => {
    const found = await probeSeatbelt(path.join(dir, 'nothing-here'));
    assert.strictEqual(found.ok, false);
    assert.match(found.ok ? '' : found.missing, /nothing-here not found \(it is part of macOS/);
  });

  it('a sandbox-exec that cannot apply a profile (Arbor itself sandboxed) is none, with its words', async () => {
    const found = await probeSeatbelt(fake('echo "sandbox_apply: Operation not permitted" >&2; exit 71'));
    assert.match(found.ok ? '' : found.missing, /cannot apply a profile here \(sandbox_apply: Operation not permitted\)/);
  });

  it('a sandbox-exec whose profile does not hold (a denied write succeeds) is none', async () => {
    // Runs its program and ignores the profile.
    const found = await probeSeatbelt(fake('shift 2; exec "$@"'));
    assert.match(found.ok ? '' : found.missing, /its profile did not hold/);
    assert.ok(!fs.existsSync('/tmp/.arbor-sandbox-probe'), 'the probe leaves nothing behind');
  });

  it('one that applies the profile and refuses the denied write is the machine\'s sandbox', async () => {
    const exec = fake('case "$2" in *"deny file-write"*) echo "touch: Operation not permitted" >&2; exit 1;; esac; shift 2; exec "$@"');
    assert.deepStrictEqual(await probeSeatbelt(exec), { ok: true, seatbelt: exec });
  });
});

describe('starting a command under Seatbelt', () => {
  let folder: string;
  before(() => (folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-seatbelt-ws-')))));
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('runs the program through sandbox-exec with the profile, its own temp folder and the filter on loopback, which refuses what is not allowed; dispose removes it all', async () => {
    const plan = planOn(SEATBELT, [folder], { ...DEFAULT_SANDBOX_SETTINGS, networkAllow: ['registry.npmjs.org'] }, []);
    const launch = await launchSandboxed(plan, '/bin/sh', ['-c', 'npm test'], folder, { ARBOR_PROCESS_TAG: 't1' });
    try {
      assert.strictEqual(launch.program, '/usr/bin/sandbox-exec');
      assert.strictEqual(launch.sandboxed, true);
      const [flag, profile, ...rest] = launch.args;
      assert.strictEqual(flag, '-p');
      assert.deepStrictEqual(rest, ['/bin/sh', '-c', 'npm test'], 'the command is arguments, never spliced into the profile');
      const tmp = launch.env.TMPDIR;
      assert.ok(fs.statSync(tmp).isDirectory(), 'its temp folder exists');
      assert.ok(profile.includes(`(subpath ${sbString(folder)}) (subpath ${sbString(tmp)})`), profile);
      assert.strictEqual(launch.env.ARBOR_PROCESS_TAG, 't1', "the caller's own variables arrive");
      const port = Number(new URL(launch.env.HTTPS_PROXY).port);
      assert.ok(profile.includes(`(remote ip "localhost:${port}")`), 'the profile opens exactly the filter\'s port');
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: 'http://example.org/', headers: { host: 'example.org' } }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          })
          .on('error', reject);
      });
      assert.strictEqual(answer.status, 403);
      assert.match(answer.body, /example\.org:80 is blocked \(not in arbor\.sandbox\.network\.allow\)/);
      assert.deepStrictEqual(launch.blockedHosts(), ['example.org:80']);
      launch.dispose();
      assert.ok(!fs.existsSync(tmp), 'its temp folder is removed');
    } finally {
      launch.dispose();
    }
  });
});

describe('Seatbelt for real (macOS only)', function () {
  this.timeout(20_000);
  before(function () {
    if (process.platform !== 'darwin') this.skip();
  });

  it('a command cannot write outside its folder, can write inside, and cannot read a denied file', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-seatbelt-real-')));
    const ws = path.join(root, 'ws');
    const secret = path.join(root, 'secret.txt');
    fs.mkdirSync(ws);
    fs.writeFileSync(secret, 'TOP-SECRET\n');
    try {
      const available = await probeSeatbelt();
      assert.ok(available.ok, available.ok ? '' : available.missing);
      const plan = planOn(available, [ws], { ...DEFAULT_SANDBOX_SETTINGS, denyRead: [secret] }, []);
      const launch = await launchSandboxed(plan, '/bin/sh', ['-c', `echo in > inside.txt; echo out > ${JSON.stringify(path.join(root, 'outside.txt'))}; cat ${JSON.stringify(secret)}; exit 0`], ws, {});
      const child = spawn(launch.program, launch.args, { cwd: ws, env: launch.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr.on('data', (c: Buffer) => (output += c.toString()));
      await new Promise((resolve) => child.on('close', resolve));
      launch.dispose();
      assert.ok(fs.existsSync(path.join(ws, 'inside.txt')), output);
      assert.ok(!fs.existsSync(path.join(root, 'outside.txt')), output);
      assert.ok(!output.includes('TOP-SECRET'), output);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
