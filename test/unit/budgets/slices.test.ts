import * as assert from 'node:assert/strict';
import { SLICE_RESUME_NOTE, type BudgetEvent } from '../../../src/core/budgets';
import type { Agent } from '../../../src/core/agents/agent';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import type { RunLimitsInput } from '../../../src/core/limits';
import { Runtime } from '../../../src/core/runtime';
import { childByLabel, reasons, recordingModel, toolResults, userMessages } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { parseDefinitionFile } from '../../../src/core/definitions';
import { builtinTools } from '../../../src/core/tools';
import { presentAgent } from '../../../src/extension/agents/agentPresentation';
import { whenState } from '../../support/events';

// Budgets per branch (slices): a child started with its own budget, taken from what the run has
// left; a spent slice pauses that branch alone; Raise limit on it raises that slice only.

const listAgents = { name: 'list_agents', arguments: {} };
const NONE = { inputTokens: 0, outputTokens: 0 };
const start = (label: string, budget?: unknown) => ({ name: 'start_subagent', arguments: { label, prompt: `work as ${label}`, ...(budget ? { budget } : {}) } });
const said = (agent: Agent, text: string): boolean => agent.log.events.some((e) => e.type === 'assistant_text' && e.text === text);

function sliceRuntime(script: ModelScript, limits?: RunLimitsInput) {
  const { model, calls } = recordingModel(script);
  let n = 0;
  const runtime = new Runtime({ model, limits, newId: (label) => `${label}#${++n}` });
  const events: BudgetEvent[] = [];
  runtime.budgets.onEvent((e) => events.push(e));
  return { runtime, calls, events };
}

/** The error a tool result carries, parsed. */
function toolError(agent: Agent, tool: string): { code: string; message: string; details?: Record<string, unknown> } | undefined {
  const result = toolResults(agent).find((r) => r.name === tool && r.isError);
  return result && JSON.parse(result.content);
}

/** A root that starts "spender" with a token budget of 100 and "other" without one, then waits for reports. */
const branchScript = (other: ModelScript['agents'][string]): ModelScript => ({
  version: 1,
  agents: {
    main: { turns: [[{ toolCalls: [start('spender', { tokens: 100 }), start('other')], usage: NONE }, { text: 'main waits', usage: NONE }]], afterLastTurn: 'repeat-last' },
    spender: {
      turns: [
        [
          { toolCalls: [start('grandchild')], usage: { inputTokens: 60, outputTokens: 0 } },
          { delayMs: 5, toolCalls: [listAgents], usage: { inputTokens: 50, outputTokens: 0 } },
          { text: 'never reached', usage: NONE },
        ],
        [{ text: 'spender goes on', usage: NONE }],
      ],
      afterLastTurn: 'repeat-last',
    },
    grandchild: { turns: [[{ hang: true }], [{ text: 'grandchild goes on', usage: NONE }]], afterLastTurn: 'repeat-last' },
    other,
  },
});

/** Starts the run and waits until the spender's branch paused at its slice and both its agents stopped. */
async function pausedBranch(runtime: Runtime, events: readonly BudgetEvent[]): Promise<{ root: Agent; spender: Agent; grandchild: Agent }> {
  const root = runtime.startRoot({ prompt: 'go', label: 'main' });
  await whenState(runtime.budgets, () => events.some((e) => e.type === 'slice_paused'), 'the branch to pause');
  const spender = childByLabel(runtime, 'spender');
  const grandchild = childByLabel(runtime, 'grandchild');
  await whenState(runtime, () => spender.status === 'idle' && grandchild.status === 'idle', 'the branch to stop');
  return { root, spender, grandchild };
}

