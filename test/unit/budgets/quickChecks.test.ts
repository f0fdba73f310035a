import * as assert from 'node:assert/strict';
import { budgetLevel, budgetStatus, hasRunBudget, spentBudget } from '../../../src/core/budgets/budgetStatus';
import { RunawayDetector, runawaySettingsSchema } from '../../../src/core/budgets';
import { RunBudget, resolveLimits } from '../../../src/core/limits';
import { canonicalArguments } from '../../support/jsonKeys';

/** A small deterministic generator, so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('the quick checks the guards make after every response', () => {
  it('the budget level is the level of the whole budget status, and a run with no budget of its own has none to warn of or spend, for any use against any limits', () => {
    const next = random(7);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
    for (let i = 0; i < 5000; i++) {
      const limits = resolveLimits({
        maxTokens: pick([0, 10, 100]),
        maxRunTurns: pick([0, 5, 10]),
        maxModelCalls: pick([0, 5, 10]),
        maxWallTimeSeconds: pick([0, 1, 60]),
        maxCost: pick([0, 0.5, 2]),
        maxLiveSubagents: pick([0, 2, 5]),
      });
      const run = new RunBudget(limits, {}, () => 1_000_000);
      run.tokensUsed = pick([0, 7, 8, 9, 10, 11, 80, 100, 120]);
      run.turnsUsed = pick([0, 3, 4, 5, 8, 10, 12]);
      run.modelCallsUsed = pick([0, 3, 4, 5, 8, 10, 12]);
      run.cost = pick([0, 0.3, 0.4, 0.5, 1.6, 2, 3]);
      run.liveSubagents = pick([0, 1, 2, 4, 5, 6]);
      const now = 1_000_000 + pick([0, 500, 800, 1000, 30_000, 48_000, 60_000, 90_000]);
      assert.equal(budgetLevel(run, now), budgetStatus(run, now).level, `case ${i}: ${JSON.stringify({ limits, run, now })}`);
      if (!hasRunBudget(limits)) {
        assert.equal(budgetStatus(run, now).level, 'ok', `case ${i}: a run without a budget never warns`);
        for (const next of [undefined, 'turn', 'modelCall'] as const) assert.equal(spentBudget(run, now, next), undefined, `case ${i}: a run without a budget spends none`);
      }
    }
  });

  it('the same call is judged by its tool and its arguments by meaning, however the text of each call was written', () => {
    const texts = ['{"path":"a","limit":5}', '{"limit":5,"path":"a"}', '{ "path": "a", "limit": 5 }', '{"path":"b"}', '{}', '', 'not json', '[1,2]', '{"a":{"y":1,"x":2}}', '{"a":{"x":2,"y":1}}'];
    const names = ['read_file', 'list_files', 'noop'];
    const canonical = canonicalArguments;
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const settings = runawaySettingsSchema().parse({ sameCallRepeats: 2, stepsWithoutChange: 0 });
      const detector = new RunawayDetector(() => settings, () => true);
      let last: string | undefined;
      for (let i = 0; i < 200; i++) {
        const name = names[Math.floor(next() * (i % 7 === 0 ? names.length : 1))];
        const text = texts[Math.floor(next() * texts.length)];
        if (next() < 0.05) {
          detector.reset();
          last = undefined;
        }
        const signature = `${name}\u0000${canonical(text)}`;
        const warned = detector.toolCalled({ id: `c${i}`, name, arguments: text }) !== undefined;
        detector.toolFinished(name, false);
        assert.equal(warned, signature === last, `seed ${seed}, call ${i}: ${name} ${text}`);
        last = signature;
      }
    }
  });
});
