import * as assert from 'node:assert/strict';
import type { Agent } from '../../../src/core/agents/agent';
import { parseDefinitionFile, type AgentDefinition } from '../../../src/core/definitions';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { ScriptedModel } from '../../../src/core/models/scriptedModel';
import type { ModelRequest } from '../../../src/core/models/types';
import { Runtime } from '../../../src/core/runtime';
import { builtinTools } from '../../../src/core/tools';
import { recordingModel, toolResults } from '../../support/runtimeFixture';

const KNOWN = new Set(builtinTools.map((t) => t.name));

function definition(frontmatter: string, body = 'Review what you are given; change nothing.'): AgentDefinition {
  const r = parseDefinitionFile({ file: '/w/.arbor/agents/def.md', text: `---\n${frontmatter}\n---\n${body}\n`, format: 'arbor', scope: 'workspace' }, KNOWN);
  if (!r.ok) throw new Error(r.message);
  return r.definition;
}

const REVIEWER = definition('name: Reviewer\ndescription: Reviews a change for bugs.\ntools: [read_file, "list_*", update_plan]\nlimits: { maxStepsPerTurn: 3 }');

/** A runtime on a recording scripted model; every agent it made is kept, one-shots included. */
function setup(script: ModelScript, options: { resolveModel?: (id: string) => ScriptedModel | undefined } = {}) {
  const { model, calls } = recordingModel(script);
  let n = 0;
  const runtime = new Runtime({ model, newId: (label) => `${label}#${++n}`, resolveModel: options.resolveModel });
  const made: Agent[] = [];
  runtime.onEvent((e) => {
    if (e.type === 'agent_added') made.push(e.agent);
  });
  const named = (label: string): Agent => {
    const found = made.find((a) => a.label === label);
    if (!found) throw new Error(`no agent labelled ${label}`);
    return found;
  };
  const callsOf = (label: string): ModelRequest[] => calls.filter((c) => c.agentLabel === label);
  return { runtime, named, callsOf, made: () => made };
}

const delegate = (args: Record<string, unknown>) => ({ name: 'delegate_task', arguments: args });

