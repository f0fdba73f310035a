#!/usr/bin/env node
// Runs every integration suite (the bundles esbuild.mjs lists in out/test/integration/suites.json)
// inside the real extension host of the pinned code-server, in one workbench session opened by
// headless Debian Chromium.
//
// The workbench URL's `payload` names Arbor as the extension under development and the mocha
// entry (index.js) as its tests, the same way @vscode/test-electron starts a desktop run. The
// page reports the host's console through window.codeAutomationLog and the end of the run
// through window.codeAutomationExit. Tests ask for real browser actions (clicks, keys,
// screenshots) over a loopback HTTP bridge (see test/integration/ui.ts).
//
// A suite may ask for a real window reload (test/integration/windowReload.ts): the first
// extension host records 'reload' after its last suite and reloads the page; the host the reload
// starts runs the suites that asked once more, with the state they left in ARBOR_TEST_PHASE_DIR,
// and ends the run. Results of both phases count; a run reloads at most once. A suite after the
// reload may ask for a crash: that host kills itself, the runner reloads the page as a person would
// when code-server cannot reconnect, and the next host runs the suites that asked.
//
// Output: the host's console (one PASS/FAIL/SKIP line per test), then `N passed, N failed`.
// Exit status: 0 when every test passed; 1 on a failure, a timeout, or when no test ran.
// On failure, logs and screenshots stay in test-results/integration-<time>/.
//
// Environment: ARBOR_IT_TIMEOUT_MS (whole run, default 15 min), ARBOR_IT_START_TIMEOUT_MS
// (until the first suite starts, default 4 min), CHROMIUM_PATH.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import util from 'node:util';
import {
  ROOT,
  ensureCodeServer,
  launchChromium,
  remoteUri,
  sleep,
  startCodeServer,
  tail,
  writeUserSettings,
} from '../../scripts/lib/codeServer.mjs';
import { readResults, printSummary } from './results.mjs';

const RUN_TIMEOUT_MS = Number(process.env.ARBOR_IT_TIMEOUT_MS ?? 15 * 60_000);
const START_TIMEOUT_MS = Number(process.env.ARBOR_IT_START_TIMEOUT_MS ?? 4 * 60_000);
const TESTS_DIR = path.join(ROOT, 'out/test/integration');
// Test extensions installed beside Arbor: one contributes a tool to vscode.lm.tools, the other
// provides a chat model through VS Code's proposed provider API, which only it may use.
const TEST_EXTENSIONS = ['test/fixtures/tool-extension', 'test/fixtures/chat-model-extension'].map((folder) => path.join(ROOT, folder));
const PROPOSED_API_EXTENSION = 'arbor-test.arbor-test-chat-model';
const RESULTS_DIR = path.join(ROOT, 'test-results');
const SCREENSHOTS_DIR = path.join(RESULTS_DIR, 'screenshots');

const startedAt = Date.now();
const say = (...args) => console.log(`[runner +${((Date.now() - startedAt) / 1000).toFixed(1)}s]`, ...args);

// A short path under the system temp dir: the extension host puts IPC sockets in TMPDIR,
// and socket paths must stay under about 100 characters.
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-it-'));
const dirs = Object.fromEntries(
  ['user-data', 'extensions', 'workspace', 'tmp', 'xdg-config', 'xdg-data', 'xdg-cache', 'phase'].map((name) => [name, path.join(runDir, name)]),
);
Object.values(dirs).forEach((dir) => fs.mkdirSync(dir, { recursive: true }));
const files = {
  results: path.join(runDir, 'results.jsonl'),
  codeServerLog: path.join(runDir, 'code-server.log'),
  browserLog: path.join(runDir, 'browser-console.log'),
  hostLog: path.join(runDir, 'workbench-automation.log'),
};

let server;
let browser;
let page;
let bridge;
const runnerErrors = [];
let suiteExitCode;

let interrupt;
const interrupted = new Promise((resolve) => (interrupt = resolve));
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => interrupt(signal));

