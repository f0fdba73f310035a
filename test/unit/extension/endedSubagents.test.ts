import * as assert from 'assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents/agent';
import type { Runtime } from '../../../src/core/runtime';
import { presentEnded } from '../../../src/extension/agents/agentPresentation';
import { EndedSubagents, MAX_ENDED_PER_PARENT } from '../../../src/extension/agents/endedSubagents';
import { parseClearEndedArgument, parseSessionArgument } from '../../../src/extension/commandArguments';
import { childByLabel, makeRuntime } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

/** The records kept for `runtime`'s agents, and the parents whose lists changed, in order. */
function watchEnded(runtime: Runtime, enabled = true) {
  const changed: string[] = [];
  const ended = new EndedSubagents(runtime.agents, (parent) => changed.push(parent.label), enabled);
  runtime.onEvent((e) => ended.observe(e));
  return { ended, changed };
}

const labels = (ended: EndedSubagents, parent: Agent): string[] => ended.of(parent).map((n) => `${n.label}:${n.how}`);

/** The `when` clauses of package.json's Agents-view item menus, per command. */
function itemMenus(): Array<{ command: string; when: string }> {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as { contributes: { menus: Record<string, Array<{ command: string; when: string }>> } };
  return manifest.contributes.menus['view/item/context'].filter((m) => m.when.includes('view == arbor.agents'));
}

function menuMatches(when: string, contextValue: string): boolean {
  const regex = /viewItem =~ \/(.+)\/$/.exec(when);
  return regex ? new RegExp(regex[1]).test(contextValue) : false;
}

