// The entry point the extension host calls when it is started with --extensionTestsPath (both
// in code-server, through test/runner/runInHost.mjs, and on the desktop, through
// test/runner/runDesktop.mjs). It runs every suite of the build in one mocha run, prints one
// PASS/FAIL/SKIP line per test, and appends each result as a JSON line to ARBOR_TEST_RESULTS
// so the runner can count results even when the run is cut short.
//
// Suites run in the order of the build's list, except the LAST_SUITES, which tear Arbor down
// and so run after all the others.
//
// A run has a second phase when a suite asks for a real window reload (see windowReload.ts):
// after the last suite this host records 'reload' instead of 'end' and reloads the window; the
// extension host the reload starts runs this entry again, runs only the suites that asked,
// and records the 'end'. The second phase never reloads again; one of its suites may ask for a
// crash instead: that host records 'crash' and kills itself (SIGKILL), and the host the
// workbench starts after the crash runs only the suites that asked, then records the 'end'.
import * as fs from 'fs';
import * as path from 'path';
import Mocha from 'mocha';
import * as vscode from 'vscode';
import { SKIP_REASON, ui } from './ui';
import { windowReload, type Phase } from './windowReload';

/** One line of the results file. */
export type ResultRecord =
  | { type: 'start'; appName: string; version: string; phase: Phase }
  | { type: 'test'; state: 'passed' | 'failed' | 'skipped'; title: string; durationMs?: number; error?: string }
  | { type: 'reload'; passed: number; failed: number; skipped: number; suites: string[] }
  | { type: 'crash'; passed: number; failed: number; skipped: number; suites: string[] }
  | { type: 'plan'; phase: Phase; total: number }
  | { type: 'end'; passed: number; failed: number; skipped: number };

/**
 * Suites that leave questions on screen until the reload (they would stand in front of other
 * suites' prompts), leave agents live for the reload to put back (another suite's cleanup would
 * end them) or tear Arbor down (deactivation disposes every agent and command): they run after
 * every other suite of the phase, whatever their names, in this order.
 */
const LAST_SUITES = ['pendingQuestionReload.test.js', 'treeRestore.test.js', 'attentionReload.test.js', 'crashRestore.test.js', 'deactivation.test.js'];

/** The window gets this long to reload before the first phase reports that it did not. */
const RELOAD_TIMEOUT_MS = 60_000;

function recorder(): (record: ResultRecord) => void {
  const file = process.env.ARBOR_TEST_RESULTS;
  return (record) => {
    if (file) fs.appendFileSync(file, JSON.stringify(record) + '\n');
  };
}

/** The suites of the last build, listed by esbuild.mjs (stale bundles in the folder are ignored). */
function suiteFiles(): string[] {
  const list = path.join(__dirname, 'suites.json');
  if (!fs.existsSync(list)) throw new Error(`${list} is missing: build first (npm run build)`);
  const all = JSON.parse(fs.readFileSync(list, 'utf8')) as string[];
  return onlyRequested(all).map((file) => path.join(__dirname, file));
}

/**
 * ARBOR_IT_SUITES (comma-separated names such as `workflow,history`) runs only those suites, for a
 * quick run while working on one area; unset, every suite runs.
 */
