#!/usr/bin/env node
// `npm start`: serves VS Code (code-server) with Arbor installed on the demo workspace, at
// http://127.0.0.1:8080 (ARBOR_PORT overrides; a free port is used when that one is taken).
// Installs what is missing first (scripts/setup.cjs: Debian packages, node_modules, code-server),
// builds a fresh VSIX and installs it into a start-only extensions folder, so what you see is
// exactly what the package ships.
// Runs until Ctrl+C, then stops code-server. Needs no API key.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import setup from './setup.cjs';
import { ROOT, codeServerCli, freePort, startCodeServer, writeUserSettings } from './lib/codeServer.mjs';

const STATE = path.join(ROOT, '.vscode-test/start');
const dirs = {
  userData: path.join(STATE, 'user-data'), // kept between starts: your layout and settings
  extensions: path.join(STATE, 'extensions'), // rebuilt on every start
  xdg: path.join(STATE, 'xdg'),
};
const vsix = path.join(STATE, 'arbor.vsix');
const workspace = path.join(ROOT, 'demo');
const xdgEnv = { XDG_CONFIG_HOME: dirs.xdg, XDG_DATA_HOME: dirs.xdg };

function step(title, command, args) {
  console.log(`\n> ${title}`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`npm start: "${title}" failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}

try {
  setup.ensureReady('start');
} catch (error) {
  console.error(`\nnpm start: ${error instanceof setup.SetupError ? error.message : error}`);
  process.exit(1);
}
fs.mkdirSync(STATE, { recursive: true });
step('Building and packaging Arbor', 'npm', ['run', '--silent', 'package', '--', '--out', vsix]);

console.log('\n> Installing the fresh VSIX into code-server');
fs.rmSync(dirs.extensions, { recursive: true, force: true });
codeServerCli(['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--install-extension', vsix], xdgEnv);

if (!fs.existsSync(path.join(dirs.userData, 'User/settings.json'))) {
  writeUserSettings(dirs.userData, { 'workbench.startupEditor': 'readme' });
}

const preferred = Number(process.env.ARBOR_PORT ?? 8080);
const port = await freePort(preferred);
if (port !== preferred) console.log(`\nPort ${preferred} is taken; using ${port}.`);

const server = await startCodeServer({
  port,
  userDataDir: dirs.userData,
  extensionsDir: dirs.extensions,
  workspace,
  logFile: path.join(STATE, 'code-server.log'),
  env: xdgEnv,
});

console.log(`
Arbor is running in VS Code (code-server) on the demo workspace:

    ${server.url}/?folder=${workspace}

Open it in your browser, then click the tree icon in the activity bar.
Server log: ${path.relative(ROOT, path.join(STATE, 'code-server.log'))}. Press Ctrl+C to stop.`);

const reason = await Promise.race([
  new Promise((resolve) => process.once('SIGINT', () => resolve('stopping'))),
  new Promise((resolve) => process.once('SIGTERM', () => resolve('stopping'))),
  server.exited.then((code) => `code-server exited (${code})`),
]);
console.log(`\n${reason}`);
await server.stop();
process.exit(reason === 'stopping' ? 0 : 1);
