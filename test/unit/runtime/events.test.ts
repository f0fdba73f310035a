import * as assert from 'node:assert/strict';
import type { RuntimeEvent } from '../../../src/core';
import { askTheHuman, resolveInteractionPolicy, UserInteractionService } from '../../../src/core/interaction';
import { FakeDirectory, FakeProvider, makeAgent, oneQuestion } from '../../support/interactionFakes';
import { makeRuntime } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

describe('one event channel', () => {
  const track = disposeAfterEach();
  it('an agent leaving the registry is announced once to every listener, whoever removes it', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    await agent.whenIdle();
    const heard: string[] = [];
    runtime.onEvent((e: RuntimeEvent) => {
      if (e.type !== 'agent_changed') heard.push(`event:${e.type}`);
    });
    runtime.agents.onDidChange((c) => heard.push(`registry:${c.type}`));
    agent.dispose();
    runtime.agents.remove(agent);
    assert.deepEqual(heard, ['event:agent_removed', 'registry:removed']);
  });

  it('a settled child is announced as removed with the agent that created it', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'kid', prompt: 'work' } }] }, { text: 'started' }], [{ text: 'thanks' }]] },
        kid: { turns: [[{ text: 'kid done' }]] },
      },
    });
    track(runtime);
    const removed: { agent: string; parent?: string }[] = [];
    runtime.onEvent((e) => {
      if (e.type === 'agent_removed') removed.push({ agent: e.agent.label, parent: e.parent?.label });
    });
    runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => removed.length === 1, 'the kid to settle');
    assert.deepEqual(removed, [{ agent: 'kid', parent: 'main' }]);
  });
});

describe('the asking door', () => {
  function world(mode?: string) {
    const directory = new FakeDirectory();
    const interaction = new UserInteractionService({ agents: directory });
    const provider = new FakeProvider();
    interaction.registerProvider(provider);
    const agent = makeAgent('lead', { label: 'Lead' });
    directory.add(agent);
    const policy = resolveInteractionPolicy(mode ? { interactionMode: mode } : {});
    return { provider, agent, ctx: { agent, signal: new AbortController().signal, interaction, policy } };
  }

  it('records the question and the answer around one ask', async () => {
    const w = world();
    w.provider.choose('SQLite');
    const outcome = await askTheHuman(w.ctx, { questions: oneQuestion(), intent: 'clarify' });
    assert.deepEqual(outcome, { status: 'answered', answers: [{ id: 'db', selected: ['SQLite'] }] });
    assert.deepEqual(w.agent.log.events.map((e) => e.type), ['question', 'answer']);
  });

  it('maps a dismissal to a stable code, recorded as the answer', async () => {
    const w = world();
    w.provider.dismiss();
    const outcome = await askTheHuman(w.ctx, { questions: oneQuestion(), intent: 'clarify' });
    assert.equal(outcome.status, 'failed');
    assert.ok(outcome.status === 'failed' && outcome.dismissed && outcome.code === 'ASK_CANCELLED');
    const last = w.agent.log.events.at(-1);
    assert.ok(last?.type === 'answer' && last.error === 'ASK_CANCELLED');
  });

  it('asks nobody in an unattended run: a clarification is recorded as suppressed, a plan approval not at all', async () => {
    const clarify = world('scheduled');
    assert.deepEqual(await askTheHuman(clarify.ctx, { questions: oneQuestion(), intent: 'clarify' }), { status: 'unattended' });
    const suppressed = clarify.agent.log.events.at(-1);
    assert.ok(suppressed?.type === 'answer' && suppressed.error === 'SUPPRESSED: scheduled run, nobody can answer');
    const plan = world('autonomous');
    assert.deepEqual(await askTheHuman(plan.ctx, { questions: oneQuestion(), intent: 'plan-approval', detail: 'the plan' }), { status: 'unattended' });
    assert.equal(plan.agent.log.events.length, 0);
    assert.equal(clarify.provider.calls + plan.provider.calls, 0);
  });
});
