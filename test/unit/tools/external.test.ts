import * as assert from 'assert';
import { MemoryApprovalRuleStore, type InteractionPrompt } from '../../../src/core/interaction';
import { Runtime } from '../../../src/core/runtime';
import type { Answer } from '../../../src/core/sessions/types';
import { externalTool, type ExternalToolArgs } from '../../../src/core/tools';
import { reasons, recordingModel, toolResults, until } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const ECHO_SCHEMA = { type: 'object', properties: { text: { type: 'string', description: 'What to echo' } }, required: ['text'] };

/** An "echo" tool from another extension that records its calls; `hang` makes it wait for its signal. */
function echoTool(options: { hang?: boolean } = {}) {
  const calls: ExternalToolArgs[] = [];
  const aborted: unknown[] = [];
  const tool = externalTool({
    name: 'echo',
    description: 'Echo text back.',
    inputSchema: ECHO_SCHEMA,
    invoke(input, signal) {
      calls.push(input);
      if (!options.hang) return Promise.resolve(`echo: ${String(input.text)}`);
      return new Promise<string>(() => signal.addEventListener('abort', () => aborted.push(signal.reason), { once: true }));
    },
  });
  return { tool: tool, calls, aborted };
}

function answering(choice: string) {
  const prompts: InteractionPrompt[] = [];
  return { prompts, provider: { ask: (p: InteractionPrompt): Promise<Answer[]> => (prompts.push(p), Promise.resolve([{ id: p.questions[0].id, selected: [choice] }])) } };
}

const callEcho = (args: string | Record<string, unknown>) => ({ version: 1 as const, agents: { main: { turns: [[{ toolCalls: [{ name: 'echo', arguments: args }] }, { text: 'done' }]] } } });

function runtimeWith(script: ReturnType<typeof callEcho>, rules = new MemoryApprovalRuleStore()) {
  const { model, calls } = recordingModel(script);
  return { runtime: new Runtime({ model, approvalRules: rules }), modelCalls: calls };
}

describe('tools from other extensions (externalTool)', () => {
  const track = disposeAfterEach();
  it("the model sees the tool under its own name with its own JSON Schema, and an approved call's text is the result", async () => {
    const { runtime, modelCalls } = runtimeWith(callEcho({ text: 'hi' }));
    track(runtime);
    const echo = echoTool();
    runtime.registerTool(echo.tool);
    const { prompts, provider } = answering('Allow once');
    runtime.interaction.registerProvider(provider);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    const spec = modelCalls[0].tools?.find((t) => t.name === 'echo');
    assert.deepStrictEqual(spec?.parameters, ECHO_SCHEMA);
    assert.strictEqual(prompts.length, 1);
    assert.match(prompts[0].questions[0].question, /use a tool from another extension/);
    assert.strictEqual(prompts[0].detail, `echo ${JSON.stringify({ text: 'hi' }, null, 2)}`, 'the whole input is shown');
    assert.deepStrictEqual(echo.calls, [{ text: 'hi' }]);
    assert.deepStrictEqual(toolResults(root)[0], { name: 'echo', content: 'echo: hi', isError: undefined });
  });

  it('an unattended run is denied the tool without a prompt unless a "tool:" rule allows it', async () => {
    const denied = runtimeWith(callEcho({ text: 'hi' }));
    track(denied.runtime);
    const echo = echoTool();
    denied.runtime.registerTool(echo.tool);
    const { prompts, provider } = answering('Allow once');
    denied.runtime.interaction.registerProvider(provider);
    const root = denied.runtime.startRoot({ prompt: 'go', label: 'main', context: { interactionMode: 'scheduled' } });
    await root.whenIdle();
    const result = JSON.parse(toolResults(root)[0].content);
    assert.deepStrictEqual([result.code, result.subject, result.rule_that_would_allow], ['APPROVAL_DENIED', 'echo', 'tool: echo']);
    assert.strictEqual(echo.calls.length, 0);
    assert.strictEqual(prompts.length, 0);
    await denied.runtime.dispose();

    const allowed = runtimeWith(callEcho({ text: 'hi' }), new MemoryApprovalRuleStore([{ kind: 'tool', pattern: 'ec*', scope: 'user' }]));
    track(allowed.runtime);
    const echo2 = echoTool();
    allowed.runtime.registerTool(echo2.tool);
    const root2 = allowed.runtime.startRoot({ prompt: 'go', label: 'main', context: { interactionMode: 'scheduled' } });
    await root2.whenIdle();
    assert.strictEqual(toolResults(root2)[0].content, 'echo: hi');
  });

  it('Stop cancels the invocation and ends the turn even when the tool never answers', async () => {
    const { runtime } = runtimeWith(callEcho({ text: 'slow' }), new MemoryApprovalRuleStore([{ kind: 'tool', pattern: 'echo', scope: 'workspace' }]));
    track(runtime);
    const echo = echoTool({ hang: true });
    runtime.registerTool(echo.tool);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => echo.calls.length === 1, 'the invocation');
    runtime.stop(root);
    await whenState(runtime, () => reasons(root).length === 1, 'the turn to end');
    assert.deepStrictEqual(reasons(root), ['aborted:user']);
    assert.strictEqual(echo.aborted.length, 1, 'the tool saw the cancellation');
  });

  it('arguments that are not a JSON object never reach the tool', async () => {
    const { runtime } = runtimeWith(callEcho('["not", "an", "object"]'), new MemoryApprovalRuleStore([{ kind: 'tool', pattern: 'echo', scope: 'workspace' }]));
    track(runtime);
    const echo = echoTool();
    runtime.registerTool(echo.tool);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.match(toolResults(root)[0].content, /TOOL_ARGUMENTS_INVALID/);
    assert.strictEqual(echo.calls.length, 0);
  });

  it("a tool's failure is an error result naming it, and the turn goes on", async () => {
    const { runtime } = runtimeWith(callEcho({ text: 'x' }), new MemoryApprovalRuleStore([{ kind: 'tool', pattern: 'echo', scope: 'workspace' }]));
    track(runtime);
    const failing = externalTool({ name: 'echo', description: 'd', inputSchema: undefined, invoke: () => Promise.reject(new Error('server down')) });
    runtime.registerTool(failing);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.match(toolResults(root)[0].content, /TOOL_FAILED.*The tool echo failed: server down/);
    assert.deepStrictEqual(reasons(root), ['completed']);
  });

  it('a registered tool cannot take a name already in use, and disposing it withdraws only that tool', async () => {
    const { runtime } = runtimeWith(callEcho({}));
    track(runtime);
    assert.throws(() => runtime.registerTool(externalTool({ name: 'run_command', description: 'shadow', inputSchema: {}, invoke: () => Promise.resolve('') })), /defined twice/);
    const first = runtime.registerTool(echoTool().tool);
    const root = runtime.startRoot({ prompt: 'go', label: 'main', planMode: false });
    assert.ok(runtime.toolSpecs(root).some((t) => t.name === 'echo'));
    first.dispose();
    assert.ok(!runtime.toolSpecs(root).some((t) => t.name === 'echo'));
    const second = runtime.registerTool(echoTool().tool);
    track(second);
    first.dispose();
    assert.ok(runtime.toolSpecs(root).some((t) => t.name === 'echo'), "a stale handle does not withdraw the new tool");
  });
});