try {
  buildIfMissing();
  ensureCodeServer();
  bridge = await startBridge();
  writeUserSettings(dirs['user-data']);
  installTestExtensions(dirs.extensions);
  fs.writeFileSync(path.join(dirs.workspace, 'README.md'), '# Arbor integration workspace\n');

  // Port 0: code-server binds a free port itself, so concurrent runs never share a server.
  say(`starting code-server (run folder ${runDir})`);
  server = await startCodeServer({
    port: 0,
    userDataDir: dirs['user-data'],
    extensionsDir: dirs.extensions,
    workspace: dirs.workspace,
    logFile: files.codeServerLog,
    // code-server 4.100 lets every extension use proposed APIs; the flag keeps the intent explicit
    // (and is what a VS Code build that checks needs): the chat model extension, never Arbor.
    extraArgs: ['--enable-proposed-api', PROPOSED_API_EXTENSION],
    env: {
      TMPDIR: dirs.tmp,
      XDG_CONFIG_HOME: dirs['xdg-config'],
      XDG_DATA_HOME: dirs['xdg-data'],
      XDG_CACHE_HOME: dirs['xdg-cache'],
      ARBOR_TEST_RESULTS: files.results,
      ARBOR_TEST_UI_URL: bridge.url,
      // Arbor exports its test handles (api.testing) only when this is set.
      ARBOR_TESTING: '1',
      // Outlives a window reload: which phase the extension host runs, and the suites' state.
      ARBOR_TEST_PHASE_DIR: dirs.phase,
    },
  });

  const port = server.port;
  say(`code-server serves ${server.url}`);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  // Bridge actions wait this long for their target; loading the workbench has its own timeout.
  page.setDefaultTimeout(15_000);
  const browserLog = (line) => fs.appendFileSync(files.browserLog, line + '\n');
  page.on('console', (message) => browserLog(`[${message.type()}] ${message.text()}`));
  page.on('pageerror', (error) => browserLog(`[pageerror] ${error.stack ?? error}`));

  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  // The workbench's own start-up chatter goes to the log file only; once the integration entry
  // announces itself, everything is printed too (the suites' output and what happens meanwhile).
  let relaying = false;
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    const text = util.format(...(Array.isArray(args) ? args : [args]));
    const line = type === 'error' ? `[host:error] ${text}` : text;
    fs.appendFileSync(files.hostLog, line + '\n');
    relaying ||= text.startsWith('Extension host: ');
    if (relaying) console.log(line);
    // The reloaded workbench's start-up chatter goes to the log file only, as the first one's did.
    if (text.startsWith('Reloading the window') || text.startsWith('Killing the extension host')) relaying = false;
  });
  // The workbench ends a test run when its extension host exits. When a suite asked for that exit
  // (a SIGKILL, see windowReload.ts), the page is reloaded instead, as a person does when
  // code-server says it cannot reconnect: the next extension host runs the suites that asked.
  let reloadedAfterCrash = false;
  await page.exposeFunction('codeAutomationExit', (code) => {
    if (!reloadedAfterCrash && crashAwaitsRestart()) {
      reloadedAfterCrash = true;
      say('the extension host was killed, as a suite asked: reloading the page');
      page.reload({ waitUntil: 'domcontentloaded', timeout: START_TIMEOUT_MS }).catch((error) => runnerErrors.push(`the page did not reload after the crash: ${error.message}`));
      return;
    }
    finish(code);
  });

  const payload = JSON.stringify([
    ['extensionDevelopmentPath', remoteUri(port, ROOT)],
    ['extensionTestsPath', remoteUri(port, path.join(TESTS_DIR, 'index.js'))],
    ['skipWelcome', 'true'],
    ['skipReleaseNotes', 'true'],
  ]);
  await page.goto(`${server.url}/?folder=${encodeURIComponent(dirs.workspace)}&payload=${encodeURIComponent(payload)}`, {
    waitUntil: 'domcontentloaded',
    timeout: START_TIMEOUT_MS,
  });
  say('workbench loading; the suites start inside its extension host');

  const outcome = await Promise.race([
    finished.then((code) => ({ code })),
    suitesStalled(START_TIMEOUT_MS).then((error) => ({ error })),
    sleep(RUN_TIMEOUT_MS).then(() => ({ error: `the run did not finish within ${RUN_TIMEOUT_MS / 1000}s` })),
    interrupted.then((signal) => ({ error: `interrupted by ${signal}` })),
  ]);
  if (outcome.error) runnerErrors.push(outcome.error);
  else suiteExitCode = outcome.code;
} catch (error) {
  runnerErrors.push(error instanceof Error ? error.message : String(error));
}

