import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

interface Results { started: boolean; ended: boolean; tests: unknown[]; planned: number }
interface ResultsModule {
  readResults(file: string): Results;
  printSummary(results: Results, options: { runnerErrors?: string[]; suiteExitCode?: number; print: (line: string) => void }): { passed: number; failed: number };
}

/** The integration runners' closing summary decides the exit status of `npm test`. */
describe('integration results summary', function () {
  let results: ResultsModule;
  let dir: string;
  before(async function () {
    results = (await import(path.join(__dirname, '..', '..', 'runner', 'results.mjs'))) as ResultsModule;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-results-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  function summarise(records: object[]): { passed: number; failed: number; lines: string[] } {
    const file = path.join(dir, `results-${Math.random().toString(36).slice(2)}.jsonl`);
    fs.writeFileSync(file, records.map((record) => JSON.stringify(record)).join('\n') + '\n');
    const lines: string[] = [];
    return { ...results.printSummary(results.readResults(file), { suiteExitCode: 0, print: (line) => lines.push(line) }), lines };
  }
  const passedTest = (title: string) => ({ type: 'test', state: 'passed', title });

  it('a run that ends after fewer tests than it planned fails, even with no failure recorded', function () {
    const outcome = summarise([{ type: 'start' }, { type: 'plan', phase: 'before', total: 3 }, passedTest('a'), { type: 'end', passed: 1, failed: 0, skipped: 0 }]);
    assert.strictEqual(outcome.failed, 1);
    assert.ok(outcome.lines.some((line) => line.includes('ended after 1 of its 3 tests')), outcome.lines.join('\n'));
  });

  it('plans of both phases of a window reload add up', function () {
    const outcome = summarise([
      { type: 'start' }, { type: 'plan', phase: 'before', total: 2 }, passedTest('a'), passedTest('b'), { type: 'reload' },
      { type: 'start' }, { type: 'plan', phase: 'after', total: 1 }, passedTest('c'), { type: 'end', passed: 1, failed: 0, skipped: 0 },
    ]);
    assert.deepStrictEqual([outcome.passed, outcome.failed], [3, 0]);
  });

  it('a run that carried out its whole plan passes', function () {
    const outcome = summarise([{ type: 'start' }, { type: 'plan', total: 2 }, passedTest('a'), { type: 'test', state: 'skipped', title: 'b' }, { type: 'end' }]);
    assert.deepStrictEqual([outcome.passed, outcome.failed], [1, 0]);
  });
});
