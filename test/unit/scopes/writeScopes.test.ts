import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents';
import type { ModelScript } from '../../../src/core/models';
import { parseDefinitionFile } from '../../../src/core/definitions';
import { approver, makeRuntime, recordingModel, toolResults } from '../../support/runtimeFixture';
import { Runtime } from '../../../src/core/runtime';
import { CommandSandbox, type SandboxPlan } from '../../../src/core/sandbox';

type Call = { name: string; arguments: Record<string, unknown> };
const turn = (...calls: Call[]) => [...calls.map((c) => ({ toolCalls: [c] })), { text: 'done' }];

describe('write scopes: the edit tools', () => {
  let workspace: string;
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-scopes-'));
    fs.mkdirSync(path.join(workspace, 'src'));
    fs.writeFileSync(path.join(workspace, 'src/a.ts'), 'export const a = 1;\n');
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  async function play(script: ModelScript) {
    const { runtime } = makeRuntime(script, { workspace });
    await runtime.approvals.rules.remember({ kind: 'edit', pattern: '**' }, 'workspace');
    const { prompts, provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    const made: Agent[] = [];
    runtime.onEvent((e) => {
      if (e.type === 'agent_added') made.push(e.agent);
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'lead' });
    await root.whenIdle();
    const byLabel = (label: string) => made.find((a) => a.label === label)!;
    return { runtime, root, prompts, byLabel };
  }

  it('refuses an edit outside the scope with SCOPE_VIOLATION (path, scope, who set it) at once, and lets one inside through', async () => {
    const { runtime, root, prompts, byLabel } = await play({
      version: 1,
      agents: {
        lead: { turns: [turn({ name: 'edit_file', arguments: { path: 'src/a.ts', old_text: '1', new_text: '2' } }, { name: 'delegate_task', arguments: { label: 'worker', prompt: 'fix a', scope: ['src/**'] } })] },
        worker: {
          turns: [
            turn(
              { name: 'edit_file', arguments: { path: 'src/a.ts', old_text: '2', new_text: '3' } },
              { name: 'create_file', arguments: { path: 'docs/notes.md', content: 'x' } },
              { name: 'create_file', arguments: { path: 'README.md', content: 'x' } },
            ),
          ],
        },
      },
    });
    const worker = toolResults(byLabel('worker'));
    // The lead changed src/a.ts, but it is the worker's own parent: no overlap.
    assert.strictEqual(JSON.parse(worker[0].content).status, 'edited');
    for (const [i, file] of [[1, 'docs/notes.md'], [2, 'README.md']] as const) {
      const refused = JSON.parse(worker[i].content);
      assert.strictEqual(refused.code, 'SCOPE_VIOLATION');
      assert.strictEqual(refused.details.path, file);
      assert.deepStrictEqual(refused.details.scope, [['src/**']]);
      assert.deepStrictEqual(refused.details.setBy, [`delegation by "lead" (${root.id})`]);
      assert.match(refused.message, /outside the scope of "worker" \(src\/\*\*\), set by delegation by "lead"/);
    }
    assert.ok(!fs.existsSync(path.join(workspace, 'docs/notes.md')) && !fs.existsSync(path.join(workspace, 'README.md')));
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'src/a.ts'), 'utf8'), 'export const a = 3;\n');
    assert.strictEqual(prompts.length, 0, 'nothing was asked');
    await runtime.dispose();
  });

  it('narrows a wider request into the parent\'s scope, and the tool result says so', async () => {
    const { runtime, byLabel } = await play({
      version: 1,
      agents: {
        lead: { turns: [turn({ name: 'delegate_task', arguments: { label: 'mid', prompt: 'work', scope: ['src/**'] } })] },
        mid: { turns: [turn({ name: 'delegate_task', arguments: { label: 'leaf', prompt: 'work', scope: ['**', 'docs/**'] } })] },
        leaf: { turns: [turn({ name: 'create_file', arguments: { path: 'docs/x.md', content: 'x' } }, { name: 'create_file', arguments: { path: 'src/b.ts', content: 'x' } })] },
      },
    });
    const mid = toolResults(byLabel('mid'));
    assert.match(mid[0].content, /\[Arbor\] Its scope: src\/\*\*\. Not inside your own scope, so narrowed into it: \*\*, docs\/\*\*\./);
    const leaf = toolResults(byLabel('leaf'));
    assert.strictEqual(JSON.parse(leaf[0].content).code, 'SCOPE_VIOLATION');
    assert.strictEqual(JSON.parse(leaf[1].content).status, 'created');
    await runtime.dispose();
  });

  it('start_subagent reports the effective scope and the narrowing; a bad glob starts nothing', async () => {
    const { runtime, root, byLabel } = await play({
      version: 1,
      agents: {
        lead: { turns: [turn({ name: 'delegate_task', arguments: { label: 'mid', prompt: 'work', scope: ['src/**'] } }, { name: 'start_subagent', arguments: { label: 'bad', prompt: 'x', scope: ['../etc/**'] } })] },
        mid: { turns: [turn({ name: 'start_subagent', arguments: { label: 'kid', prompt: 'work', scope: ['src/kid/**', '*.md'] } })] },
        kid: { turns: [[{ text: 'ok' }]] },
      },
    });
    const started = JSON.parse(toolResults(byLabel('mid'))[0].content);
    assert.deepStrictEqual(started.scope, ['src/kid/**', 'src/** and **/*.md']);
    assert.match(started.scope_narrowed, /\*\*\/\*\.md/);
    const bad = JSON.parse(toolResults(root)[1].content);
    assert.strictEqual(bad.code, 'PATH_OUTSIDE_WORKSPACE');
    assert.ok(!runtime.agents.all().some((a) => a.label === 'bad'));
    await runtime.dispose();
  });

  it('an agent definition\'s scope: bounds the agent it starts, inside the delegation\'s', async () => {
    const parsed = parseDefinitionFile({ file: '/w/.arbor/agents/docs.md', text: '---\ndescription: writes docs\nscope: ["docs/**"]\n---\nWrite docs.', format: 'arbor', scope: 'workspace' }, new Set());
    if (!parsed.ok) throw new Error(parsed.message);
    assert.deepStrictEqual(parsed.definition.writeScope, ['docs/**']);
    const refused = parseDefinitionFile({ file: '/w/.arbor/agents/bad.md', text: '---\ndescription: x\nscope: ["../up/**"]\n---\nx', format: 'arbor', scope: 'workspace' }, new Set());
    assert.ok(!refused.ok);
    const { runtime } = makeRuntime({ version: 1, agents: { docs: { turns: [turn({ name: 'create_file', arguments: { path: 'src/x.ts', content: 'x' } })] } } }, { workspace });
    runtime.definitions.replace([parsed.definition]);
    const root = runtime.startRoot({ prompt: 'go', definition: parsed.definition });
    assert.deepStrictEqual(runtime.writes.scopeOf(root)?.setBy, ['definition "docs" (/w/.arbor/agents/docs.md)']);
    assert.strictEqual(runtime.writes.guard.envelopeLines(root, (x) => x), '\n\n- May change: docs/** (scope set by definition "docs" (/w/.arbor/agents/docs.md); commands are not file-aware)');
    await root.whenIdle();
    assert.strictEqual(JSON.parse(toolResults(root)[0].content).code, 'SCOPE_VIOLATION');
    await runtime.dispose();
  });
});