const results = readResults(files.results);
if (!results.started && fs.existsSync(files.hostLog)) {
  // The suites' output was never relayed; what the workbench said last usually explains why.
  console.log(`\nWorkbench output before the failure (last lines of ${path.basename(files.hostLog)}):`);
  console.log(tail(files.hostLog, 25));
}
const { failed } = printSummary(results, { runnerErrors, suiteExitCode, print: console.log });
if (failed > 0) await keepArtifacts();
await cleanUp();
process.exit(failed > 0 ? 1 : 0);

/**
 * Installs the test extensions (TEST_EXTENSIONS) as any extension is installed: each folder in
 * the extensions folder, listed in extensions.json. The workbench route loads only one extension
 * under development, Arbor.
 */
function installTestExtensions(extensionsDir) {
  const entries = TEST_EXTENSIONS.map((source) => {
    const manifest = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8'));
    const id = `${manifest.publisher}.${manifest.name}`;
    const folder = `${id}-${manifest.version}`;
    fs.cpSync(source, path.join(extensionsDir, folder), { recursive: true });
    return {
      identifier: { id },
      version: manifest.version,
      location: { $mid: 1, path: path.join(extensionsDir, folder), scheme: 'file' },
      relativeLocation: folder,
    };
  });
  fs.writeFileSync(path.join(extensionsDir, 'extensions.json'), JSON.stringify(entries));
}

