// Starting and stopping the pinned code-server (VS Code's server with a real Node extension
// host) and the headless Debian Chromium that opens its workbench. Shared by the integration
// runner (test/runner/runInHost.mjs), `npm start` and the screenshot script.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import setup from '../setup.cjs';

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
export const CODE_SERVER_VERSION = setup.CODE_SERVER_VERSION;
const CODE_SERVER_ENTRY = path.join(setup.CODE_SERVER_HOME, 'node_modules/code-server/out/node/entry.js');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Installs code-server on first use (cached in .vscode-test/). The Debian packages its install
 * needs are installed by scripts/setup.cjs, which `npm start` and `npm test` run first.
 */
export function ensureCodeServer() {
  setup.ensureCodeServer();
  return CODE_SERVER_ENTRY;
}

/** Runs code-server's own CLI once (e.g. --install-extension) and returns its output. */
export function codeServerCli(args, env = {}) {
  const result = spawnSync(process.execPath, [ensureCodeServer(), ...args], { encoding: 'utf8', env: { ...cleanEnv(), ...env } });
  if (result.status !== 0) throw new Error(`code-server ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** A free loopback port: `preferred` when it is free, otherwise one the OS picks. */
export async function freePort(preferred = 0) {
  const tryListen = (port) =>
    new Promise((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(undefined));
      server.listen(port, '127.0.0.1', () => {
        const { port: bound } = server.address();
        server.close(() => resolve(bound));
      });
    });
  return (preferred && (await tryListen(preferred))) || (await tryListen(0));
}

/** The environment without variables that would make code-server think it runs inside another VS Code. */
function cleanEnv() {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('VSCODE_') && key !== 'ELECTRON_RUN_AS_NODE'),
  );
}

/**
 * Starts code-server in its own process group on 127.0.0.1:port and waits until it serves.
 * With port 0 code-server binds a free port itself, so two runs on one machine can never race
 * for the same port. Readiness is read from this server's own log ("HTTP server listening on
 * <url>") before its health check: a health check alone could be answered by another run's
 * server on a port this one failed to bind.
 * `env` reaches the extension host (it inherits code-server's environment).
 * Returns { url, port, exited, stop() }: `exited` settles when the server exits on its own;
 * stop() ends the whole group (server and extension hosts).
 */
export async function startCodeServer({ port, userDataDir, extensionsDir, workspace, logFile, env = {}, startTimeoutMs = 120_000, extraArgs = [] }) {
  const entry = ensureCodeServer();
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  const log = fs.openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      entry,
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--user-data-dir', userDataDir,
      '--extensions-dir', extensionsDir,
      ...extraArgs,
      workspace,
    ],
    { detached: true, stdio: ['ignore', log, log], env: { ...cleanEnv(), ...env } },
  );
  fs.closeSync(log);
  let exitCode;
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve((exitCode = code ?? signal))));
  child.once('error', (error) => fs.appendFileSync(logFile, `spawn failed: ${error}\n`));

  const stop = async () => {
    if (exitCode !== undefined) return;
    const signalGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        /* the group is already gone */
      }
    };
    signalGroup('SIGTERM');
    const stopped = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
    // The server can exit before its extension host; make sure nothing of the group survives.
    signalGroup('SIGKILL');
    if (!stopped) await Promise.race([exited, sleep(2_000)]);
  };

  const deadline = Date.now() + startTimeoutMs;
  let url;
  for (;;) {
    if (exitCode !== undefined) {
      throw new Error(`code-server exited (${exitCode}) before serving; its log:\n${tail(logFile)}`);
    }
    url ??= listeningUrl(logFile, port);
    try {
      if (url && (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok) break;
    } catch {
      /* not serving yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not serve ${url ?? `127.0.0.1:${port}`} within ${startTimeoutMs / 1000}s; its log:\n${tail(logFile)}`);
    }
    await sleep(250);
  }
  return { url, port: Number(new URL(url).port), exited, stop };
}

/** The address this server's own log says it listens on (the asked port, unless it was 0). */
function listeningUrl(logFile, port) {
  let text;
  try {
    text = fs.readFileSync(logFile, 'utf8');
  } catch {
    return undefined;
  }
  const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:(\d+))\/?/.exec(text);
  if (!m || (port !== 0 && Number(m[2]) !== port)) return undefined;
  return m[1];
}

/** Headless Debian Chromium through playwright-core (never a downloaded browser). */
export async function launchChromium() {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}: run \`npm test\` (it installs what the tests need) or \`node scripts/setup.cjs test\`, or set CHROMIUM_PATH`);
  }
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** User settings for a clean, quiet workbench. */
export function writeUserSettings(userDataDir, extra = {}) {
  const settings = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'security.workspace.trust.enabled': false,
    ...extra,
  };
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User/settings.json'), JSON.stringify(settings, null, 2));
}

/** A vscode-remote URI for a path on the server (the form the workbench payload accepts). */
export function remoteUri(port, absolutePath) {
  return `vscode-remote://127.0.0.1:${port}${absolutePath}`;
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function tail(file, lines = 40) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
