import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import * as z from 'zod';
import { once } from '../../../src/core';
import { askUserQuestionTool } from '../../../src/core/tools/askUserQuestion';
import { ToolCatalog } from '../../../src/core/tools/catalog';

const ROOT = path.resolve(__dirname, '../../..');

describe('once', () => {
  it('builds on first use, once, and gives the same value after', () => {
    let builds = 0;
    const schema = once(() => {
      builds++;
      return z.strictObject({ name: z.string().min(1) });
    });
    assert.equal(builds, 0);
    assert.deepEqual(schema().parse({ name: 'a' }), { name: 'a' });
    assert.equal(schema().safeParse({ name: '' }).success, false);
    assert.equal(schema(), schema());
    assert.equal(builds, 1);
  });

  it("gives zod's JSON Schema converter the tool's own schema: the model sees its descriptions", () => {
    const [spec] = new ToolCatalog().add(askUserQuestionTool).specs(() => true);
    const expected = z.toJSONSchema(askUserQuestionTool.schema(), { io: 'input' }) as Record<string, unknown>;
    delete expected.$schema;
    assert.deepEqual(spec.parameters, expected);
    assert.match(JSON.stringify(spec.parameters), /"description":/);
  });
});

describe('once in a mutation run (scripts/mutation/buildPerMutant.cjs)', function () {
  this.timeout(60_000);

  /** Builds of one `once` value across tests and planted bugs, in a fresh process. */
  function buildsIn(nodeArgs: string[]): number[] {
    const script = `
      const { once } = require('./src/core');
      let builds = 0;
      const value = once(() => ++builds);
      const seen = [];
      const step = (run) => { globalThis.__stryker__ = run; value(); value(); seen.push(builds); };
      step(undefined);
      step({ currentTestId: 'first test' });
      step({ currentTestId: 'second test' });
      step({ currentTestId: 'second test', activeMutant: '7' });
      process.stdout.write(JSON.stringify(seen));`;
    const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', ...nodeArgs, '-e', script], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as number[];
  }

  it('builds again for each test and each planted bug, and once within one', () => {
    assert.deepEqual(buildsIn(['--require', './scripts/mutation/buildPerMutant.cjs']), [1, 2, 3, 4]);
  });

  it('leaves the product building once when it is not loaded', () => {
    assert.deepEqual(buildsIn([]), [1, 1, 1, 1]);
  });
});
