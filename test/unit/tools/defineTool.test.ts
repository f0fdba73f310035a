import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { builtinTools, defineTool, type RuntimeTool } from '../../../src/core/tools';
import { makeRuntime, reasons, toolResults } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';

describe('defineTool', () => {
  const track = disposeAfterEach();
  it('makes a tool the runtime takes as it is: arguments typed from the schema, the caller in ctx, hidden in plan mode unless read-only', async () => {
    const seen: string[] = [];
    const shout = defineTool({
      name: 'shout',
      description: 'Repeat a word in capitals.',
      schema: () => z.object({ word: z.string().min(1) }),
      run(args, ctx) {
        seen.push(`${ctx.agent.label}:${args.word.toUpperCase()}`);
        return { content: args.word.toUpperCase() };
      },
    });
    assert.equal(shout.readOnly, false, 'a tool changes things unless it says it only reads');
    const tools: RuntimeTool[] = [shout];
    const { runtime, calls } = makeRuntime(
      { version: 1, agents: { main: { turns: [[{ toolCalls: [{ name: 'shout', arguments: { word: 'tree' } }] }, { text: 'done' }]] }, planner: { turns: [[{ text: 'nothing to change' }]] } } },
      { tools },
    );
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    await agent.whenIdle();
    assert.deepEqual(seen, ['main:TREE']);
    assert.deepEqual(reasons(agent), ['completed']);
    assert.deepEqual(toolResults(agent).map((r) => r.content), ['TREE']);
    const planner = runtime.startRoot({ prompt: 'plan', label: 'planner', planMode: true });
    await planner.whenIdle();
    assert.ok(!calls.at(-1)!.tools.some((t) => t.name === 'shout'), 'plan mode offers read-only tools only');
  });

  it('the built-in tool list holds every tool the runtime offers by default, each once', () => {
    const names = builtinTools.map((t) => t.name);
    assert.deepEqual(names, [
      'delegate_task', 'start_subagent', 'send_message', 'list_agents', 'interrupt_agent', 'ask_user_question', 'exit_plan_mode', 'run_command',
      'read_file', 'list_files', 'search_text', 'get_diagnostics', 'edit_file', 'create_file', 'wait', 'update_plan',
    ]);
  });
});