function buildIfMissing() {
  const outputs = ['dist/extension.js', 'dist/arbor.js', 'out/test/integration/index.js', 'out/test/integration/suites.json'];
  if (outputs.every((output) => fs.existsSync(path.join(ROOT, output)))) return;
  say('building (dist/ or out/ is missing)');
  const build = spawnSync(process.execPath, [path.join(ROOT, 'esbuild.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('the build failed');
}

/**
 * Resolves with the reason when the suites stall: none started within `ms` of loading the
 * workbench, none started again within `ms` of a window reload or an extension host crash, or
 * either happened a second time (a run reloads once and crashes once; more would be a loop).
 */
async function suitesStalled(ms) {
  let waitingSince = Date.now();
  let reloadsSeen = 0;
  for (;;) {
    await sleep(1_000);
    const records = fs.existsSync(files.results)
      ? fs.readFileSync(files.results, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
      : [];
    // Each restart of the extension host (a requested reload, then a requested crash) happens at most once.
    const restarts = records.filter((record) => record.type === 'reload' || record.type === 'crash');
    for (const type of ['reload', 'crash']) {
      const count = restarts.filter((record) => record.type === type).length;
      if (count > 1) return `the extension host was restarted by a ${type} ${count} times; a run does each at most once`;
    }
    if (restarts.length > reloadsSeen) {
      reloadsSeen = restarts.length;
      waitingSince = Date.now();
      const last = restarts[restarts.length - 1];
      say(`${last.type === 'crash' ? 'extension host crash' : 'window reload'} requested by ${last.suites.join(', ')}`);
    }
    const lastRestart = records.findLastIndex((record) => record.type === 'reload' || record.type === 'crash');
    if (records.slice(lastRestart + 1).some((record) => record.type === 'start')) continue;
    if (Date.now() - waitingSince > ms) {
      return reloadsSeen ? `no suite started within ${ms / 1000}s of the extension host's restart` : `no suite started within ${ms / 1000}s of loading the workbench`;
    }
  }
}

/** Whether the last record is a requested crash that no extension host has started after yet. */
function crashAwaitsRestart() {
  if (!fs.existsSync(files.results)) return false;
  const records = fs.readFileSync(files.results, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const crash = records.findLastIndex((record) => record.type === 'crash');
  return crash >= 0 && !records.slice(crash + 1).some((record) => record.type === 'start' || record.type === 'end');
}

/** The loopback HTTP server that performs the browser actions tests ask for (one at a time). */
async function startBridge() {
  const row = (rowText) => page.locator('.monaco-list-row').filter({ hasText: rowText, visible: true }).first();
  /** What the page shows where a row should be: for an error that says why a row could not be used. */
  const describeRow = async (target, rowText) => {
    const matching = await page.locator('.monaco-list-row').filter({ hasText: rowText }).count();
    const box = await target.boundingBox({ timeout: 1_000 }).catch(() => null);
    if (!box) return `${matching} rows contain "${rowText}", none of them visible`;
    const atCentre = await page.evaluate(({ x, y }) => {
      const element = globalThis.document.elementFromPoint(x, y);
      return element ? `${element.tagName.toLowerCase()}.${[...element.classList].join('.')} "${(element.textContent ?? '').slice(0, 60)}"` : 'nothing';
    }, { x: box.x + box.width / 2, y: box.y + box.height / 2 });
    return `${matching} rows contain "${rowText}"; the first visible one is at ${Math.round(box.x)},${Math.round(box.y)} (${Math.round(box.width)}x${Math.round(box.height)}), where the page has ${atCentre}`;
  };
  // VS Code nests a webview's page two frames deep: the workbench's `iframe.webview.ready` hosts
  // VS Code's own frame, whose `iframe#active-frame` holds the extension's page.
  const webviewPage = (outer) => outer.contentFrame().locator('iframe#active-frame').contentFrame();
  /** The visible webview (the first one containing `within`, when given; else the only one). */
  const webview = async (within) => {
    const outers = page.locator('iframe.webview.ready').filter({ visible: true });
    await outers.first().waitFor({ state: 'visible' });
    const count = await outers.count();
    if (!within) {
      if (count > 1) throw new Error(`${count} webviews are visible; say which with the text one of them contains`);
      return webviewPage(outers.first());
    }
    const deadline = Date.now() + 20_000;
    for (;;) {
      for (let i = 0; i < (await outers.count()); i++) {
        const candidate = webviewPage(outers.nth(i));
        if ((await candidate.getByText(within).count()) > 0) return candidate;
      }
      if (Date.now() > deadline) throw new Error(`no visible webview contains ${JSON.stringify(within)}`);
      await sleep(100);
    }
  };
  /** A CSS selector when it starts with # . or [, else the button with exactly that name. */
  const webviewTarget = (frame, target) => (/^[#.[]/.test(target) ? frame.locator(target) : frame.getByRole('button', { name: target, exact: true }));
  // A person's keystrokes go to the prompt on screen. When a quick pick or input box is open but
  // the page's focus sits elsewhere (a webview, an editor an earlier suite left open), put it
  // back in the prompt's input first, as a click on it would.
  const focusOpenPrompt = async () => {
    const input = page.locator('.quick-input-widget:visible .quick-input-box input').first();
    if ((await input.count()) === 0) return;
    const focused = await input.evaluate((el) => el === el.ownerDocument.activeElement).catch(() => true);
    if (!focused) await input.focus();
  };
  const actions = {
    async screenshot({ name }) {
      const file = path.join(SCREENSHOTS_DIR, `${String(name).replace(/[^\w.-]+/g, '-')}.png`);
      fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });
      await page.screenshot({ path: file });
      return path.relative(ROOT, file);
    },
    async clickRow({ rowText }) {
      await row(rowText).click();
    },
    async clickInlineAction({ rowText, actionLabel }) {
      // A row's inline actions show while the pointer is over it, or while it is selected or
      // focused. A row repainted under the pointer (its agent's turn ending) hides them until the
      // pointer moves again, so hover afresh before each try, as a person would; a hover the
      // page refuses (a tooltip or a repaint in the way) still leaves the action to click on a
      // row the test selected.
      // Of the rows with that text (an agent's row, and a Waiting for you row naming it), the one
      // that offers the action: each row's inline actions are in the page, hidden until shown.
      const actionSelector = `.action-label[aria-label=${JSON.stringify(actionLabel)}]`;
      const withAction = page.locator('.monaco-list-row').filter({ hasText: rowText, visible: true }).filter({ has: page.locator(actionSelector) }).first();
      const deadline = Date.now() + 20_000;
      let lastError;
      for (;;) {
        const target = (await withAction.count()) > 0 ? withAction : row(rowText);
        const action = target.locator(actionSelector);
        try {
          await target.hover({ timeout: 4_000 }).catch((error) => (lastError = error));
          await action.click({ timeout: 3_000 });
          return;
        } catch (error) {
          lastError = error;
          if (Date.now() > deadline) throw new Error(`${error.message.split('\n')[0]}; ${await describeRow(target, rowText)}`, { cause: lastError });
          // Escape closes a tooltip in the way, but it would also decline an agent's open
          // question or approval: never while a prompt is on screen.
          if ((await page.locator('.quick-input-widget').filter({ visible: true }).count()) === 0) await page.keyboard.press('Escape').catch(() => undefined);
          await page.mouse.move(0, 0);
        }
      }
    },
    async rowLabel({ rowText }) {
      // What a screen reader says for the row: for a tree row, its label and description.
      const target = row(rowText);
      if ((await target.count()) === 0) return null;
      return target.getAttribute('aria-label', { timeout: 5_000 }).catch(() => null);
    },
    async pressKeys({ keys }) {
      await focusOpenPrompt();
      for (const key of keys) await page.keyboard.press(key);
    },
    async typeText({ text }) {
      await focusOpenPrompt();
      await page.keyboard.type(text);
    },
    async webviewClick({ target, within }) {
      await webviewTarget(await webview(within), target).first().click();
    },
    async webviewType({ selector, text, within }) {
      const field = (await webview(within)).locator(selector).first();
      await field.click();
      await field.pressSequentially(text);
    },
    async webviewIsEnabled({ target, within }) {
      return webviewTarget(await webview(within), target).first().isEnabled();
    },
    async webviewHasText({ text, timeoutMs, within }) {
      try {
        const frame = await webview(within);
        await frame.getByText(text).filter({ visible: true }).first().waitFor({ state: 'visible', timeout: timeoutMs });
        return true;
      } catch (error) {
        if (error?.name === 'TimeoutError') return false;
        throw error;
      }
    },
    async clickPromptButton({ buttonLabel }) {
      // A button in the title bar of the quick pick or input box on screen (its tooltip names it).
      await page.locator('.quick-input-widget').filter({ visible: true }).first().getByRole('button', { name: buttonLabel }).first().click();
    },
    async clickStatusBarItem({ text }) {
      await page.locator('.statusbar-item').filter({ hasText: text, visible: true }).first().click();
    },
    async clickNotificationButton({ messageText, buttonLabel }) {
      const toast = page.locator('.notification-toast').filter({ hasText: messageText, visible: true }).first();
      await toast.locator('.monaco-button').filter({ hasText: buttonLabel, visible: true }).first().click();
    },
    async pageHasText({ text, timeoutMs }) {
      try {
        await page.getByText(text).filter({ visible: true }).first().waitFor({ state: 'visible', timeout: timeoutMs });
        return true;
      } catch (error) {
        if (error?.name === 'TimeoutError') return false;
        throw error;
      }
    },
  };

  let queue = Promise.resolve();
  const httpServer = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      queue = queue.then(async () => {
        let reply;
        try {
          const { op, args } = JSON.parse(body);
          if (!Object.hasOwn(actions, op)) throw new Error(`unknown UI action '${op}'`);
          if (!page) throw new Error('the workbench page is not open');
          reply = { ok: true, value: await actions[op](args ?? {}) };
        } catch (error) {
          // The first line says what failed; Playwright's call log after it says why, in a few lines.
          reply = { ok: false, error: error instanceof Error ? error.message.split('\n').slice(0, 8).join('\n') : String(error) };
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      });
    });
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${httpServer.address().port}/`, close: () => httpServer.close() };
}

/** Keeps what explains a failure: logs, the results, and a screenshot of the page as it is now. */
async function keepArtifacts() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = path.join(RESULTS_DIR, `integration-${stamp}`);
  fs.mkdirSync(dir, { recursive: true });
  if (page) {
    await page.screenshot({ path: path.join(dir, 'page-at-end.png'), timeout: 10_000 }).catch(() => {});
  }
  for (const file of Object.values(files)) {
    if (fs.existsSync(file)) fs.copyFileSync(file, path.join(dir, path.basename(file)));
  }
  const hostLogs = path.join(dirs['user-data'], 'logs');
  if (fs.existsSync(hostLogs)) fs.cpSync(hostLogs, path.join(dir, 'workbench-logs'), { recursive: true });
  console.log(`Logs and screenshots: ${path.relative(process.cwd(), dir) || dir} (and ${path.relative(process.cwd(), SCREENSHOTS_DIR)})`);
}

async function cleanUp() {
  await browser?.close().catch(() => {});
  await server?.stop();
  bridge?.close();
  fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
}
