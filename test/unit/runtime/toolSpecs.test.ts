import * as assert from 'node:assert/strict';
import * as z from 'zod';
import { Runtime, type RuntimeTool } from '../../../src/core/runtime';
import { recordingModel } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';

const tool = (name: string, readOnly: boolean): RuntimeTool => ({ name, description: name, schema: () => z.object({}), readOnly, run: () => ({ content: 'ok' }) });
const names = (tools: readonly { name: string }[] | undefined): string[] => (tools ?? []).map((t) => t.name);

describe('the tools offered at each model call', () => {
  const track = disposeAfterEach();
  it('follow the tools as they are registered and withdrawn between calls, and each agent\'s plan mode', async () => {
    const script = { version: 1 as const, agents: { main: { turns: [[{ text: 'ok' }]], afterLastTurn: 'repeat-last' as const } } };
    const { model, calls } = recordingModel(script);
    const runtime = new Runtime({ model, tools: [tool('probe', true)] });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'one', label: 'main' });
    await agent.whenIdle();
    const planner = runtime.startRoot({ prompt: 'plan', label: 'main', planMode: true });
    await planner.whenIdle();
    const added = runtime.registerTool(tool('later', false));
    runtime.sendFromUser(agent, 'two');
    await agent.whenIdle();
    runtime.sendFromUser(planner, 'plan again');
    await planner.whenIdle();
    added.dispose();
    runtime.sendFromUser(agent, 'three');
    await agent.whenIdle();

    const [first, planned, second, plannedAgain, third] = calls.map((c) => names(c.tools));
    assert.ok(first.includes('probe') && !first.includes('later') && !first.includes('exit_plan_mode'), first.join());
    assert.ok(planned.includes('probe') && planned.includes('exit_plan_mode') && !planned.includes('delegate_task'), planned.join());
    assert.deepEqual(second, [...first, 'later']);
    assert.deepEqual(plannedAgain, planned, 'a tool that changes things is not offered in plan mode');
    assert.deepEqual(third, first);
  });
});
