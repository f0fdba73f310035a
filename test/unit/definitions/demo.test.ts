import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents/agent';
import { definitionFileName, definitionTemplate, parseDefinitionFile } from '../../../src/core/definitions';
import type { InteractionPrompt } from '../../../src/core/interaction';
import { ScriptedModel } from '../../../src/core/models/scriptedModel';
import { Runtime } from '../../../src/core/runtime';
import type { Answer } from '../../../src/core/sessions/types';
import { builtinTools } from '../../../src/core/tools';
import { DEMO_LIMITS, DEMO_ROOT_LABEL, demoScript } from '../../../src/extension/demo/demoScript';
import { toolResults, until } from '../../support/runtimeFixture';

const KNOWN = new Set(builtinTools.map((t) => t.name));
const DEMO = path.join(__dirname, '..', '..', '..', 'demo');

describe('agent definitions in the demo and the new-definition template', () => {
  it('the template Arbor: New Agent Definition... writes is a definition that parses as it is', () => {
    const r = parseDefinitionFile({ file: `/w/.arbor/agents/${definitionFileName('Code Reviewer')}`, text: definitionTemplate('Code Reviewer'), format: 'arbor', scope: 'workspace' }, KNOWN);
    assert.ok(r.ok, r.ok ? '' : r.message);
    assert.equal(r.definition.name, 'Code Reviewer');
    assert.equal(definitionFileName('Code Reviewer'), 'code-reviewer.md');
  });

  it('the demo lead keeps a plan and delegates to the demo workspace\'s Reviewer by name, which may only read', async function () {
    this.timeout(60_000);
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-demo-defs-'));
    fs.cpSync(DEMO, workspace, { recursive: true });
    const file = path.join(workspace, '.arbor', 'agents', 'reviewer.md');
    const parsed = parseDefinitionFile({ file, text: fs.readFileSync(file, 'utf8'), format: 'arbor', scope: 'workspace' }, KNOWN);
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.message);
    const runtime = new Runtime({ model: new ScriptedModel(demoScript), workspace });
    runtime.definitions.replace([parsed.definition]);
    runtime.interaction.registerProvider({ ask: async (p: InteractionPrompt): Promise<Answer[]> => p.questions.map((q) => ({ id: q.id, selected: [q.options[0].label] })) });
    let reviewer: Agent | undefined;
    runtime.onEvent((e) => {
      if (e.type === 'agent_added' && e.agent.label === 'Reviewer') reviewer = e.agent;
    });
    const lead = runtime.startRoot({ prompt: 'Run the demo', label: DEMO_ROOT_LABEL, limits: DEMO_LIMITS });
    await until(() => lead.plan?.every((i) => i.status === 'done') === true, 'the lead to finish its plan', 30_000);
    assert.equal(reviewer?.definition?.file, file);
    assert.deepEqual(reviewer?.plan?.map((i) => i.status), ['done', 'in_progress']);
    assert.equal(toolResults(lead).find((r) => r.name === 'delegate_task' && r.content.startsWith('Review:'))?.content, 'Review: the error now says where prices come from. No problems found.');
    assert.equal(lead.plan?.length, 4);
    await runtime.dispose();
    fs.rmSync(workspace, { recursive: true, force: true });
  });
});
