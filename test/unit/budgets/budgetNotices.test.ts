import '../../support/vscodeStub';
import * as assert from 'node:assert/strict';
import type { Runtime } from '../../../src/core';
import type { BudgetEvent } from '../../../src/core/budgets';
import { RAISE_LIMIT, SHOW_WAITING, STOP, showBudgetEvent } from '../../../src/extension/budgets/budgetNotifications';
import { forged } from '../../support/forged';
import { vscodeStub } from '../../support/vscodeStub';

const warnings: Array<{ message: string; actions: string[]; close: (pick?: string) => void }> = [];
Object.assign(vscodeStub.window, {
  showWarningMessage: (message: string, ...actions: string[]) => new Promise<string | undefined>((resolve) => warnings.push({ message, actions, close: resolve })),
});

const log = forged<Parameters<typeof showBudgetEvent>[2]>({ warn: () => undefined, info: () => undefined });
const runtime = forged<Runtime>({});
const paused = (label: string): BudgetEvent => forged<BudgetEvent>({ type: 'paused', run: {}, root: { label }, reason: 'the run used 100% of its tokens' });

describe('the notices of paused runs: one at a time, leading to Waiting for you', () => {
  it('a second pause while the first notice is open shows no second notice; once it is closed, the next one shows', async () => {
    warnings.splice(0);
    showBudgetEvent(paused('First'), runtime, log, () => undefined);
    showBudgetEvent(paused('Second'), runtime, log, () => undefined);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, /"First" is paused/);
    assert.deepEqual(warnings[0].actions, [RAISE_LIMIT, STOP, SHOW_WAITING]);
    warnings[0].close(STOP);
    await new Promise((r) => setImmediate(r));
    showBudgetEvent(paused('Third'), runtime, log, () => undefined);
    assert.equal(warnings.length, 2);
    assert.match(warnings[1].message, /"Third" is paused/);
    warnings[1].close();
  });
});
