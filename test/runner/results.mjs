// Reads the results file the integration entry (test/integration/index.ts) appends to, one
// JSON record per line, and prints the closing summary both runners share.
import fs from 'node:fs';

export function readResults(file) {
  const records = fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
  return {
    started: records.some((record) => record.type === 'start'),
    ended: records.some((record) => record.type === 'end'),
    tests: records.filter((record) => record.type === 'test'),
    // Each phase (before and after a window reload) says how many tests it holds.
    planned: records.filter((record) => record.type === 'plan').reduce((sum, record) => sum + (Number(record.total) || 0), 0),
  };
}

/**
 * Prints the failures again, the skipped count, and the closing line `N passed, N failed`.
 * A runner error (timeout, no test ran, a suite exit code without a recorded failure) counts
 * as one failure, so the closing line always agrees with the exit status.
 */
export function printSummary({ started, ended, tests, planned = 0 }, { runnerErrors = [], suiteExitCode, print }) {
  const errors = [...runnerErrors];
  const passed = tests.filter((test) => test.state === 'passed').length;
  const failures = tests.filter((test) => test.state === 'failed');
  const skipped = tests.filter((test) => test.state === 'skipped').length;
  if (!errors.length) {
    if (!started) errors.push('the integration entry never started');
    else if (!ended) errors.push('the integration run stopped before it ended');
    else if (passed + failures.length === 0) errors.push('no integration test ran');
    else if (failures.length === 0 && passed + skipped < planned) {
      errors.push(`the run ended after ${passed + skipped} of its ${planned} tests without a recorded failure`);
    } else if (suiteExitCode !== undefined && suiteExitCode !== 0 && failures.length === 0) {
      errors.push(`the suite exited with code ${suiteExitCode} without a recorded failure`);
    }
  }
  print('');
  for (const failure of failures) print(`FAIL ${failure.title}: ${(failure.error ?? '').split('\n')[0]}`);
  for (const error of errors) print(`FAIL (runner) ${error}`);
  if (skipped) print(`${skipped} skipped`);
  const failed = failures.length + errors.length;
  print(`${passed} passed, ${failed} failed`);
  return { passed, failed };
}
