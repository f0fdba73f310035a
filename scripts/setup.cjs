// What `npm start` and `npm test` need on this machine before they can run, and how to get it:
// Debian packages (installed with apt-get when we may, otherwise the exact command to run),
// the npm dependencies (npm ci when node_modules is missing or older than package-lock.json)
// and code-server (scripts/install-code-server.sh, cached in .vscode-test/).
//
// CommonJS with no dependencies: it runs before node_modules exists, and the unit tests load
// it with plain require() to check the decisions with a faked system.
'use strict';
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * The Debian packages, why each is needed, and for which command. `onlyToInstallCodeServer`:
 * needed only while code-server is installed for the first time (its native module builds
 * against libkrb5, and its ripgrep comes from Debian's rg instead of a download).
 */
const PACKAGES = [
  { name: 'chromium', why: 'the headless browser that drives VS Code in the integration tests', purposes: ['test'] },
  { name: 'openssh-server', why: 'the sshd on 127.0.0.1 that the tests reach an external agent through, as on another machine', purposes: ['test'] },
  {
    name: 'libkrb5-dev',
    why: "code-server's kerberos module is built against it when code-server is installed",
    purposes: ['test', 'start'],
    onlyToInstallCodeServer: true,
  },
  {
    name: 'ripgrep',
    why: "VS Code's search needs rg; code-server's installer would otherwise download it",
    purposes: ['test', 'start'],
    onlyToInstallCodeServer: true,
  },
  { name: 'bubblewrap', why: "the sandbox agents' commands run in (bwrap); its tests run in CI, not skipped", purposes: ['test'] },
  { name: 'socat', why: "the sandboxed command's only way to the network filter (a Unix socket bridged to its loopback)", purposes: ['test'] },
];

/**
 * The Debian packages a purpose ('test' or 'start') still needs.
 * `probe`: { isInstalled(name), chromiumPresent, codeServerInstalled }.
 */
function missingPackages(purpose, probe) {
  return PACKAGES.filter((pkg) => {
    if (!pkg.purposes.includes(purpose)) return false;
    if (pkg.onlyToInstallCodeServer && probe.codeServerInstalled) return false;
    if (pkg.name === 'chromium' && probe.chromiumPresent) return false;
    return !probe.isInstalled(pkg.name);
  });
}

/**
 * Decides how to get the missing packages. `system`: { hasApt, isRoot, passwordlessSudo }.
 * Returns one of:
 *   { kind: 'ready' }                                    nothing is missing
 *   { kind: 'install', commands: string[][], packages }  run these (apt-get, with sudo if needed)
 *   { kind: 'manual', message }                          stop before anything else and say this
 */
function planSystemPackages(missing, system) {
  if (missing.length === 0) return { kind: 'ready' };
  const names = missing.map((pkg) => pkg.name);
  const reasons = missing.map((pkg) => `  ${pkg.name}: ${pkg.why}`).join('\n');
  if (!system.hasApt) {
    return {
      kind: 'manual',
      message:
        `Arbor's set-up installs Debian packages with apt-get, and this system has no apt-get.\n` +
        `Install these with your system's package manager, then run the command again:\n${reasons}\n` +
        `(Set CHROMIUM_PATH if your Chromium is not at /usr/bin/chromium.)`,
    };
  }
  const sudo = system.isRoot ? [] : system.passwordlessSudo ? ['sudo', '-n'] : undefined;
  const install = ['apt-get', 'install', '-y', '-q', ...names];
  if (!sudo) {
    return {
      kind: 'manual',
      message:
        `Arbor needs these Debian packages, and this user cannot install them (not root, no password-less sudo):\n` +
        `${reasons}\nRun this once, then the command again:\n\n  sudo apt-get update && sudo ${install.join(' ')}\n`,
    };
  }
  return {
    kind: 'install',
    packages: names,
    reasons,
    commands: [
      [...sudo, 'apt-get', 'update', '-q'],
      [...sudo, ...install],
    ],
  };
}

/** The real system, as planSystemPackages and missingPackages see it. */
function probeSystem() {
  const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
  const hasApt = has('apt-get') && has('dpkg-query');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return {
    hasApt,
    isRoot,
    passwordlessSudo: !isRoot && has('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0,
    chromiumPresent: fs.existsSync(CHROMIUM),
    codeServerInstalled: codeServerInstalled(),
    isInstalled: (name) =>
      hasApt &&
      /install ok installed/.test(spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' }).stdout || ''),
  };
}

const CODE_SERVER_VERSION = '4.100.3';
const CODE_SERVER_HOME = process.env.ARBOR_CODE_SERVER_DIR || path.join(ROOT, '.vscode-test/code-server');

function codeServerInstalled() {
  return (
    fs.existsSync(path.join(CODE_SERVER_HOME, 'node_modules/code-server/out/node/entry.js')) &&
    fs.existsSync(path.join(CODE_SERVER_HOME, `.installed-${CODE_SERVER_VERSION}`))
  );
}

/** Where the hash of the lock file that node_modules was installed from is kept. */
const INSTALLED_LOCK = path.join(ROOT, 'node_modules/.arbor-installed-lock');

function lockHash(root = ROOT) {
  return crypto.createHash('sha256').update(fs.readFileSync(path.join(root, 'package-lock.json'))).digest('hex');
}

/** True when node_modules is missing or was installed from another package-lock.json. */
function npmDependenciesStale() {
  try {
    return fs.readFileSync(INSTALLED_LOCK, 'utf8').trim() !== lockHash();
  } catch {
    return true;
  }
}

function run(command, args, what, env = {}) {
  console.log(`\n> ${what}: ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', ...env },
  });
  if (result.status !== 0) {
    throw new SetupError(`${what} failed (${result.error ? result.error.message : `exit ${result.status ?? result.signal}`}).`);
  }
}

class SetupError extends Error {}

/**
 * Makes the machine ready for `purpose` ('test' or 'start'): Debian packages first (so a user
 * who must install them by hand is told before anything else happens), then npm dependencies,
 * then code-server. Quiet when everything is already there.
 */
function ensureReady(purpose, { log = console.log } = {}) {
  const system = probeSystem();
  const plan = planSystemPackages(missingPackages(purpose, system), system);
  if (plan.kind === 'manual') throw new SetupError(plan.message);
  if (plan.kind === 'install') {
    log(`\nInstalling Debian packages Arbor needs:\n${plan.reasons}`);
    for (const command of plan.commands) run(command[0], command.slice(1), 'Installing Debian packages');
  }
  if (npmDependenciesStale()) {
    const hash = lockHash();
    run('npm', ['ci', '--no-audit', '--no-fund'], 'Installing npm dependencies (node_modules is missing or older than package-lock.json)');
    fs.writeFileSync(INSTALLED_LOCK, `${hash}\n`);
  }
  ensureCodeServer();
}

/** Installs the pinned code-server into its own folder unless it is there already. */
function ensureCodeServer() {
  if (codeServerInstalled()) return;
  run('bash', [path.join(ROOT, 'scripts/install-code-server.sh'), CODE_SERVER_HOME], `Installing code-server ${CODE_SERVER_VERSION}`, {
    CODE_SERVER_VERSION,
  });
}

module.exports = {
  CODE_SERVER_VERSION,
  CODE_SERVER_HOME,
  PACKAGES,
  SetupError,
  ensureCodeServer,
  ensureReady,
  missingPackages,
  npmDependenciesStale,
  planSystemPackages,
};

if (require.main === module) {
  const purpose = process.argv[2];
  if (purpose !== 'test' && purpose !== 'start') {
    console.error('usage: node scripts/setup.cjs test|start');
    process.exit(2);
  }
  try {
    ensureReady(purpose);
  } catch (error) {
    console.error(`\n${error instanceof SetupError ? error.message : error}`);
    process.exit(1);
  }
}
