import * as assert from 'node:assert/strict';
import { budgetStatus, costOf, formatCost, priceFor, raisedLimits, RESUME_NOTE, spentBudget, type BudgetEvent } from '../../../src/core/budgets';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { resolveLimits, RunBudget, type RunLimitsInput } from '../../../src/core/limits';
import { Runtime } from '../../../src/core/runtime';
import { childByLabel, reasons, recordingModel, tick, userMessages } from '../../support/runtimeFixture';
import { Run } from '../../../src/core/run';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const listAgents = { name: 'list_agents', arguments: {} };
/** The scripted model estimates usage for a step without one: these steps count nothing. */
const NONE = { inputTokens: 0, outputTokens: 0 };

function budgetRuntime(script: ModelScript, options: { limits?: RunLimitsInput; prices?: unknown; now?: () => number } = {}) {
  const { model, calls } = recordingModel(script);
  let n = 0;
  const runtime = new Runtime({ model, limits: options.limits, prices: options.prices as never, now: options.now, newId: (label) => `${label}#${++n}` });
  const events: BudgetEvent[] = [];
  runtime.budgets.onEvent((e) => events.push(e));
  return { runtime, calls, events };
}

describe('run budgets: accounting and cost', () => {
  const track = disposeAfterEach();
  it('counts tokens, turns and model calls across the whole run, and prices tokens per model', async () => {
    const { runtime } = budgetRuntime(
      {
        version: 1,
        agents: {
          main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'kid', prompt: 'x' } }], usage: { inputTokens: 1000, outputTokens: 100 } }, { text: 'done', usage: { inputTokens: 10, outputTokens: 10 } }]] },
          kid: { turns: [[{ text: 'ok', usage: { inputTokens: 2000, outputTokens: 500 } }]] },
        },
      },
      { prices: { recording: { input: 3, output: 15 } } },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    const run = root.run.budget;
    assert.equal(run.tokensUsed, 3620);
    assert.equal(run.turnsUsed, 2, 'the root turn and the child turn');
    assert.equal(run.modelCallsUsed, 3);
    const expected = (3010 * 3 + 610 * 15) / 1e6;
    assert.ok(Math.abs(run.cost - expected) < 1e-12, `cost ${run.cost} vs ${expected}`);
    assert.ok(Math.abs(run.costOf(root.id) - (1010 * 3 + 110 * 15) / 1e6) < 1e-12, 'each agent has its own share');
    assert.equal(run.unpricedTokens, 0);
  });

  it('a run has one budget, shared by every agent of it, and is not a budget itself', async () => {
    const { runtime } = budgetRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'kid', prompt: 'x' } }] }, { text: 'done' }]] }, kid: { turns: [[{ text: 'ok' }]] } },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    const seen: RunBudget[] = [];
    runtime.onEvent((e) => {
      if (e.type === 'agent_added') seen.push(e.agent.run.budget);
    });
    await root.whenIdle();
    assert.ok(root.run.budget instanceof RunBudget);
    assert.equal(root.run instanceof RunBudget, false);
    assert.equal(Object.prototype.hasOwnProperty.call(root.run, 'tokensUsed'), false, 'what the run used is on its budget only');
    const run = root.run;
    assert.ok(run instanceof Run);
    assert.equal(run.tokensUsed, run.budget.tokensUsed, 'the deprecated figure on the run reads its budget');
    assert.deepEqual(seen, [root.run.budget], "the child counts against its parent's budget");
    assert.equal(root.run.budget.turnsUsed, 2);
  });

  it('a model without a price counts its tokens but no cost', async () => {
    const { runtime } = budgetRuntime({ version: 1, agents: { main: { turns: [[{ text: 'hi', usage: { inputTokens: 7, outputTokens: 3 } }]] } } }, { prices: { 'gpt-4o': { input: 1, output: 1 } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.equal(root.run.budget.cost, 0);
    assert.equal(root.run.budget.unpricedTokens, 10);
  });

  it('finds a price by the model label or by its name without the part in parentheses, ignoring case', () => {
    const prices = { 'GPT-4o': { input: 2.5, output: 10 }, 'gpt-4o (api.example.com)': { input: 1, output: 1 } };
    assert.deepEqual(priceFor(prices, 'gpt-4o (api.example.com)'), { input: 1, output: 1 });
    assert.deepEqual(priceFor(prices, 'gpt-4o (localhost:11434)'), { input: 2.5, output: 10 });
    assert.equal(priceFor(prices, 'gpt-4o-mini (api.example.com)'), undefined);
    assert.equal(costOf(prices, 'gpt-4o (x)', 1_000_000, 100_000), 3.5);
    assert.equal(formatCost(0.0123), '$0.012');
    assert.equal(formatCost(2.5), '$2.50');
  });

  it('new defaults (a changed setting) apply to runs started afterwards, not to runs under way', async () => {
    const { runtime } = budgetRuntime({ version: 1, agents: { '*': { turns: [[{ hang: true }]] } } }, { limits: { maxTokens: 100 } });
    track(runtime);
    const first = runtime.startRoot({ prompt: 'go', label: 'first' });
    runtime.setDefaultLimits({ maxTokens: 500, maxCost: 2 });
    const second = runtime.startRoot({ prompt: 'go', label: 'second' });
    assert.equal(first.run.budget.limits.maxTokens, 100);
    assert.equal(second.run.budget.limits.maxTokens, 500);
    assert.equal(second.run.budget.limits.maxCost, 2);
    assert.throws(() => runtime.setDefaultLimits({ maxTokens: -1 }));
    assert.equal(runtime.startRoot({ prompt: 'go', label: 'third' }).run.budget.limits.maxTokens, 500, 'a bad value changes nothing');
  });

  it('a bad price table is refused when the runtime is made', () => {
    const { model } = recordingModel({ version: 1, agents: {} });
    assert.throws(() => new Runtime({ model, prices: { x: { input: -1, output: 0 } } }));
  });
});

describe('run budgets: thresholds', () => {
  const track = disposeAfterEach();
  it('warns from 80% of a budget and is spent at 100%', () => {
    const run = new RunBudget(resolveLimits({ maxTokens: 100 }), {}, () => 0);
    run.tokensUsed = 79;
    assert.equal(budgetStatus(run, 0).level, 'ok');
    run.tokensUsed = 80;
    assert.equal(budgetStatus(run, 0).level, 'warning');
    assert.equal(budgetStatus(run, 0).highest?.key, 'tokens');
    assert.equal(spentBudget(run, 0), undefined);
    run.tokensUsed = 100;
    assert.equal(budgetStatus(run, 0).level, 'exhausted');
    assert.match(spentBudget(run, 0) ?? '', /token budget of 100 is spent/);
  });

  it('turns and model calls are spent when one more would pass the limit', () => {
    const run = new RunBudget(resolveLimits({ maxRunTurns: 2, maxModelCalls: 3 }), {}, () => 0);
    run.turnsUsed = 2;
    run.modelCallsUsed = 2;
    assert.equal(spentBudget(run, 0), undefined, 'the last allowed turn may go on');
    assert.match(spentBudget(run, 0, 'turn') ?? '', /2 turns/);
    assert.equal(spentBudget(run, 0, 'modelCall'), undefined);
    run.modelCallsUsed = 3;
    assert.match(spentBudget(run, 0, 'modelCall') ?? '', /3 model calls/);
  });

  it('wall time is spent when the clock passes the start plus the limit', () => {
    const run = new RunBudget(resolveLimits({ maxWallTimeSeconds: 60 }), {}, () => 1_000);
    assert.equal(budgetStatus(run, 1_000 + 47_000).level, 'ok');
    assert.equal(budgetStatus(run, 1_000 + 48_000).level, 'warning');
    assert.match(spentBudget(run, 61_000) ?? '', /wall time of 1m 0s is up/);
  });

  it('raising doubles each spent budget until it has room, and leaves the others', () => {
    const run = new RunBudget(resolveLimits({ maxTokens: 100, maxModelCalls: 10 }), {}, () => 0);
    run.tokensUsed = 250;
    run.modelCallsUsed = 4;
    const raised = raisedLimits(run, 0);
    assert.equal(raised.maxTokens, 400);
    assert.equal(raised.maxModelCalls, 10);
  });

  it('the run warns once when it passes 80%, and again only after a raise', async () => {
    const { runtime, events } = budgetRuntime(
      { version: 1, agents: { main: { turns: [[{ toolCalls: [listAgents], usage: { inputTokens: 40, outputTokens: 45 } }, { toolCalls: [listAgents], usage: { inputTokens: 1, outputTokens: 1 } }, { text: 'done', usage: { inputTokens: 0, outputTokens: 0 } }]] } } },
      { limits: { maxTokens: 100 } },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.deepEqual(
      events.map((e) => e.type),
      ['warning'],
    );
    assert.deepEqual(reasons(root), ['completed']);
  });
});

describe('run budgets: the pause at 100%', () => {
  const track = disposeAfterEach();
  const pausingScript: ModelScript = {
    version: 1,
    agents: {
      main: {
        turns: [
          [
            { toolCalls: [{ name: 'start_subagent', arguments: { label: 'kid', prompt: 'work' } }], usage: NONE },
            { delayMs: 5, toolCalls: [listAgents], usage: { inputTokens: 30, outputTokens: 0 } },
            { hang: true },
          ],
          [{ text: 'main goes on', usage: NONE }],
        ],
      },
      kid: {
        turns: [
          [{ toolCalls: [listAgents], usage: NONE }, { delayMs: 50, toolCalls: [listAgents], usage: { inputTokens: 80, outputTokens: 0 } }, { text: 'never reached' }],
          [{ text: 'kid goes on', usage: NONE }],
        ],
      },
    },
  };

  it('pauses every agent of the run like a Stop (conversation kept, nothing restarts) and Raise limit resumes them', async () => {
    const { runtime, calls, events } = budgetRuntime(pausingScript, { limits: { maxTokens: 100 } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime.budgets, () => events.some((e) => e.type === 'paused'), 'the run to pause');
    const kid = childByLabel(runtime, 'kid');
    await whenState(runtime, () => root.status === 'idle' && kid.status === 'idle', 'both agents to stop');
    const paused = events.find((e) => e.type === 'paused');
    assert.ok(paused && paused.type === 'paused');
    assert.equal(paused.root, root);
    assert.match(paused.reason, /token budget of 100 is spent/);
    assert.ok(runtime.budgets.holdOf(root.run), 'the run is paused');
    assert.deepEqual(reasons(root), ['paused']);
    assert.deepEqual(reasons(kid), ['paused']);
    assert.equal(root.lastTurnEnd?.hold?.reason, 'budget');
    assert.ok(runtime.agents.isLive(kid), 'the child is kept, not ended');
    const callsWhenPaused = calls.length;
    const conversation = root.conversation.length;
    await tick(20);
    assert.equal(calls.length, callsWhenPaused, 'no model call while paused');
    assert.equal(root.status, 'idle', "the stopped child's report does not restart its parent");
    assert.equal(root.conversation.length >= conversation, true, 'the conversation is kept');

    const limits = runtime.budgets.raise(root.run);
    assert.equal(limits.maxTokens, 200);
    assert.equal(runtime.budgets.holdOf(root.run), undefined);
    const said = (agent: typeof root, text: string): boolean => agent.log.events.some((e) => e.type === 'assistant_text' && e.text === text);
    await whenState(runtime, () => said(root, 'main goes on') && said(kid, 'kid goes on'), 'both agents to go on');
    assert.ok(userMessages(root).includes(RESUME_NOTE));
    assert.ok(userMessages(kid).includes(RESUME_NOTE));
    assert.equal(events.filter((e) => e.type === 'resumed').length, 1);
  });

  it('refuses a raise that leaves a budget spent, and stays paused', async () => {
    const { runtime, events } = budgetRuntime(pausingScript, { limits: { maxTokens: 100 } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime.budgets, () => events.some((e) => e.type === 'paused'), 'the run to pause');
    assert.throws(() => runtime.budgets.raise(root.run, { maxTokens: 105 }), (err: unknown) => (err as { code?: string }).code === 'INPUT_INVALID');
    assert.ok(runtime.budgets.holdOf(root.run));
  });

  it('a message sent to a paused agent starts no model call until the limit is raised', async () => {
    const { runtime, calls, events } = budgetRuntime(pausingScript, { limits: { maxTokens: 100 } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime.budgets, () => events.some((e) => e.type === 'paused'), 'the run to pause');
    await whenState(runtime, () => root.status === 'idle', 'the root to stop');
    const before = calls.length;
    runtime.sendFromUser(root, 'are you there?');
    await root.whenIdle();
    assert.equal(calls.length, before);
    assert.ok(userMessages(root).includes('are you there?'), 'the message is kept in the conversation');
  });

  it('pauses the run when its turns or model calls would pass their budget', async () => {
    const { runtime, calls, events } = budgetRuntime(
      { version: 1, agents: { main: { turns: [{ steps: [{ toolCalls: [listAgents] }], loop: true }] } } },
      { limits: { maxModelCalls: 3 } },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.equal(calls.length, 3);
    assert.deepEqual(reasons(root), ['paused']);
    assert.ok(events.some((e) => e.type === 'paused' && /3 model calls/.test(e.reason)));
    runtime.budgets.raise(root.run);
    assert.equal(root.run.budget.limits.maxModelCalls, 6);
    await whenState(runtime, () => root.lastTurnEnd?.reason === 'completed', 'the agent to go on after the raise');
    assert.equal(calls.length, 4);
  });

  it('pauses the run when its wall time is up', async () => {
    let clock = 1_000_000;
    const { runtime, events } = budgetRuntime({ version: 1, agents: { main: { turns: [[{ hang: true }]] } } }, { limits: { maxWallTimeSeconds: 30 }, now: () => clock });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => root.status === 'running', 'the turn to start');
    clock += 31_000;
    runtime.budgets.check(root.run);
    await root.whenIdle();
    assert.ok(events.some((e) => e.type === 'paused' && /wall time of 30s is up/.test(e.reason)));
    assert.deepEqual(reasons(root), ['paused']);
  });
});

describe('run budgets: an unattended run at its cap', () => {
  const track = disposeAfterEach();
  it('ends BLOCKED with a report of what it did and what is left, and no model call', async () => {
    const { runtime, calls, events } = budgetRuntime(
      {
        version: 1,
        agents: {
          main: {
            turns: [
              [
                { text: 'Started the migration.', toolCalls: [{ name: 'start_subagent', arguments: { label: 'kid', prompt: 'work' } }], usage: { inputTokens: 10, outputTokens: 0 } },
                { hang: true },
              ],
            ],
          },
          kid: { turns: [[{ delayMs: 5, toolCalls: [listAgents], usage: { inputTokens: 100, outputTokens: 0 } }, { text: 'never' }]] },
        },
      },
      { limits: { maxTokens: 100 } },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main', context: { interactionMode: 'autonomous' } });
    await whenState(runtime.budgets, () => events.some((e) => e.type === 'blocked'), 'the run to end BLOCKED');
    await whenState(runtime, () => root.status === 'idle', 'the root to end');
    const callsThen = calls.length;
    assert.equal(root.lastTurnEnd?.reason, 'blocked');
    const report = root.lastTurnEnd?.finalText ?? '';
    assert.match(report, /^BLOCKED: the run reached its limit \(the run's token budget of 100 is spent\)/);
    assert.match(report, /Done: .*110 tokens/);
    assert.match(report, /- main \(root\)/);
    assert.match(report, /- kid \(continuable\)/);
    assert.match(report, /Left:/);
    assert.ok(
      root.log.events.some((e) => e.type === 'assistant_text' && e.text === report),
      'the report is in the transcript',
    );
    assert.ok(!events.some((e) => e.type === 'paused'), 'an unattended run does not wait for a raise');
    await tick(20);
    assert.equal(calls.length, callsThen);
  });

  it('an idle root of an unattended run still gets its BLOCKED result', async () => {
    let clock = 0;
    const { runtime, calls, events } = budgetRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done for now', usage: NONE }]] } } }, { limits: { maxWallTimeSeconds: 10 }, now: () => clock });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main', context: { interactionMode: 'scheduled' } });
    await root.whenIdle();
    clock = 11_000;
    runtime.budgets.check(root.run);
    await whenState(runtime, () => root.lastTurnEnd?.reason === 'blocked', 'the BLOCKED turn end');
    assert.equal(calls.length, 1, 'the BLOCKED turn makes no model call');
    assert.match(root.lastTurnEnd!.finalText, /^BLOCKED:/);
    assert.match(root.lastTurnEnd!.finalText, /Last result: "done for now"/);
    assert.ok(events.some((e) => e.type === 'blocked'));
  });
});