describe('ended subagents stay under their parent in the Agents view', () => {
  const track = disposeAfterEach();
  it('a one-shot that finished is kept under its live parent, small, saying it is done and what it used', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        Lead: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'Summarizer', prompt: 'sum up' } }] }, { hang: true }]] },
        Summarizer: { turns: [[{ text: 'the summary', usage: { inputTokens: 1200, outputTokens: 300 } }]] },
      },
    });
    track(runtime);
    const { ended, changed } = watchEnded(runtime);
    const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
    await whenState(runtime, () => ended.count(lead) === 1, 'the Summarizer to end');
    assert.deepStrictEqual(labels(ended, lead), ['Summarizer:done']);
    const node = ended.of(lead)[0];
    assert.deepStrictEqual(Object.keys(node).sort(), ['cost', 'creationOrder', 'how', 'id', 'kind', 'label', 'tokens', 'type'], 'nothing of its conversation is kept');
    assert.strictEqual(node.tokens, 1500);
    assert.strictEqual(node.kind, 'one-shot');
    assert.strictEqual(ended.parentOf(node), lead);
    assert.strictEqual(ended.parentOfId(node.id), lead);
    assert.deepStrictEqual(changed, ['Lead'], "the parent's row is the one to repaint");
    const shown = presentEnded(node);
    assert.strictEqual(shown.description, 'one-shot · ended: done · 1.5k tok');
    assert.strictEqual(shown.contextValue, 'ended:done:one-shot');
    assert.strictEqual(shown.icon, 'pass');
    assert.match(shown.tooltip, /until its parent ends or you clear it/);
  });

  it('an ended row offers no Stop, no Stop All Below and no agent action: only its transcript and Clear', () => {
    const contextValues = (['done', 'failed', 'stopped', 'cancelled', 'stopped at a run limit', 'paused', 'ended'] as const).flatMap((how) =>
      (['one-shot', 'continuable'] as const).map((kind) => presentEnded({ type: 'ended-subagent', id: 'x', label: 'x', kind, how, tokens: 0, cost: 0, creationOrder: 0 }).contextValue),
    );
    for (const contextValue of contextValues) {
      const offered = itemMenus()
        .filter((m) => menuMatches(m.when, contextValue))
        .map((m) => m.command);
      assert.deepStrictEqual([...new Set(offered)].sort(), ['arbor.clearEndedSubagents', 'arbor.openSessionTranscript'], contextValue);
    }
  });

  it('says how each ended: failed, cancelled with its holder, stopped by the user', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        Lead: {
          turns: [
            [{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'Broken', prompt: 'x' } }] }, { toolCalls: [{ name: 'delegate_task', arguments: { label: 'Slow', prompt: 'x' } }] }, { text: 'never' }],
            [{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Helper', prompt: 'x' } }] }, { text: 'started' }],
          ],
        },
        Broken: { turns: [[{ error: { message: 'the model broke' } }]] },
        Slow: { turns: [[{ hang: true }]] },
        Helper: { turns: [[{ hang: true }]] },
      },
    });
    track(runtime);
    const { ended } = watchEnded(runtime);
    const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
    await whenState(runtime, () => runtime.agents.all().some((a) => a.label === 'Slow' && a.status === 'running'), 'the second one-shot to run');
    runtime.stop(lead);
    await whenState(runtime, () => ended.count(lead) === 2 && lead.status === 'idle', 'the one-shot the stop cancelled to end');
    assert.deepStrictEqual(labels(ended, lead), ['Broken:failed', 'Slow:cancelled']);
    runtime.sendFromUser(lead, 'again');
    await whenState(runtime, () => runtime.agents.all().some((a) => a.label === 'Helper' && a.status === 'running') && lead.status === 'idle', 'the continuable to run');
    const helper = childByLabel(runtime, 'Helper');
    runtime.stop(helper);
    await helper.whenIdle();
    await runtime.end(helper);
    await whenState(runtime, () => ended.count(lead) === 3, 'the ended continuable to be kept');
    assert.deepStrictEqual(labels(ended, lead), ['Broken:failed', 'Slow:cancelled', 'Helper:stopped']);
  });

  it('goes when its parent ends: the parent itself is then kept under its own parent, without its list', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        Lead: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Mid', prompt: 'x' } }] }, { hang: true }]] },
        Mid: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'Leaf', prompt: 'x' } }] }, { text: 'mid done' }]] },
        Leaf: { turns: [[{ text: 'leaf done' }]] },
      },
    });
    track(runtime);
    const { ended } = watchEnded(runtime);
    const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
    let mid: Agent | undefined;
    runtime.onEvent((e) => {
      if (e.type === 'agent_removed' && e.agent.label === 'Leaf') mid = runtime.agents.parentOf(e.agent) ?? e.parent;
    });
    // Mid settles once its one-shot Leaf is done and it has reported: it becomes Lead's record.
    await whenState(runtime, () => ended.count(lead) === 1, 'Mid to settle');
    assert.deepStrictEqual(labels(ended, lead), ['Mid:done']);
    assert.ok(mid, 'Leaf ended under Mid');
    assert.strictEqual(ended.count(mid), 0, "Mid's own records went with it");
    const midId = ended.of(lead)[0].id;
    await runtime.end(lead);
    assert.strictEqual(ended.count(lead), 0, "the root's records went with it");
    assert.strictEqual(ended.parentOfId(midId), undefined);
  });

  it('a settled subagent that a message brings back loses its record: one agent is never shown twice', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        Lead: {
          turns: [
            [{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Helper', prompt: 'x' } }] }, { text: 'started' }],
            [{ text: 'noted' }],
          ],
        },
        Helper: { turns: [[{ text: 'first' }], [{ hang: true }]] },
      },
    });
    track(runtime);
    const { ended } = watchEnded(runtime);
    const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
    await whenState(runtime, () => ended.count(lead) === 1 && lead.status === 'idle', 'the Helper to settle and its report to be read');
    const id = ended.of(lead)[0].id;
    await runtime.subagents.deliver(lead, id, 'more please');
    await whenState(runtime, () => runtime.agents.get(id) !== undefined, 'the Helper to come back');
    assert.strictEqual(ended.count(lead), 0, 'the live Helper replaces its ended row');
  });

  it('keeps the most recent ones only, and Clear or turning the setting off forgets them', async () => {
    const many = MAX_ENDED_PER_PARENT + 3;
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        Lead: { turns: [[...Array.from({ length: many }, (_, i) => ({ toolCalls: [{ name: 'delegate_task', arguments: { label: `Task ${i}`, prompt: 'x' } }] })), { hang: true }]] },
        ...Object.fromEntries(Array.from({ length: many }, (_, i) => [`Task ${i}`, { turns: [[{ text: 'ok' }]] }])),
      },
    }, { limits: { maxStepsPerTurn: many + 5 } });
    track(runtime);
    const { ended, changed } = watchEnded(runtime);
    const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
    await whenState(runtime, () => ended.of(lead).at(-1)?.label === `Task ${many - 1}`, 'every task to end', 10_000);
    assert.strictEqual(ended.count(lead), MAX_ENDED_PER_PARENT);
    assert.strictEqual(ended.of(lead)[0].label, 'Task 3', 'the oldest went first');
    changed.length = 0;
    assert.strictEqual(ended.clear(lead), MAX_ENDED_PER_PARENT);
    assert.deepStrictEqual(changed, ['Lead']);
    assert.strictEqual(ended.count(lead), 0);
    assert.strictEqual(ended.clear(), 0, 'nothing left to clear');
  });

  it('with the setting off nothing is kept, and turning it off forgets what was', async () => {
    const script = {
      version: 1 as const,
      agents: {
        Lead: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'Once', prompt: 'x' } }] }, { toolCalls: [{ name: 'delegate_task', arguments: { label: 'Twice', prompt: 'x' } }] }, { hang: true }]] },
        Once: { turns: [[{ text: 'ok' }]] },
        Twice: { turns: [[{ hang: true }]] },
      },
    };
    const { runtime } = makeRuntime(script);
    track(runtime);
    const { ended, changed } = watchEnded(runtime);
    const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
    await whenState(runtime, () => ended.count(lead) === 1, 'the first task to end');
    ended.setEnabled(false);
    assert.strictEqual(ended.count(lead), 0);
    assert.deepStrictEqual(changed, ['Lead', 'Lead'], 'kept, then forgotten: the parent repaints each time');
    runtime.stop(lead);
    await whenState(runtime, () => lead.status === 'idle' && runtime.agents.size === 1, 'the second task to end with the stop');
    assert.strictEqual(ended.count(lead), 0, 'nothing kept while off');
  });

  it('its commands take its row: the transcript opens its session, Clear its parent, anything else is INPUT_INVALID', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { Lead: { turns: [[{ hang: true }]] } } });
    track(runtime);
    const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
    const row = { type: 'ended-subagent', id: 'Kid#2', label: 'Kid', kind: 'one-shot', how: 'done', tokens: 1, cost: 0, creationOrder: 2 };
    assert.deepStrictEqual(parseSessionArgument('Arbor: Open Session Transcript', row), { kind: 'session', id: 'Kid#2' });
    assert.deepStrictEqual(parseClearEndedArgument(runtime, undefined), { kind: 'all' });
    assert.deepStrictEqual(parseClearEndedArgument(runtime, row), { kind: 'ended', id: 'Kid#2' });
    assert.deepStrictEqual(parseClearEndedArgument(runtime, lead), { kind: 'agent', agent: lead });
    for (const bad of ['Kid#2', { type: 'ended-subagent' }, { type: 'ended-subagent', id: '' }, 42]) {
      assert.throws(() => parseClearEndedArgument(runtime, bad), (err: { code?: string }) => err.code === 'INPUT_INVALID', JSON.stringify(bad));
    }
  });
});
