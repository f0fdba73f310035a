import * as assert from 'node:assert/strict';
import { readSessionSnapshot } from '../../../src/core/agents/sessionSnapshot';
import { ConversationModel, conversationState } from '../../../src/core/conversation';
import { MAX_PLAN_ITEMS, MAX_PLAN_STEP_CHARS, planFromEvents, planSummary } from '../../../src/core/plans';
import { sessionEventSchema } from '../../../src/core/sessions/schema';
import type { PlanItem, SessionEvent } from '../../../src/core/sessions/types';
import { makeRuntime, toolResults } from '../../support/runtimeFixture';

const plan = (...steps: Array<[string, PlanItem['status']]>): PlanItem[] => steps.map(([step, status]) => ({ step, status }));
const call = (items: unknown) => ({ name: 'update_plan', arguments: { items } });

describe('plans: update_plan', () => {
  it('replaces the whole plan each call, records it in the session, and answers with the plan at a glance', async () => {
    const first = plan(['read the code', 'in_progress'], ['write tests', 'pending']);
    const second = plan(['read the code', 'done'], ['write tests', 'in_progress'], ['run them', 'pending']);
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ toolCalls: [call(first)] }, { toolCalls: [call(second)] }, { text: 'ok' }]] } } });
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    const seen: Array<readonly PlanItem[] | undefined> = [];
    runtime.onEvent((e) => {
      if (e.type === 'agent_changed' && e.change.type === 'log' && e.change.event.type === 'plan') seen.push(e.agent.plan);
    });
    await agent.whenIdle();
    assert.deepEqual(agent.plan, second);
    assert.deepEqual(seen, [first, second], 'each update reaches the views as it is recorded');
    assert.deepEqual(agent.log.events.filter((e) => e.type === 'plan').map((e) => e.items), [first, second]);
    assert.deepEqual(toolResults(agent).map((r) => JSON.parse(r.content)), [
      { status: 'updated', plan: '0/2 · read the code' },
      { status: 'updated', plan: '1/3 · write tests' },
    ]);
    await runtime.dispose();
  });

  const refusals: Array<[string, unknown]> = [
    [`more than ${MAX_PLAN_ITEMS} steps`, Array.from({ length: MAX_PLAN_ITEMS + 1 }, (_, i) => ({ step: `step ${i}`, status: 'pending' }))],
    ['a step too long', [{ step: 'x'.repeat(MAX_PLAN_STEP_CHARS + 1), status: 'pending' }]],
    ['two steps in progress', plan(['a', 'in_progress'], ['b', 'in_progress'])],
    ['an unknown status', [{ step: 'a', status: 'blocked' }]],
    ['a blank step', [{ step: '   ', status: 'pending' }]],
  ];
  for (const [what, items] of refusals) {
    it(`refuses ${what} with a typed error, and the plan stays as it was`, async () => {
      const kept = plan(['a', 'done']);
      const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ toolCalls: [call(kept)] }, { toolCalls: [call(items)] }, { text: 'ok' }]] } } });
      const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
      await agent.whenIdle();
      const result = toolResults(agent)[1];
      assert.equal(result.isError, true);
      assert.equal(JSON.parse(result.content).code, 'TOOL_ARGUMENTS_INVALID');
      assert.deepEqual(agent.plan, kept);
      assert.equal(agent.log.events.filter((e) => e.type === 'plan').length, 1);
      await runtime.dispose();
    });
  }

  it('is offered in plan mode, where tools that change things are not', async () => {
    const { runtime, calls } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'ok' }]] } } });
    const agent = runtime.startRoot({ prompt: 'go', label: 'main', planMode: true });
    await agent.whenIdle();
    const names = calls[0].tools.map((t) => t.name);
    assert.ok(names.includes('update_plan') && !names.includes('edit_file'), names.join());
    await runtime.dispose();
  });
});

describe('plans: shown and read back', () => {
  it('says "done/all · the step in progress", or the next pending one, or that all are done', () => {
    assert.equal(planSummary(plan(['a', 'done'], ['b', 'done'], ['c', 'done'], ['writing tests', 'in_progress'], ['e', 'pending'], ['f', 'pending'], ['g', 'pending'])), '3/7 · writing tests');
    assert.equal(planSummary(plan(['a', 'done'], ['next', 'pending'])), '1/2 · next');
    assert.equal(planSummary(plan(['a', 'done'])), '1/1 done');
    assert.equal(planSummary([]), undefined);
    assert.equal(planSummary(undefined), undefined);
  });

  const at = '2026-01-01T00:00:00.000Z';
  const events: SessionEvent[] = [
    { type: 'turn_start', at, turn: 1 },
    { type: 'plan', at, items: plan(['a', 'in_progress']) },
    { type: 'assistant_text', at, text: 'working' },
    { type: 'plan', at, items: plan(['a', 'done'], ['b', 'in_progress']) },
    { type: 'turn_end', at, turn: 1, reason: 'completed' },
  ];

  it('a session file\'s plan line is valid session data, and a reopened session starts with its last plan', () => {
    for (const e of events) assert.ok(sessionEventSchema().safeParse(e).success, e.type);
    assert.deepEqual(planFromEvents(events), plan(['a', 'done'], ['b', 'in_progress']));
    const header = { type: 'header' as const, version: 1, id: 's', createdAt: at, delegationDepth: 0, kind: 'root' as const, label: 'x', interactionMode: 'interactive' as const };
    const snapshot = readSessionSnapshot({ header, events, append: () => undefined, flush: () => Promise.resolve() });
    assert.deepEqual(snapshot.plan, plan(['a', 'done'], ['b', 'in_progress']));
    assert.deepEqual(snapshot.conversation.map((m) => m.content), ['working'], 'a plan is not part of what the model reads back');
    const old = readSessionSnapshot({ header, events: events.filter((e) => e.type !== 'plan'), append: () => undefined, flush: () => Promise.resolve() });
    assert.equal(old.plan, undefined, 'a session from before plans reads as having none');
  });

  it('the conversation view\'s state carries the latest plan, replaced in place, and adds no item to the conversation', () => {
    const model = new ConversationModel(events.slice(0, 3));
    const itemsBefore = model.items.length;
    model.apply(events[3]);
    assert.equal(model.items.length, itemsBefore);
    const state = conversationState({ kind: 'root', live: true, status: 'running', stopping: false, waiting: false, pendingCount: 0, parked: false, parentOffline: false, queued: [], tokens: 0, plan: model.plan });
    assert.deepEqual(state.plan, plan(['a', 'done'], ['b', 'in_progress']));
  });
});
