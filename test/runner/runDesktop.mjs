#!/usr/bin/env node
// Runs the same integration suites in desktop VS Code through @vscode/test-electron (it downloads
// VS Code, so this needs the internet or VSCODE_EXECUTABLE_PATH naming a local build). No browser
// drives this window, so tests that need the browser bridge skip themselves.
//
// Environment: VSCODE_VERSION (default: the latest stable), VSCODE_EXECUTABLE_PATH.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runTests, TestRunFailedError } from '@vscode/test-electron';
import { ROOT } from '../../scripts/lib/codeServer.mjs';
import { printSummary, readResults } from './results.mjs';

const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-desktop-'));
const workspace = path.join(runDir, 'workspace');
fs.mkdirSync(workspace);
const resultsFile = path.join(runDir, 'results.jsonl');

const runnerErrors = [];
let suiteExitCode = 0;
try {
  await runTests({
    version: process.env.VSCODE_VERSION,
    vscodeExecutablePath: process.env.VSCODE_EXECUTABLE_PATH,
    // Arbor, a tiny extension that contributes a tool to vscode.lm.tools, and one that provides a
    // chat model through the proposed provider API (allowed for that extension alone).
    extensionDevelopmentPath: [ROOT, path.join(ROOT, 'test/fixtures/tool-extension'), path.join(ROOT, 'test/fixtures/chat-model-extension')],
    extensionTestsPath: path.join(ROOT, 'out/test/integration/index.js'),
    extensionTestsEnv: { ARBOR_TEST_RESULTS: resultsFile, ARBOR_TESTING: '1' },
    launchArgs: [
      workspace,
      '--disable-extensions',
      '--disable-workspace-trust',
      '--skip-welcome',
      '--skip-release-notes',
      '--enable-proposed-api=arbor-test.arbor-test-chat-model',
      `--user-data-dir=${path.join(runDir, 'user-data')}`,
      `--extensions-dir=${path.join(runDir, 'extensions')}`,
    ],
  });
} catch (error) {
  if (error instanceof TestRunFailedError) suiteExitCode = error.code ?? 1;
  else runnerErrors.push(`could not run desktop VS Code: ${error instanceof Error ? error.message : String(error)}`);
}

const { failed } = printSummary(readResults(resultsFile), { runnerErrors, suiteExitCode, print: console.log });
fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
process.exit(failed > 0 ? 1 : 0);
