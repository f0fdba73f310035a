import * as assert from 'node:assert/strict';
import { MIN_TIMEOUT_SECONDS, timeoutMs } from '../../../src/extension/timeoutSetting';

const KEY = 'model.openaiCompatible.responseTimeoutSeconds';

function read(value: unknown): { ms: number | undefined; problems: string[] } {
  const problems: string[] = [];
  return { ms: timeoutMs(KEY, value, (p) => problems.push(p)), problems };
}

describe('the timeout settings of the OpenAI-compatible endpoint', () => {
  it('raise a tiny positive value to the minimum of 1 s, with a warning that names the setting', () => {
    assert.equal(MIN_TIMEOUT_SECONDS, 1);
    for (const value of [0.0004, 0.2, 0.999]) {
      const { ms, problems } = read(value);
      assert.equal(ms, 1000, `${value} s`);
      assert.deepEqual(problems, [`arbor.${KEY} is ${value} s, below the minimum of 1 s; using 1 s.`]);
    }
  });

  it('take a value from the minimum up to a day as it is, and an unset one as the default', () => {
    assert.deepEqual(read(1), { ms: 1000, problems: [] });
    assert.deepEqual(read(1.5), { ms: 1500, problems: [] });
    assert.deepEqual(read(86_400), { ms: 86_400_000, problems: [] });
    assert.deepEqual(read(undefined), { ms: undefined, problems: [] });
    assert.deepEqual(read(null), { ms: undefined, problems: [] });
  });

  it('report a value that is not a positive number of seconds up to a day, and use the default', () => {
    for (const value of [0, -3, 86_401, '30', Number.NaN, Number.POSITIVE_INFINITY]) {
      const { ms, problems } = read(value);
      assert.equal(ms, undefined, String(value));
      assert.deepEqual(problems, [`arbor.${KEY} must be a number of seconds from 1 to 86400; using the default.`], String(value));
    }
  });
});