describe('write scopes: the command sandbox', () => {
  let workspace: string;
  beforeEach(() => {
    workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-scoped-sandbox-')));
    fs.mkdirSync(path.join(workspace, 'src/parser'), { recursive: true });
    fs.mkdirSync(path.join(workspace, 'docs'));
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  it('a scoped agent\'s commands may write only in the folders its scope names; an unscoped one in its run folder', async () => {
    const planned: string[][] = [];
    // Records the folders each command would be allowed to write, and runs it unsandboxed.
    class RecordingSandbox extends CommandSandbox {
      override plan(folders: readonly string[]): Promise<SandboxPlan> {
        planned.push([...folders]);
        return Promise.resolve({ kind: 'unsandboxed', reason: 'a test sandbox' });
      }
    }
    const run = { name: 'run_command', arguments: { command: 'true' } };
    const { model } = recordingModel({
      version: 1,
      agents: {
        lead: { turns: [turn(run, { name: 'delegate_task', arguments: { label: 'narrow', prompt: 'x', scope: ['src/parser/**', 'docs/*.md', 'missing/**'] } }, { name: 'delegate_task', arguments: { label: 'wide', prompt: 'x', scope: ['**/*.md'] } })] },
        narrow: { turns: [turn(run)] },
        wide: { turns: [turn(run)] },
      },
    });
    const runtime = new Runtime({ model, workspace, sandbox: new RecordingSandbox() });
    const root = runtime.startRoot({ prompt: 'go', label: 'lead', context: { nonInteractive: true } });
    await root.whenIdle();
    assert.deepStrictEqual(planned, [[workspace], [path.join(workspace, 'src/parser'), path.join(workspace, 'docs')], [workspace]]);
    await runtime.dispose();
  });
});