describe('agent definitions: enforced, not advisory', () => {
  it('a lead delegates by name: the child is named after the definition, sees only its tools, gets its instructions, and a call outside them is refused naming the definition', async () => {
    const { runtime, named, callsOf } = setup({
      version: 1,
      agents: {
        lead: { turns: [[{ toolCalls: [delegate({ agent: 'reviewer', prompt: 'Review src/a.ts' })] }, { text: 'done' }]] },
        Reviewer: { turns: [[{ toolCalls: [{ name: 'edit_file', arguments: { path: 'a.ts', old: 'a', new: 'b' } }, { name: 'list_agents', arguments: {} }] }, { text: 'reviewed' }]] },
      },
    });
    runtime.definitions.replace([REVIEWER]);
    const lead = runtime.startRoot({ prompt: 'go', label: 'lead' });
    await lead.whenIdle();
    const child = named('Reviewer');
    assert.equal(child.definition, REVIEWER);
    assert.deepEqual(child.log.header.definition, { name: 'Reviewer', file: '/w/.arbor/agents/def.md' });
    const offered = callsOf('Reviewer')[0].tools.map((t) => t.name);
    assert.deepEqual(offered, ['list_agents', 'read_file', 'list_files', 'update_plan']);
    assert.match(callsOf('Reviewer')[0].system, /You are the agent "Reviewer", defined in \/w\/\.arbor\/agents\/def\.md\. Its instructions:\n\nReview what you are given; change nothing\./);
    const [edit, list] = toolResults(child);
    assert.equal(edit.isError, true);
    assert.equal(JSON.parse(edit.content).code, 'TOOL_NOT_ALLOWED');
    assert.match(JSON.parse(edit.content).message, /"edit_file" is not allowed for the agent definition "Reviewer" \(\/w\/\.arbor\/agents\/def\.md\); its tools are: read_file, list_\*, update_plan/);
    assert.notEqual(list.isError, true, 'a tool its glob allows runs');
    assert.deepEqual(toolResults(lead).map((r) => r.content), ['reviewed']);
    await runtime.dispose();
  });

  it('the delegation tools list the definitions (name, when to use it, how best to start it) and take `agent`', async () => {
    const { runtime, callsOf } = setup({ version: 1, agents: { lead: { turns: [[{ text: 'ok' }], [{ text: 'ok' }]] } } });
    const lead = runtime.startRoot({ prompt: 'go', label: 'lead' });
    await lead.whenIdle();
    runtime.definitions.replace([REVIEWER, definition('name: Tester\ndescription: Writes tests.\nkind: continuable')]);
    runtime.sendFromUser(lead, 'again');
    await lead.whenIdle();
    const [before, after] = callsOf('lead').map((c) => new Map(c.tools.map((t) => [t.name, t])));
    assert.doesNotMatch(before.get('delegate_task')!.description, /Reviewer/);
    for (const tool of ['delegate_task', 'start_subagent']) {
      const text = after.get(tool)!.description;
      assert.match(text, /"Reviewer": Reviews a change for bugs\./);
      assert.match(text, /"Tester" \(best started with start_subagent\): Writes tests\./);
      assert.ok('agent' in (after.get(tool)!.parameters.properties as object));
    }
    assert.doesNotMatch(after.get('send_message')!.description, /Reviewer/);
    await runtime.dispose();
  });

  it('an unknown definition name is a typed error naming those there are, and no child is made', async () => {
    const { runtime, named } = setup({ version: 1, agents: { lead: { turns: [[{ toolCalls: [delegate({ agent: 'Nobody', prompt: 'x' })] }, { text: 'done' }]] } } });
    runtime.definitions.replace([REVIEWER]);
    const lead = runtime.startRoot({ prompt: 'go', label: 'lead' });
    await lead.whenIdle();
    const error = JSON.parse(toolResults(lead)[0].content);
    assert.equal(error.code, 'DEFINITION_UNKNOWN');
    assert.match(error.message, /no agent definition named "Nobody"\. Definitions: Reviewer\./);
    assert.throws(() => named('Nobody'));
    await runtime.dispose();
  });

  it('the definition\'s limits apply to that agent: its turn ends at its step limit, saying so', async () => {
    const { runtime, named } = setup({
      version: 1,
      agents: {
        lead: { turns: [[{ toolCalls: [delegate({ agent: 'Reviewer', prompt: 'loop' })] }, { text: 'done' }]] },
        Reviewer: { turns: [{ steps: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'x' } }] }], loop: true }] },
      },
    });
    runtime.definitions.replace([REVIEWER]);
    const lead = runtime.startRoot({ prompt: 'go', label: 'lead' });
    await lead.whenIdle();
    assert.equal(named('Reviewer').lastTurnEnd?.reason, 'budget');
    assert.equal(named('Reviewer').lastTurnEnd?.message, 'the agent definition "Reviewer" allows a turn at most 3 model calls');
    assert.equal(toolResults(named('Reviewer')).length, 3);
    assert.match(toolResults(lead)[0].content, /"status":"budget"/);
    await runtime.dispose();
  });

  it('a definition can only tighten a limit: the run\'s tighter limit still wins', async () => {
    const loose = definition('name: Loose\ndescription: d\nlimits: { maxStepsPerTurn: 500 }');
    const { model } = recordingModel({ version: 1, agents: { Loose: { turns: [{ steps: [{ toolCalls: [{ name: 'wait', arguments: { seconds: 0.05 } }] }], loop: true }] } } });
    const runtime = new Runtime({ model, limits: { maxStepsPerTurn: 2 } });
    runtime.definitions.replace([loose]);
    const root = runtime.startRoot({ prompt: 'go', definition: loose });
    await root.whenIdle();
    assert.equal(root.label, 'Loose');
    assert.equal(root.lastTurnEnd?.message, 'a turn may make at most 2 model calls');
    await runtime.dispose();
  });

  it('what a bounded agent delegates stays bounded: its child without a definition gets no tool its parent could not use', async () => {
    const lead = definition('name: Lead\ndescription: d\ntools: [delegate_task, read_file]');
    const { runtime, callsOf, named } = setup({
      version: 1,
      agents: {
        Lead: { turns: [[{ toolCalls: [delegate({ label: 'helper', prompt: 'help' })] }, { text: 'done' }]] },
        helper: { turns: [[{ toolCalls: [{ name: 'run_command', arguments: { command: 'rm -rf /' } }] }, { text: 'ok' }]] },
      },
    });
    runtime.definitions.replace([lead]);
    const root = runtime.startRoot({ prompt: 'go', definition: lead });
    await root.whenIdle();
    assert.deepEqual(callsOf('helper')[0].tools.map((t) => t.name), ['delegate_task', 'read_file']);
    assert.equal(JSON.parse(toolResults(named('helper'))[0].content).code, 'TOOL_NOT_ALLOWED');
    await runtime.dispose();
  });

  it('the definition\'s model is used when available, and a clear error names it when not', async () => {
    const fast = new ScriptedModel({ version: 1, agents: { '*': { turns: [[{ text: 'from the fast model' }]] } } });
    const { runtime, named } = setup(
      {
        version: 1,
        agents: {
          lead: {
            turns: [[{ toolCalls: [delegate({ agent: 'Quick', prompt: 'a' }), delegate({ agent: 'Missing', prompt: 'b' })] }, { text: 'done' }]],
          },
        },
      },
      { resolveModel: (id) => (id === 'fast' ? fast : undefined) },
    );
    runtime.definitions.replace([definition('name: Quick\ndescription: d\nmodel: fast'), definition('name: Missing\ndescription: d\nmodel: gpt-none')]);
    const lead = runtime.startRoot({ prompt: 'go', label: 'lead' });
    await lead.whenIdle();
    const [quick, missing] = toolResults(lead);
    assert.equal(quick.content, 'from the fast model');
    assert.equal(named('Quick').model, fast);
    const error = JSON.parse(missing.content);
    assert.equal(error.code, 'MODEL_UNAVAILABLE');
    assert.match(error.message, /"Missing" \(\/w\/\.arbor\/agents\/def\.md\) asks for the model "gpt-none", which is not available here/);
    assert.throws(() => named('Missing'), 'no child is made');
    await runtime.dispose();
  });

  it('an edit applies to agents started afterwards (a settled child woken again included), never to one already live', async () => {
    const { runtime, named, callsOf, made } = setup({
      version: 1,
      agents: {
        lead: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { agent: 'Reviewer', label: 'first', prompt: 'a' } }] }, { text: 'ok' }], [{ toolCalls: [{ name: 'start_subagent', arguments: { agent: 'Reviewer', label: 'second', prompt: 'b' } }] }, { text: 'ok' }]] },
        first: { turns: [[{ text: 'one' }], [{ text: 'one again' }]] },
        second: { turns: [[{ text: 'two' }]] },
      },
    });
    runtime.definitions.replace([REVIEWER]);
    const root = runtime.startRoot({ prompt: 'go', label: 'lead', definition: definition('name: Lead\ndescription: d\ntools: [start_subagent, read_file]') });
    await root.whenIdle();
    await named('first').whenIdle();
    runtime.definitions.replace([definition('name: Reviewer\ndescription: edited\ntools: [read_file]'), definition('name: Lead\ndescription: d\ntools: [read_file]')]);
    runtime.sendFromUser(root, 'again');
    await root.whenIdle();
    await named('second').whenIdle();
    await runtime.subagents.deliver(root, named('first').id, 'more');
    await named('first').whenIdle();
    const offered = (label: string, i: number) => callsOf(label)[i].tools.map((t) => t.name);
    assert.deepEqual(offered('lead', 2), ['start_subagent', 'read_file'], 'the live root keeps the definition it started with');
    assert.deepEqual(offered('first', 0), ['read_file'], 'the bounds are the tighter of the parent\'s and its own');
    assert.deepEqual(offered('second', 0), ['read_file']);
    const [started, woken] = made().filter((a) => a.label === 'first');
    assert.equal(started.definition?.description, 'Reviews a change for bugs.');
    assert.equal(woken.id, started.id, 'the settled child was woken with its conversation');
    assert.equal(woken.definition?.description, 'edited', 'woken after the edit, it runs under the definition as it is now');
    await runtime.dispose();
  });
});
