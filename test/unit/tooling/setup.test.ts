import * as assert from 'node:assert/strict';

interface Pkg {
  name: string;
  why: string;
}
type Plan = { kind: 'ready' } | { kind: 'install'; commands: string[][]; packages: string[] } | { kind: 'manual'; message: string };
interface Probe {
  isInstalled(name: string): boolean;
  chromiumPresent: boolean;
  codeServerInstalled: boolean;
}
interface SetupModule {
  missingPackages(purpose: 'test' | 'start', probe: Probe): Pkg[];
  planSystemPackages(missing: Pkg[], system: { hasApt: boolean; isRoot: boolean; passwordlessSudo: boolean }): Plan;
}

// scripts/setup.cjs runs before node_modules exists, so it is plain CommonJS: load it as such.
const setup = require('../../../scripts/setup.cjs') as SetupModule;

const bare: Probe = { isInstalled: () => false, chromiumPresent: false, codeServerInstalled: false };
const names = (pkgs: Pkg[]) => pkgs.map((p) => p.name);

describe('fresh-machine set-up (scripts/setup.cjs)', () => {
  describe('which Debian packages a command needs', () => {
    it('the tests need chromium, openssh-server, libkrb5-dev, ripgrep, bubblewrap and socat on a bare machine', () => {
      assert.deepEqual(names(setup.missingPackages('test', bare)), ['chromium', 'openssh-server', 'libkrb5-dev', 'ripgrep', 'bubblewrap', 'socat']);
    });

    it('npm start needs no browser, only what installing code-server needs', () => {
      assert.deepEqual(names(setup.missingPackages('start', bare)), ['libkrb5-dev', 'ripgrep']);
    });

    it('once code-server is installed, its build packages are no longer needed', () => {
      assert.deepEqual(names(setup.missingPackages('test', { ...bare, codeServerInstalled: true })), ['chromium', 'openssh-server', 'bubblewrap', 'socat']);
      assert.deepEqual(names(setup.missingPackages('start', { ...bare, codeServerInstalled: true })), []);
    });

    it('installed packages and a Chromium at CHROMIUM_PATH count as present', () => {
      assert.deepEqual(names(setup.missingPackages('test', { ...bare, isInstalled: (n) => ['ripgrep', 'openssh-server', 'bubblewrap', 'socat'].includes(n), chromiumPresent: true })), ['libkrb5-dev']);
    });

    it('says why each package is needed', () => {
      for (const pkg of setup.missingPackages('test', bare)) assert.ok(pkg.why.length > 20, pkg.name);
    });
  });

  describe('how they are installed', () => {
    const missing = setup.missingPackages('test', bare);

    it('nothing missing: nothing to do, whoever the user is', () => {
      assert.deepEqual(setup.planSystemPackages([], { hasApt: false, isRoot: false, passwordlessSudo: false }), { kind: 'ready' });
    });

    it('root installs with apt-get directly, after an update', () => {
      const plan = setup.planSystemPackages(missing, { hasApt: true, isRoot: true, passwordlessSudo: false });
      assert.equal(plan.kind, 'install');
      assert.deepEqual(plan.kind === 'install' && plan.commands, [
        ['apt-get', 'update', '-q'],
        ['apt-get', 'install', '-y', '-q', 'chromium', 'openssh-server', 'libkrb5-dev', 'ripgrep', 'bubblewrap', 'socat'],
      ]);
    });

    it('a user with password-less sudo installs through sudo, never prompting', () => {
      const plan = setup.planSystemPackages(missing, { hasApt: true, isRoot: false, passwordlessSudo: true });
      assert.equal(plan.kind, 'install');
      if (plan.kind !== 'install') return;
      for (const command of plan.commands) assert.deepEqual(command.slice(0, 2), ['sudo', '-n']);
      assert.deepEqual(plan.packages, ['chromium', 'openssh-server', 'libkrb5-dev', 'ripgrep', 'bubblewrap', 'socat']);
    });

    it('a user who cannot install is told the exact one-line command and why each package is needed', () => {
      const plan = setup.planSystemPackages(missing, { hasApt: true, isRoot: false, passwordlessSudo: false });
      assert.equal(plan.kind, 'manual');
      if (plan.kind !== 'manual') return;
      assert.match(plan.message, /^ {2}sudo apt-get update && sudo apt-get install -y -q chromium openssh-server libkrb5-dev ripgrep bubblewrap socat$/m);
      for (const pkg of missing) assert.ok(plan.message.includes(`${pkg.name}: ${pkg.why}`), pkg.name);
    });

    it('a system without apt-get gets the same list of packages and reasons, and no apt command', () => {
      const plan = setup.planSystemPackages(missing, { hasApt: false, isRoot: true, passwordlessSudo: false });
      assert.equal(plan.kind, 'manual');
      if (plan.kind !== 'manual') return;
      assert.match(plan.message, /no apt-get/);
      assert.doesNotMatch(plan.message, /apt-get install/);
      for (const pkg of missing) assert.ok(plan.message.includes(`${pkg.name}: ${pkg.why}`), pkg.name);
    });
  });
});