function onlyRequested(files: string[]): string[] {
  const wanted = (process.env.ARBOR_IT_SUITES ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  if (wanted.length === 0) return files;
  return files.filter((file) => wanted.some((name) => path.basename(file).replace(/\.test\.js$/, '') === name.replace(/\.test\.(ts|js)$/, '')));
}

/** The suites in the order they run: every suite, then the last ones. */
function runOrder(files: string[]): string[] {
  const isLast = (file: string): boolean => LAST_SUITES.includes(path.basename(file));
  const lastRank = (file: string): number => LAST_SUITES.indexOf(path.basename(file));
  return [...files.filter((file) => !isLast(file)), ...files.filter(isLast).sort((a, b) => lastRank(a) - lastRank(b))];
}

function fileNameFor(title: string): string {
  return title.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').slice(0, 100);
}

export function run(): Promise<void> {
  const record = recorder();
  const phase = windowReload.phase();
  console.log(`Extension host: ${vscode.env.appName} ${vscode.version}${phase === 'after' ? ' (after the window reload)' : phase === 'crashed' ? ' (after the extension host was killed)' : ''}`);
  record({ type: 'start', appName: vscode.env.appName, version: vscode.version, phase });

  // Base collects statistics without printing; the listeners below print one line per test.
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 30_000, reporter: Mocha.reporters.Base });
  // The screenshot of a failure is asked for the moment the test fails, before its suite's
  // afterEach cleans up (ends agents, closes editors), so it shows what the test saw.
  let failureShot: Promise<string> | undefined;
  mocha.rootHooks({
    async afterEach() {
      if (!failureShot) return;
      const shot = await failureShot;
      failureShot = undefined;
      console.log(`  screenshot at failure: ${shot}`);
    },
  });
  const files =
    phase === 'after'
      ? windowReload.requestedSuites().map((file) => path.join(__dirname, file))
      : phase === 'crashed'
        ? windowReload.crashRequestedSuites().map((file) => path.join(__dirname, file))
        : suiteFiles();
  for (const file of runOrder(files)) mocha.addFile(file);

  return new Promise((resolve, reject) => {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const runner = mocha.run((failures) => {
      const reloadFor = phase === 'before' ? windowReload.requestedSuites() : [];
      if (reloadFor.length > 0) {
        // This promise never settles: the reload ends this extension host, and the next one
        // reports the end of the run. If the window does not reload, say so and end here.
        record({ type: 'reload', passed, failed, skipped, suites: reloadFor });
        windowReload.markReloading();
        console.log(`Reloading the window; after the reload ${reloadFor.join(', ')} run again.`);
        void vscode.commands.executeCommand('workbench.action.reloadWindow');
        setTimeout(() => {
          record({ type: 'test', state: 'failed', title: 'window reload', error: `the window did not reload within ${RELOAD_TIMEOUT_MS / 1000}s` });
          record({ type: 'end', passed, failed: failed + 1, skipped });
          reject(new Error('the window did not reload'));
        }, RELOAD_TIMEOUT_MS);
        return;
      }
      const crashFor = phase === 'after' ? windowReload.crashRequestedSuites() : [];
      if (crashFor.length > 0) {
        // As a crash: no deactivate, no last write. The workbench starts a new extension host.
        record({ type: 'crash', passed, failed, skipped, suites: crashFor });
        windowReload.markCrashing();
        console.log(`Killing the extension host (SIGKILL); after the crash ${crashFor.join(', ')} run again.`);
        // The lines above reach the runner through the workbench a moment later; a kill at once
        // would drop them (the results file has them either way).
        setTimeout(() => process.kill(process.pid, 'SIGKILL'), 500);
        return;
      }
      record({ type: 'end', passed, failed, skipped });
      if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
      else resolve();
    });
    // How many tests this phase holds: the runner checks that as many reported, so a run that
    // stops short (its extension host gone, a reload nobody asked for) cannot pass as green.
    record({ type: 'plan', phase, total: runner.total });
    runner.on(Mocha.Runner.constants.EVENT_TEST_PASS, (test) => {
      passed++;
      console.log(`PASS ${test.fullTitle()}`);
      record({ type: 'test', state: 'passed', title: test.fullTitle(), durationMs: test.duration });
    });
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test, err: Error) => {
      failed++;
      if (ui.available && !failureShot) failureShot = ui.screenshot(`failed-${fileNameFor(test.fullTitle())}`).catch((e: unknown) => String(e));
      const error = err?.stack ?? String(err);
      console.log(`FAIL ${test.fullTitle()}\n${error.replace(/^/gm, '    ')}`);
      record({ type: 'test', state: 'failed', title: test.fullTitle(), error });
    });
    runner.on(Mocha.Runner.constants.EVENT_TEST_PENDING, (test) => {
      skipped++;
      const reason: unknown = Reflect.get(test, SKIP_REASON);
      console.log(`SKIP ${test.fullTitle()}${typeof reason === 'string' && reason ? `: ${reason}` : ''}`);
      record({ type: 'test', state: 'skipped', title: test.fullTitle() });
    });
  });
}
