import * as assert from 'assert';
import { bwrapArgs } from '../../../src/core/sandbox/bwrapArgs';
import { blockedPaths, CommandSandbox, DEFAULT_SANDBOX_SETTINGS, filterSecrets, hostAllowed, isSecretName, parseSandboxSettings, probeSandbox } from '../../../src/core/sandbox';

describe('sandbox settings', () => {
  it('default to preferred, no auto-allow, no network, no loopback', () => {
    const problems: string[] = [];
    assert.deepStrictEqual(parseSandboxSettings({}, (p) => problems.push(p)), DEFAULT_SANDBOX_SETTINGS);
    assert.strictEqual(DEFAULT_SANDBOX_SETTINGS.mode, 'preferred');
    assert.deepStrictEqual(problems, []);
  });

  it('a bad value is named with the default used, and the other keys are kept', () => {
    const problems: string[] = [];
    const s = parseSandboxSettings({ mode: 'sometimes', autoAllow: true, networkAllow: ['registry.npmjs.org', 'http://bad/'] }, (p) => problems.push(p));
    assert.strictEqual(s.mode, 'preferred');
    assert.strictEqual(s.autoAllow, true);
    assert.deepStrictEqual(s.networkAllow, []);
    assert.deepStrictEqual(problems, [
      'arbor.sandbox.mode must be one of preferred, required, off; using "preferred".',
      'arbor.sandbox.network.allow must be a list of domains (item 1: a domain such as registry.npmjs.org or *.example.com); no domain is allowed.',
    ]);
  });
});

describe('sandbox rules', () => {
  it('secret-looking names are withheld unless listed; words, not substrings, decide', () => {
    for (const name of ['GITHUB_TOKEN', 'NPM_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'OPENAI_API_KEY', 'DB_PASSWORD', 'NPM_AUTH', 'GHTOKEN']) assert.ok(isSecretName(name), name);
    for (const name of ['PATH', 'HOME', 'GIT_AUTHOR_NAME', 'KEYBOARD', 'TOKENIZER_PATH', 'LANG']) assert.ok(!isSecretName(name), name);
    const { env, withheld } = filterSecrets({ PATH: '/bin', GITHUB_TOKEN: 'x', MY_API_KEY: 'y' }, ['MY_API_KEY']);
    assert.deepStrictEqual(env, { PATH: '/bin', MY_API_KEY: 'y' });
    assert.deepStrictEqual(withheld, ['GITHUB_TOKEN']);
  });

  it('lets through allowed domains and their subdomains for *., loopback only when allowed', () => {
    const rules = { allow: ['registry.npmjs.org', '*.example.com'], allowLoopback: false };
    assert.ok(hostAllowed('registry.npmjs.org', rules));
    assert.ok(hostAllowed('a.example.com', rules));
    assert.ok(!hostAllowed('example.com', rules));
    assert.ok(!hostAllowed('evilexample.com', rules));
    assert.ok(!hostAllowed('registry.npmjs.org.evil.net', rules));
    for (const h of ['localhost', '127.0.0.1', '127.3.4.5', '[::1]']) {
      assert.ok(!hostAllowed(h, rules), h);
      assert.ok(hostAllowed(h, { ...rules, allowLoopback: true }), h);
    }
  });

  it('masks a denied folder that holds the run folder before binding it, and one inside it after', () => {
    const args = bwrapArgs({ writable: ['/home/u/ws'], denyRead: [{ path: '/home/u', folder: true }, { path: '/home/u/ws/.env', folder: false }], cwd: '/home/u/ws', disableUserns: true });
    const at = (flag: string, value: string): number => args.findIndex((a, i) => a === flag && args[i + 1] === value);
    assert.ok(at('--tmpfs', '/home/u') < at('--bind', '/home/u/ws'));
    assert.ok(at('--remount-ro', '/home/u') > at('--bind', '/home/u/ws'), 'made read-only once the run folder is bound in it');
    assert.ok(args.indexOf('/home/u/ws/.env') > at('--bind', '/home/u/ws'));
    assert.ok(args.includes('--unshare-net') && args.includes('--disable-userns') && args.includes('--die-with-parent'));
    assert.ok(at('--tmpfs', '/run') > 0 && at('--tmpfs', '/tmp') > 0);
  });

  it('leaves out a denied path inside another denied folder, which hides it already', () => {
    const args = bwrapArgs({ writable: ['/data/User/global/wt'], denyRead: [{ path: '/data/User', folder: true }, { path: '/data/User/global', folder: true }, { path: '/data/User/ws/a', folder: true }, { path: '/data/User/key', folder: false }], cwd: '/data/User/global/wt', disableUserns: true });
    const masked = args.flatMap((a, i) => (a === '--tmpfs' || (a === '--ro-bind' && args[i + 1] === '/dev/null') ? [args[i + (a === '--tmpfs' ? 1 : 2)]] : []));
    assert.deepStrictEqual(masked, ['/run', '/tmp', '/data/User']);
    assert.ok(args.lastIndexOf('--remount-ro') > args.indexOf('--bind'));
  });

  it('names the paths a program reported it could not write', () => {
    const output = [
      '/bin/sh: 1: cannot create /home/u/x: Read-only file system',
      "touch: cannot touch '/etc/y': Read-only file system",
      "Error: EROFS: read-only file system, open '/opt/z'",
      'fine line',
    ].join('\n');
    assert.deepStrictEqual(blockedPaths(output), ['/home/u/x', '/etc/y', '/opt/z']);
  });

  it('describes an unavailable sandbox as unsandboxed in preferred mode, and refuses in required', async () => {
    const availability = async () => ({ ok: false as const, missing: 'bubblewrap (bwrap) not found on PATH' });
    const told: string[] = [];
    const preferred = new CommandSandbox({ settings: DEFAULT_SANDBOX_SETTINGS, availability, onUnsandboxed: (reason) => told.push(reason) });
    assert.strictEqual(preferred.describe(await preferred.plan(['/w'])), 'Runs unsandboxed, with all of your rights: this machine has no sandbox: bubblewrap (bwrap) not found on PATH.');
    await preferred.plan(['/w']);
    assert.deepStrictEqual(told, ['this machine has no sandbox: bubblewrap (bwrap) not found on PATH'], 'told once, not at every command');
    const required = new CommandSandbox({ settings: { ...DEFAULT_SANDBOX_SETTINGS, mode: 'required' }, availability });
    await assert.rejects(required.plan(['/w']), (err: { code?: string }) => err.code === 'SANDBOX_UNAVAILABLE');
  });

  it('says there is no sandbox on macOS and Windows', async () => {
    assert.match(((await probeSandbox('win32')) as { missing: string }).missing, /no command sandbox on Windows/);
    assert.match(((await probeSandbox('darwin')) as { missing: string }).missing, /macOS/);
  });
});
