import * as assert from 'node:assert/strict';
import { parseDefinitionFile, type AgentDefinition } from '../../../src/core/definitions';
import { startExternalAgentTool, type ExternalStartOptions } from '../../../src/core/external';
import { builtinTools } from '../../../src/core/tools';
import { testAgentConfig } from '../../support/acpTestAgent';
import { makeRuntime } from '../../support/runtimeFixture';

const KNOWN = new Set(builtinTools.map((t) => t.name));
const def = (frontmatter: string): AgentDefinition => {
  const r = parseDefinitionFile({ file: '/w/.arbor/agents/x.md', text: `---\n${frontmatter}\n---\nFollow the house style.\n`, format: 'arbor', scope: 'workspace' }, KNOWN);
  if (!r.ok) throw new Error(r.message);
  return r.definition;
};

describe('agent definitions: start_external_agent', () => {
  it('gives the external agent the definition\'s instructions before the task and its name, and refuses one it could not be held to', async () => {
    const { runtime, calls } = makeRuntime({ version: 1, agents: { lead: { turns: [[{ text: 'ok' }]] }, Styler: { turns: [[{ text: 'styled' }]] } } });
    runtime.definitions.replace([def('name: Styler\ndescription: Applies the house style.'), def('name: Bounded\ndescription: d\ntools: [read_file]')]);
    const started: ExternalStartOptions[] = [];
    // In place of the external process: a continuable child on the scripted model, started as the tool asks.
    const tool = startExternalAgentTool(runtime, { list: () => [testAgentConfig()], secrets: async () => ({}) }, (rt, parent, options) => {
      started.push(options);
      return rt.startContinuable(parent, options.label ?? options.config.name, options.prompt, undefined, options.definition);
    });
    runtime.registerTool(tool);
    const lead = runtime.startRoot({ prompt: 'x', label: 'lead' });
    await lead.whenIdle();
    assert.match(calls[0].tools.find((t) => t.name === 'start_external_agent')!.description, /Pass definition: "<name>".*"Styler": Applies the house style\./);
    const ctx = { agent: lead } as Parameters<typeof tool.run>[1];
    const ok = await tool.run({ agent: 'Test Agent', task: 'Tidy src/a.ts', definition: 'styler' }, ctx);
    const child = JSON.parse(ok.content);
    assert.deepEqual({ ...child, agent_id: undefined }, { agent_id: undefined, label: 'Styler', external_agent: 'Test Agent', definition: 'Styler', status: 'started' });
    assert.equal(runtime.agents.get(child.agent_id)?.log.header.definition?.name, 'Styler', 'its session records the definition');
    assert.equal(started[0].prompt, 'Follow the house style.\n\n---\n\nTidy src/a.ts');
    assert.equal(started[0].definition?.name, 'Styler');
    const refused = await tool.run({ agent: 'Test Agent', task: 't', definition: 'Bounded' }, ctx);
    assert.equal(refused.isError, true);
    assert.equal(JSON.parse(refused.content).code, 'DEFINITION_INVALID');
    assert.match(JSON.parse(refused.content).message, /"Bounded" sets tools, which an external agent .* cannot be held to/);
    assert.equal(started.length, 1, 'nothing was started for the refused definition');
    await runtime.dispose();
  });
});
