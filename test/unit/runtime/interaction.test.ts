import * as assert from 'assert';
import type { Agent } from '../../../src/core/agents/agent';
import { isArborError } from '../../../src/core/errors';
import type { InteractionPrompt } from '../../../src/core/interaction';
import type { Answer } from '../../../src/core/sessions/types';
import { makeRuntime, reasons, toolResults, until } from '../../support/runtimeFixture';
import { whenState } from '../../support/events';
import { disposeAfterEach } from '../../support/disposeAfterEach';

const question = { questions: [{ id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] }] };

function recordingProvider(answer: (p: InteractionPrompt) => Answer[] | Promise<Answer[]>) {
  const prompts: InteractionPrompt[] = [];
  return { prompts, provider: { ask: async (p: InteractionPrompt) => (prompts.push(p), answer(p)) } };
}

describe('assembled runtime: human interaction', () => {
  const track = disposeAfterEach();
  it('a one-shot child that asks gets DELEGATED_CALLER at once, puts the question in its result, and the parent completes', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'researcher', prompt: 'pick a db' } }] }, { text: 'Parent done. Child said: {{lastMessage}}' }]] },
        researcher: {
          turns: [
            [
              { toolCalls: [{ name: 'ask_user_question', arguments: question }] },
              { text: 'OPEN QUESTION for the user: Which database? I assumed none.' },
            ],
          ],
        },
      },
    });
    track(runtime);
    const { prompts, provider } = recordingProvider(() => [{ id: 'db', selected: ['Postgres'] }]);
    runtime.interaction.registerProvider(provider);
    let child: Agent | undefined;
    runtime.onEvent((e) => {
      if (e.type === 'agent_added' && e.agent.label === 'researcher') child = e.agent;
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.ok(child);
    assert.strictEqual(prompts.length, 0, 'no UI was ever opened');
    const childResult = toolResults(child)[0];
    assert.strictEqual(childResult.isError, true);
    const err = JSON.parse(childResult.content);
    assert.strictEqual(err.code, 'DELEGATED_CALLER');
    assert.match(err.message, /final result/);
    assert.deepStrictEqual(reasons(root), ['completed'], 'the parent completed instead of waiting');
    assert.match(toolResults(root)[0].content, /OPEN QUESTION for the user/);
  });

  it('a root asks through the provider and gets the answers as its tool result', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [{ name: 'ask_user_question', arguments: question }] }, { text: 'thanks' }]] } },
    });
    track(runtime);
    const { prompts, provider } = recordingProvider(() => [{ id: 'db', selected: ['SQLite'] }]);
    runtime.interaction.registerProvider(provider);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.strictEqual(prompts.length, 1);
    assert.strictEqual(prompts[0].agent?.id, root.id, 'the prompt names the asking agent');
    assert.deepStrictEqual(JSON.parse(toolResults(root)[0].content), { answers: [{ id: 'db', selected: ['SQLite'] }] });
    assert.ok(root.log.events.some((e) => e.type === 'question'));
  });

  it('a continuable child is unowned and may ask', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'kid', prompt: 'ask' } }] }, { text: 'started' }]] },
        kid: { turns: [[{ toolCalls: [{ name: 'ask_user_question', arguments: question }] }, { text: 'asked' }]] },
      },
    });
    track(runtime);
    const { prompts, provider } = recordingProvider(() => [{ id: 'db', selected: ['Postgres'] }]);
    runtime.interaction.registerProvider(provider);
    runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => prompts.length === 1, 'the continuable child to ask');
    assert.strictEqual(prompts[0].agent?.label, 'kid');
  });

  it('stopping a root while its question is open closes the prompt and ends the turn aborted', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [{ name: 'ask_user_question', arguments: question }] }, { text: 'never' }]] } },
    });
    track(runtime);
    let promptSignal: AbortSignal | undefined;
    runtime.interaction.registerProvider({ ask: (p) => ((promptSignal = p.signal), new Promise<Answer[]>(() => undefined)) });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState({ onEvent: runtime.interaction.onDidChangePending }, () => runtime.interaction.pending().length === 1, 'the question to be pending');
    runtime.stop(root);
    assert.strictEqual(promptSignal?.aborted, true, 'the UI was told to close the prompt');
    await root.whenIdle();
    assert.deepStrictEqual(reasons(root), ['aborted:user']);
    assert.strictEqual(runtime.interaction.pending().length, 0);
  });

  it('an unattended run never sees ask_user_question and never opens UI', async () => {
    const { runtime, calls } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [{ name: 'ask_user_question', arguments: question }] }, { text: 'assumed Postgres' }]] } },
    });
    track(runtime);
    const { prompts, provider } = recordingProvider(() => []);
    runtime.interaction.registerProvider(provider);
    const root = runtime.startRoot({ prompt: 'go', label: 'main', context: { interactionMode: 'autonomous' } });
    await root.whenIdle();
    assert.ok(!calls[0].tools.some((t) => t.name === 'ask_user_question'));
    assert.match(calls[0].system, /BLOCKED/);
    assert.strictEqual(prompts.length, 0);
    assert.match(toolResults(root)[0].content, /TOOL_UNKNOWN/);
    assert.strictEqual(root.log.header.interactionMode, 'autonomous');
  });

  it('an unknown explicit mode is a configuration error, never a fallback to interactive', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: {} });
    track(runtime);
    assert.throws(() => runtime.startRoot({ prompt: 'go', context: { interactionMode: 'sometimes' } }), (e: unknown) => isArborError(e, 'POLICY_INVALID'));
    assert.strictEqual(runtime.agents.size, 0);
  });

  it('plan mode offers read-only tools until exit_plan_mode is approved', async () => {
    const { runtime, calls } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [{ name: 'exit_plan_mode', arguments: { plan: '1. do it' } }] }, { toolCalls: [{ name: 'list_agents', arguments: {} }] }, { text: 'done' }]] } },
    });
    track(runtime);
    const { provider } = recordingProvider((p) => [{ id: p.questions[0].id, selected: ['Approve plan'] }]);
    runtime.interaction.registerProvider(provider);
    const root = runtime.startRoot({ prompt: 'go', label: 'main', planMode: true });
    await root.whenIdle();
    const first = calls[0].tools.map((t) => t.name);
    assert.ok(first.includes('exit_plan_mode') && first.includes('list_agents'));
    assert.ok(!first.includes('delegate_task') && !first.includes('start_subagent'), 'no writing tools in plan mode');
    const second = calls[1].tools.map((t) => t.name);
    assert.ok(second.includes('delegate_task') && !second.includes('exit_plan_mode'), 'approved: all tools');
    assert.strictEqual(root.planMode, false);
  });
});