describe('budgets per branch (slices)', () => {
  const track = disposeAfterEach();

  it('refuses a budget larger than what the run has left, says what is left, and starts nothing', async () => {
    const { runtime } = sliceRuntime(
      {
        version: 1,
        agents: {
          main: {
            turns: [[{ toolCalls: [start('first', { tokens: 600 })], usage: { inputTokens: 100, outputTokens: 0 } }, { toolCalls: [start('second', { tokens: 400, modelCalls: 3 })], usage: NONE }, { text: 'done', usage: NONE }]],
            afterLastTurn: 'repeat-last',
          },
          first: { turns: [[{ hang: true }]] },
          second: { turns: [[{ text: 'never started', usage: NONE }]] },
        },
      },
      { maxTokens: 1000 },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => root.lastTurnEnd !== undefined, 'the root turn to end');
    const error = toolError(root, 'start_subagent');
    assert.ok(error, 'the second start is refused');
    assert.equal(error.code, 'BUDGET_SLICE_TOO_LARGE');
    // 1000 - 100 used by the root - 600 held by "first" = 300.
    assert.deepEqual(error.details?.left, { tokens: 300 }, 'model calls are not limited by the run, so only tokens are left to say');
    assert.match(error.message, /400 tokens asked, 300 tokens left/);
    assert.equal(runtime.agents.all().filter((a) => a.label === 'second').length, 0, 'nothing was started');
    assert.equal(runtime.agents.all().filter((a) => a.label === 'first').length, 1);
  });

  it('a slice is free again when its agent ends: what it held goes back to the others', async () => {
    const { runtime } = sliceRuntime(
      {
        version: 1,
        agents: {
          main: { turns: [[{ toolCalls: [start('first', { tokens: 600 })], usage: NONE }, { text: 'main waits', usage: NONE }], [{ toolCalls: [start('second', { tokens: 800 })], usage: NONE }, { text: 'main done', usage: NONE }]], afterLastTurn: 'repeat-last' },
          first: { turns: [[{ text: 'first done', usage: { inputTokens: 100, outputTokens: 0 } }]] },
          second: { turns: [[{ hang: true }]] },
        },
      },
      { maxTokens: 1000 },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => said(root, 'main done'), 'the second start');
    assert.equal(toolError(root, 'start_subagent'), undefined, '800 of the 900 left fit once the first slice is free');
    assert.deepEqual(runtime.budgets.slices.ownSliceOf(childByLabel(runtime, 'second'))?.limits.tokens, 800);
  });

  it('one delegation with both a write scope and a budget gives the child both', async () => {
    const both = { name: 'start_subagent', arguments: { label: 'docs', prompt: 'write the docs', scope: ['docs/**'], budget: { tokens: 300 } } };
    const { runtime } = sliceRuntime(
      {
        version: 1,
        agents: {
          main: { turns: [[{ toolCalls: [both], usage: NONE }, { text: 'main done', usage: NONE }]] },
          docs: { turns: [[{ hang: true }]] },
        },
      },
      { maxTokens: 1000 },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => said(root, 'main done'), 'the start');
    assert.equal(toolError(root, 'start_subagent'), undefined);
    const docs = childByLabel(runtime, 'docs');
    assert.deepEqual(runtime.budgets.slices.ownSliceOf(docs)?.limits.tokens, 300, 'its own slice');
    assert.deepEqual(runtime.writes.scopeOf(docs)?.globs, ['docs/**'], 'its own scope');
  });

  it('a spent slice pauses its branch alone (the child and its descendants); the rest of the run goes on', async () => {
    const { runtime, events } = sliceRuntime(branchScript({ turns: [[{ delayMs: 30, toolCalls: [listAgents], usage: { inputTokens: 500, outputTokens: 0 } }, { text: 'other finished', usage: NONE }]] }));
    track(runtime);
    const { root, spender, grandchild } = await pausedBranch(runtime, events);
    const paused = events.find((e) => e.type === 'slice_paused');
    assert.ok(paused?.type === 'slice_paused');
    assert.equal(paused.agent, spender);
    assert.match(paused.reason, /token budget of 100 given to "spender" is spent/);
    assert.deepEqual(reasons(spender), ['paused']);
    assert.deepEqual(reasons(grandchild), ['paused'], "the descendant's running turn is stopped too");
    assert.equal(spender.lastTurnEnd?.hold?.reason, 'slice');
    assert.ok(runtime.agents.isLive(spender) && runtime.agents.isLive(grandchild), 'a paused branch is kept, not ended');

    const other = childByLabel(runtime, 'other');
    await whenState(runtime, () => said(other, 'other finished'), 'the other branch to finish');
    assert.equal(runtime.budgets.holdOf(root.run), undefined, 'the run is not paused');
    assert.equal(root.holds.length, 0);
    assert.equal(other.holds.length, 0);
    assert.ok(!events.some((e) => e.type === 'paused'));
    assert.equal(runtime.budgets.slices.statusOf(spender)?.level, 'exhausted');
  });

  it('Raise limit on the branch raises that slice only and wakes its branch', async () => {
    const { runtime, events } = sliceRuntime(branchScript({ turns: [[{ text: 'other finished', usage: NONE }]] }), { maxTokens: 10_000 });
    track(runtime);
    const { root, spender, grandchild } = await pausedBranch(runtime, events);
    assert.throws(() => runtime.budgets.slices.raise(spender, { tokens: 105 }), (err: unknown) => (err as { code?: string }).code === 'INPUT_INVALID');
    assert.throws(() => runtime.budgets.slices.raise(root), (err: unknown) => (err as { code?: string }).code === 'INPUT_INVALID', 'a root has no slice');
    const runLimits = { ...root.run.budget.limits };

    const limits = runtime.budgets.slices.raise(spender);
    assert.equal(limits.tokens, 200);
    assert.deepEqual(root.run.budget.limits, runLimits, "the run's limits are not raised");
    await whenState(runtime, () => said(spender, 'spender goes on') && said(grandchild, 'grandchild goes on'), 'the branch to go on');
    assert.ok(userMessages(spender).includes(SLICE_RESUME_NOTE));
    assert.ok(userMessages(grandchild).includes(SLICE_RESUME_NOTE));
    assert.ok(!userMessages(root).includes(SLICE_RESUME_NOTE), 'nothing outside the branch is woken by the raise');
    assert.equal(events.filter((e) => e.type === 'slice_resumed').length, 1);
  });

  it("the run's total still caps everything: a branch with room pauses with the run, and a slice raise does not free it", async () => {
    const { runtime, events } = sliceRuntime(
      {
        version: 1,
        agents: {
          main: { turns: [[{ toolCalls: [start('sliced', { tokens: 100 })], usage: NONE }, { delayMs: 20, toolCalls: [listAgents], usage: { inputTokens: 150, outputTokens: 0 } }, { text: 'never reached', usage: NONE }], [{ text: 'main goes on', usage: NONE }]], afterLastTurn: 'repeat-last' },
          sliced: { turns: [[{ toolCalls: [listAgents], usage: { inputTokens: 10, outputTokens: 0 } }, { hang: true }], [{ text: 'sliced goes on', usage: NONE }]], afterLastTurn: 'repeat-last' },
        },
      },
      { maxTokens: 150 },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime.budgets, () => events.some((e) => e.type === 'paused'), 'the run to pause');
    const sliced = childByLabel(runtime, 'sliced');
    await whenState(runtime, () => sliced.status === 'idle' && root.status === 'idle', 'every agent to stop');
    assert.equal(runtime.budgets.slices.statusOf(sliced)?.level, 'ok', 'its own slice has room');
    assert.equal(sliced.lastTurnEnd?.hold?.reason, 'budget', "it is held by the run's pause");
    assert.throws(() => runtime.budgets.slices.raise(sliced, { tokens: 5 }), /leave the branch paused/, 'a slice may not be lowered under what it used');
    runtime.budgets.slices.raise(sliced, { tokens: 200 });
    assert.ok(sliced.holds.some((h) => h.reason === 'budget'), "a slice raise leaves the run's pause on");
    assert.ok(!userMessages(sliced).includes(SLICE_RESUME_NOTE), 'nor wakes it');
    runtime.budgets.raise(root.run);
    await whenState(runtime, () => said(sliced, 'sliced goes on') && said(root, 'main goes on'), 'the run to go on after its raise');
  });

  it('a slice of model calls holds the next call that would pass it', async () => {
    const { runtime, calls, events } = sliceRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('caller', { modelCalls: 2 })], usage: NONE }, { text: 'main waits', usage: NONE }]], afterLastTurn: 'repeat-last' },
        caller: { turns: [{ steps: [{ toolCalls: [listAgents], usage: NONE }], loop: true }] },
      },
    });
    track(runtime);
    runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime.budgets, () => events.some((e) => e.type === 'slice_paused'), 'the branch to pause');
    const caller = childByLabel(runtime, 'caller');
    await whenState(runtime, () => caller.status === 'idle', 'the branch to stop');
    assert.equal(calls.filter((c) => c.agentLabel === 'caller').length, 2);
    assert.deepEqual(reasons(caller), ['paused']);
    assert.equal(runtime.budgets.slices.ownSliceOf(caller)?.modelCallsUsed, 2);
  });

  it('unattended: a spent slice ends that branch BLOCKED with its report, and the parent gets the report and goes on', async () => {
    const { runtime, events } = sliceRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('spender', { tokens: 100 })], usage: NONE }, { text: 'main waits', usage: NONE }], [{ text: 'main read the report', usage: NONE }]], afterLastTurn: 'repeat-last' },
        spender: { turns: [[{ toolCalls: [start('grandchild')], usage: { inputTokens: 60, outputTokens: 0 } }, { delayMs: 5, toolCalls: [listAgents], usage: { inputTokens: 50, outputTokens: 0 } }, { text: 'never reached', usage: NONE }]] },
        grandchild: { turns: [[{ hang: true }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main', context: { interactionMode: 'autonomous' } });
    await whenState(runtime.budgets, () => events.some((e) => e.type === 'slice_blocked'), 'the branch to end BLOCKED');
    const spender = childByLabel(runtime, 'spender');
    const grandchild = childByLabel(runtime, 'grandchild');
    await whenState(runtime, () => !runtime.agents.isLive(spender) && !runtime.agents.isLive(grandchild), 'the branch to end');
    assert.equal(spender.lastTurnEnd?.reason, 'blocked');
    const report = spender.lastTurnEnd?.finalText ?? '';
    assert.match(report, /^BLOCKED: this branch reached its budget \(the token budget of 100 given to "spender" is spent\)/);
    assert.match(report, /- grandchild \(continuable\)/);
    await whenState(runtime, () => said(root, 'main read the report'), 'the parent to go on with the report');
    assert.ok(userMessages(root).some((m) => m.includes('BLOCKED: this branch reached its budget')), 'the parent got the report');
    assert.equal(runtime.budgets.holdOf(root.run), undefined);
    assert.ok(!events.some((e) => e.type === 'slice_paused'), 'an unattended branch does not wait for a raise');
  });

  it("a definition's budget is the child's slice (the caller's and the definition's, the tighter per measure), and a bad one is refused with its field", async () => {
    const known = new Set(builtinTools.map((t) => t.name));
    const parse = (front: string) => parseDefinitionFile({ file: '/w/.arbor/agents/def.md', text: `---\n${front}\n---\nDo the work.\n`, format: 'arbor', scope: 'workspace' }, known);
    const bad = parse('name: Cheap\ndescription: Works cheaply.\nbudget: { tokens: -5 }');
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? '' : bad.message, /budget/);
    assert.equal(parse('name: Cheap\ndescription: Works cheaply.\nbudget: { dollars: 5 }').ok, false, 'an unknown measure is refused');
    const good = parse('name: Cheap\ndescription: Works cheaply.\nbudget: { tokens: 500, modelCalls: 4 }');
    assert.ok(good.ok);
    const { runtime } = sliceRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { agent: 'Cheap', prompt: 'work', budget: { tokens: 800, modelCalls: 2, cost: 1 } } }], usage: NONE }, { text: 'main waits', usage: NONE }]], afterLastTurn: 'repeat-last' },
        Cheap: { turns: [[{ hang: true }]] },
      },
    });
    track(runtime);
    runtime.definitions.replace([good.definition]);
    runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.all().some((a) => a.label === 'Cheap' && a.status === 'running'), 'the defined child to start');
    const cheap = childByLabel(runtime, 'Cheap');
    assert.deepEqual(runtime.budgets.slices.ownSliceOf(cheap)?.limits, { tokens: 500, cost: 1, modelCalls: 2, wallTimeSeconds: 0 });
  });

  it('a one-shot delegation with a spent slice returns to its parent, which goes on', async () => {
    const { runtime } = sliceRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'helper', prompt: 'x', budget: { tokens: 50 } } }], usage: NONE }, { text: 'main goes on', usage: NONE }]] },
        helper: { turns: [[{ toolCalls: [listAgents], usage: { inputTokens: 60, outputTokens: 0 } }, { text: 'never reached', usage: NONE }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => said(root, 'main goes on'), 'the parent to go on');
    const result = toolResults(root).find((r) => r.name === 'delegate_task');
    assert.ok(result?.isError);
    assert.match(result.content, /"status":"budget"/);
    assert.match(result.content, /token budget of 50 given to \\"helper\\" is spent/);
    assert.equal(root.holds.length, 0);
  });

  it("the node shows its slice's use from 80% (⚠ 85% of its tokens), and its row offers Raise limit", async () => {
    const { runtime } = sliceRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('frugal', { tokens: 1000 })], usage: NONE }, { text: 'main waits', usage: NONE }]], afterLastTurn: 'repeat-last' },
        frugal: { turns: [[{ toolCalls: [listAgents], usage: { inputTokens: 850, outputTokens: 0 } }, { hang: true }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.all().some((a) => a.label === 'frugal' && a.usage.inputTokens === 850), 'the child to spend');
    const frugal = childByLabel(runtime, 'frugal');
    const view = presentAgent({ agent: frugal, waiting: false, treeTokens: 850, descendants: 0, now: Date.now() });
    assert.match(view.description, /⚠ 85% of its tokens/);
    assert.match(view.tooltip, /850 of 1\.0k tokens \(85%\)/);
    assert.match(view.contextValue, /^agent:running:continuable:slice$/);
    const rootView = presentAgent({ agent: root, waiting: false, treeTokens: 850, descendants: 1, now: Date.now() });
    assert.doesNotMatch(rootView.contextValue, /:slice/, 'an agent without a slice of its own offers no Raise limit');
    assert.doesNotMatch(rootView.description, /of its tokens/);
  });
});
