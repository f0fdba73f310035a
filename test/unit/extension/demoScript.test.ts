import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents/agent';
import { DEFAULT_RUNAWAY, type BudgetEvent } from '../../../src/core/budgets';
import type { InteractionPrompt } from '../../../src/core/interaction';
import type { Answer } from '../../../src/core/sessions/types';
import { toolResults, until } from '../../support/runtimeFixture';
import { parseScript, type ModelScript } from '../../../src/core/models/scriptedModel';
import { Runtime } from '../../../src/core/runtime';
import { ScriptedModel } from '../../../src/core/models/scriptedModel';
import { MIN_WAIT_SECONDS } from '../../../src/core/tools';
import { DEMO_EDIT, DEMO_LIMITS, DEMO_ROOT_LABEL, demoScript } from '../../../src/extension/demo/demoScript';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

describe('the demo script', () => {
  const track = disposeAfterEach();
  it('is a valid script with the four demo agents', () => {
    const parsed = parseScript(demoScript);
    for (const label of [DEMO_ROOT_LABEL, 'Researcher', 'Watcher', 'Summarizer']) assert.ok(parsed.agents.get(label), label);
  });

  it("tells a user who runs their own task on the demo model how to run it for real", async () => {
    const runtime = new Runtime({ model: new ScriptedModel(demoScript) });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'Refactor the parser', label: 'My task' });
    await agent.whenIdle();
    assert.match(agent.lastTurnEnd!.finalText, /scripted demo model/);
    assert.match(agent.lastTurnEnd!.finalText, /"Refactor the parser"/);
    assert.match(agent.lastTurnEnd!.finalText, /Arbor: Select Model/);
  });
});

describe('the demo shows an edit', () => {
  const track = disposeAfterEach();
  let workspace: string;
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-demo-'));
    fs.cpSync(path.join(__dirname, '..', '..', '..', 'demo'), workspace, { recursive: true });
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  it('the lead finds, reads and edits src/shoppingList.js of the demo workspace once the edit is approved on its diff', async () => {
    const file = path.join(workspace, 'src', 'shoppingList.js');
    const before = fs.readFileSync(file, 'utf8');
    assert.ok(before.includes(DEMO_EDIT.oldText), 'the demo workspace holds the text the demo edits');
    const runtime = new Runtime({ model: new ScriptedModel(demoScript), workspace });
    track(runtime);
    const approvals: string[] = [];
    runtime.interaction.registerProvider({
      ask: async (p: InteractionPrompt): Promise<Answer[]> => {
        if (p.intent === 'approval') approvals.push(p.detail ?? '');
        return p.questions.map((q) => ({ id: q.id, selected: [q.options[0].label] }));
      },
    });
    const lead = runtime.startRoot({ prompt: 'Run the demo', label: DEMO_ROOT_LABEL });
    await whenState(runtime, () => toolResults(lead).some((r) => r.name === 'edit_file'), 'the demo edit', 20_000);
    assert.strictEqual(approvals.length, 1);
    assert.ok(approvals[0].includes(`+    if (price === undefined) ${DEMO_EDIT.newText}`), 'the approval shows the diff');
    assert.strictEqual(JSON.parse(toolResults(lead).find((r) => r.name === 'edit_file')!.content).status, 'edited');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), before.replace(DEMO_EDIT.oldText, DEMO_EDIT.newText));
    assert.match(toolResults(lead).find((r) => r.name === 'search_text')!.content, /^src\/shoppingList\.js:22:/);
  });
});

type Step = { delayMs?: number; toolCalls?: { name: string; arguments?: unknown }[] };

/**
 * The demo with its pauses cut short (each model delay to 10 ms at most, each wait to the
 * shortest): the runaway guards count calls and steps, never time, so they see the same demo,
 * only sooner.
 */
function hurried(script: ModelScript): ModelScript {
  const step = (s: Step): Step => ({
    ...s,
    ...(s.delayMs !== undefined ? { delayMs: Math.min(s.delayMs, 10) } : {}),
    ...(s.toolCalls ? { toolCalls: s.toolCalls.map((c) => (c.name === 'wait' ? { ...c, arguments: { seconds: MIN_WAIT_SECONDS } } : c)) } : {}),
  });
  const agents = Object.fromEntries(
    Object.entries(script.agents).map(([label, agent]) => [
      label,
      { ...agent, turns: agent.turns.map((turn) => (Array.isArray(turn) ? turn.map(step) : { ...turn, steps: turn.steps.map(step) })) },
    ]),
  );
  return { ...script, agents } as ModelScript;
}

describe('the demo warns about nothing', () => {
  const track = disposeAfterEach();
  let workspace: string;
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-demo-'));
    fs.cpSync(path.join(__dirname, '..', '..', '..', 'demo'), workspace, { recursive: true });
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  it('no agent of the demo trips a runaway guard, the Watcher polling past both default guards included', async () => {
    const runtime = new Runtime({ model: new ScriptedModel(hurried(demoScript)), workspace });
    track(runtime);
    runtime.interaction.registerProvider({ ask: async (p: InteractionPrompt): Promise<Answer[]> => p.questions.map((q) => ({ id: q.id, selected: [q.options[0].label] })) });
    const warnings: string[] = [];
    runtime.budgets.onEvent((e: BudgetEvent) => {
      if (e.type === 'runaway') warnings.push(`${e.agent.label}: ${e.reason}`);
    });
    const seen = new Set<Agent>();
    runtime.onEvent((e) => seen.add(e.agent));
    const lead = runtime.startRoot({ prompt: 'Run the demo', label: DEMO_ROOT_LABEL, limits: DEMO_LIMITS });
    const watcher = (): Agent | undefined => runtime.agents.childrenOf(lead).find((a) => a.label === 'Watcher');
    const checks = (): number => toolResults(watcher()!).filter((r) => r.name === 'list_agents').length;
    const past = Math.max(DEFAULT_RUNAWAY.sameCallRepeats, DEFAULT_RUNAWAY.stepsWithoutChange) + 2;
    await until(() => warnings.length > 0 || toolResults(lead).some((r) => r.name === 'edit_file'), 'the lead to reach its edit', 20_000);
    await until(() => warnings.length > 0 || (watcher() !== undefined && checks() >= past), `the Watcher to check ${past} times`, 30_000);
    assert.deepStrictEqual(warnings, []);
    assert.strictEqual(watcher()!.status, 'running', 'the Watcher is still polling');
    for (const agent of seen) assert.strictEqual(agent.run.budget.agentWarning(agent.id), undefined, agent.label);
  });
});
