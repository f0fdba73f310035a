import * as assert from 'node:assert/strict';
import { parseDefinitionFile } from '../../../src/core/definitions';
import { builtinTools } from '../../../src/core/tools';
import { presentAgent } from '../../../src/extension/agents/agentPresentation';
import { renderTranscript } from '../../../src/extension/conversation/transcriptRenderer';
import { childByLabel, makeRuntime, until } from '../../support/runtimeFixture';

const update = (...statuses: string[]) => ({
  name: 'update_plan',
  arguments: { items: ['read the code', 'writing tests', 'run them'].map((step, i) => ({ step, status: statuses[i] })) },
});

describe('a node shows its definition and its plan', () => {
  it('the description says where the plan is, the tooltip has the checklist and the definition\'s file, and the transcript both', async () => {
    const parsed = parseDefinitionFile(
      { file: '/w/.arbor/agents/tester.md', text: '---\nname: Tester\ndescription: Writes tests.\n---\nWrite tests.\n', format: 'arbor', scope: 'workspace' },
      new Set(builtinTools.map((t) => t.name)),
    );
    assert.ok(parsed.ok);
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { agent: 'Tester', label: 'unit tests', prompt: 'x' } }] }, { text: 'started' }]] },
        'unit tests': { turns: [[{ toolCalls: [update('done', 'in_progress', 'pending')] }, { hang: true }]] },
      },
    });
    runtime.definitions.replace([parsed.definition]);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => runtime.agents.size === 2 && root.status === 'idle', 'the child to start');
    const kid = childByLabel(runtime, 'unit tests');
    await until(() => kid.plan !== undefined, 'the plan');
    const shown = presentAgent({ agent: kid, waiting: false, treeTokens: 0, descendants: 0, now: Date.now() });
    assert.match(shown.description, /^continuable · Tester · .* · 1\/3 · writing tests · /);
    assert.match(shown.tooltip, /- Definition: \*\*Tester\*\* from `\/w\/\.arbor\/agents\/tester\.md`/);
    assert.match(shown.tooltip, /\*\*Plan\*\* \(1\/3 · writing tests\)\n\n- ☑ read the code\n- ▶ writing tests\n- ☐ run them/);
    const transcript = renderTranscript(kid.log.header, kid.log.events, { status: 'running' });
    assert.match(transcript, /definition "Tester" \(\/w\/\.arbor\/agents\/tester\.md\)/);
    assert.match(transcript, /\*\*Plan:\*\*\n\n- \[x\] read the code\n- \[ \] writing tests _\(in progress\)_\n- \[ \] run them/);
    const plain = presentAgent({ agent: root, waiting: false, treeTokens: 0, descendants: 1, now: Date.now() });
    assert.doesNotMatch(plain.tooltip, /Definition:|\*\*Plan\*\*/, 'an agent without either shows neither');
    await runtime.dispose();
  });
});
