import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeHold, newHold, primaryHold, type Hold } from '../../../src/core/agents';
import type { Agent } from '../../../src/core/agents/agent';
import type { BudgetEvent } from '../../../src/core/budgets';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { conversationState, type ConversationStateInput } from '../../../src/core/conversation/conversationModel';
import { Runtime } from '../../../src/core/runtime';
import { presentAgent } from '../../../src/extension/agents/agentPresentation';
import { presentSession, type SessionNode } from '../../../src/extension/history/historyNodes';
import { makeRuntime, reasons, recordingModel, userMessages } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const NONE = { inputTokens: 0, outputTokens: 0 };
const listAgents = { name: 'list_agents', arguments: {} };
const reasonsOf = (agent: Agent): string[] => agent.holds.map((h) => h.reason);

/** main starts kid (which hangs), then a reply of main spends the run's 30 tokens while kid runs. */
const spending: ModelScript = {
  version: 1,
  agents: {
    main: {
      turns: [
        [{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'kid', prompt: 'work' } }], usage: NONE }, { delayMs: 5, toolCalls: [listAgents], usage: { inputTokens: 30, outputTokens: 0 } }],
        [{ text: 'main goes on', usage: NONE }],
      ],
      afterLastTurn: 'repeat-last',
    },
    kid: { turns: [[{ hang: true }], [{ text: 'kid goes on', usage: NONE }]], afterLastTurn: 'repeat-last' },
  },
};

async function pausedRun() {
  const { model, calls } = recordingModel(spending);
  let n = 0;
  const runtime = new Runtime({ model, limits: { maxTokens: 30 }, newId: (label) => `${label}#${++n}` });
  const events: BudgetEvent[] = [];
  runtime.budgets.onEvent((e) => events.push(e));
  const root = runtime.startRoot({ prompt: 'go', label: 'main' });
  await whenState(runtime.budgets, () => events.some((e) => e.type === 'paused'), 'the run to pause');
  const kid = runtime.agents.all().find((a) => a.label === 'kid')!;
  await whenState(runtime, () => root.status === 'idle' && kid.status === 'idle', 'both agents to stop');
  return { runtime, calls, root, kid };
}

describe('holds: every reason an agent is not running, with its release rule', () => {
  const track = disposeAfterEach();
  it('an agent without a hold carries none; a Stop holds its queue until the next waking send, and a report does not release it', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ hang: true }], [{ text: 'b' }]], afterLastTurn: 'repeat-last' } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'A', label: 'main' });
    const none = root.holds;
    assert.deepEqual(none, []);
    root.send('B', { from: 'user', wake: false });
    runtime.stop(root);
    await root.whenIdle();
    assert.deepEqual(root.holds.map((h) => [h.reason, h.release]), [['stop', 'waking-send']]);
    root.send('report', { from: 'child', wake: 'unless-parked' });
    assert.deepEqual(reasonsOf(root), ['stop'], "a child's report releases nothing");
    root.send('C', { from: 'user' });
    assert.strictEqual(root.holds, none, 'released, the agent keeps no list of holds');
    await whenState(runtime, () => reasons(root).length === 4 && root.status === 'idle', 'the queue to run');
    assert.deepEqual(userMessages(root), ['A', 'B', 'report', 'C'], 'in order, after the aborted turn');
  });

  it('a branch Stop holds an idle agent with nothing queued; only a waking send releases it', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'a' }]], afterLastTurn: 'repeat-last' } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'A', label: 'main' });
    await root.whenIdle();
    runtime.stopBranch(root);
    assert.deepEqual(root.holds.map((h) => [h.reason, h.release]), [['branch', 'waking-send']]);
    root.send('report', { from: 'child', wake: 'unless-parked' });
    await root.whenIdle();
    assert.deepEqual(reasonsOf(root), ['branch']);
    assert.deepEqual(reasons(root), ['completed'], 'the report started no turn');
    root.send('go on', { from: 'user' });
    assert.deepEqual(root.holds, []);
    await whenState(runtime, () => reasons(root).length === 3 && root.status === 'idle', 'the released queue');
  });

  it('a spent budget holds every agent of the run until the raise; a person\'s message releases only the Stop of its queue', async () => {
    const { runtime, calls, root, kid } = await pausedRun();
    track(runtime);
    const runHold = runtime.budgets.holdOf(root.run);
    assert.ok(runHold);
    assert.deepEqual([runHold.reason, runHold.release], ['budget', 'raise']);
    assert.match(runHold.detail ?? '', /token budget of 30 is spent/);
    for (const agent of [root, kid]) {
      const budget = agent.holds.find((h) => h.reason === 'budget');
      assert.equal(budget?.interrupted, true, `${agent.label}: the pause cut its work short, so the raise wakes it`);
      assert.equal(budget?.detail, runHold.detail);
    }

    const before = calls.length;
    runtime.sendFromUser(kid, 'are you there?');
    await kid.whenIdle();
    assert.equal(calls.length, before, 'no model call while held');
    assert.equal(kid.lastTurnEnd?.hold?.reason, 'budget', 'the turn ended against the hold');
    assert.deepEqual(reasonsOf(kid), ['budget']);

    runtime.budgets.raise(root.run);
    assert.deepEqual([...root.holds, ...kid.holds], [], 'the raise releases every budget hold');
    assert.equal(runtime.budgets.holdOf(root.run), undefined);
    await whenState(runtime, () => kid.lastTurnEnd?.finalText === 'kid goes on', 'the kid to go on');
  });

  it("a runaway guard's hold ends every turn at once until a person's message, which a system message is not", async () => {
    const { model, calls } = recordingModel({
      version: 1,
      agents: { main: { turns: [{ steps: [{ toolCalls: [listAgents] }], loop: true }, [{ text: 'going on' }]], afterLastTurn: 'repeat-last' } },
    });
    const runtime = new Runtime({ model, runaway: { sameCallRepeats: 3, pauseAgent: true } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => root.lastTurnEnd !== undefined && root.status === 'idle', 'the guard to stop the turn');
    assert.deepEqual(root.holds.map((h) => [h.reason, h.release]), [['runaway', 'person-message']]);
    assert.match(root.holds[0].detail ?? '', /runaway guard paused it: the same call/);

    const before = calls.length;
    root.send('[note]', { from: 'system', wake: true });
    await root.whenIdle();
    assert.equal(calls.length, before, 'no model call while held');
    assert.equal(root.lastTurnEnd?.hold, root.holds[0], 'the turn ended against the hold the agent is under');

    runtime.sendFromUser(root, 'try something else');
    assert.deepEqual(root.holds, []);
    await whenState(runtime, () => root.lastTurnEnd?.finalText === 'going on', 'the agent to go on');
  });

  it('a hold put through the agent alone (no guard behind it) is the gate its turn loop asks', async () => {
    const { runtime, calls } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'a' }], [{ text: 'b' }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'A', label: 'main' });
    await root.whenIdle();
    const hold = newHold('runaway', { detail: 'held by the test' });
    root.putHold(hold);
    root.send('B', { from: 'parent', wake: true });
    await root.whenIdle();
    assert.equal(calls.length, 1);
    assert.equal(root.lastTurnEnd?.hold, hold);
    assert.equal(root.lastTurnEnd?.message, 'held by the test');
    assert.deepEqual(root.releaseHolds('person-message'), [hold]);
  });

  it('is a small value that a session can store as it is', () => {
    const hold = newHold('budget', { detail: "the run's token budget of 30 is spent", report: 'BLOCKED: …', interrupted: true });
    assert.deepEqual(Object.keys(hold).sort(), ['detail', 'interrupted', 'reason', 'release', 'report', 'since']);
    assert.ok(!Number.isNaN(Date.parse(hold.since)));
    assert.deepEqual(JSON.parse(JSON.stringify(hold)) as Hold, hold);
    assert.deepEqual(Object.keys(newHold('stop')).sort(), ['reason', 'release', 'since'], 'nothing stored that it does not have');
  });

  it('the Agents view, the conversation view and History say a held agent the same way', async () => {
    const { runtime, kid } = await pausedRun();
    track(runtime);
    const hold = primaryHold(kid.holds)!;
    const said = describeHold(hold);
    assert.equal(said.text, 'run paused: budget spent');
    assert.match(said.detail, /^Paused: the run's token budget of 30 is spent\. Raise the limit to go on\.$/);

    const tree = presentAgent({ agent: kid, waiting: false, treeTokens: 0, descendants: 0, now: Date.now() });
    assert.ok(tree.description.includes(said.text));
    assert.ok(tree.tooltip.includes(said.detail));

    const input: ConversationStateInput = {
      kind: kid.kind,
      live: true,
      status: kid.status,
      stopping: false,
      waiting: false,
      pendingCount: kid.pendingCount,
      parked: kid.isParked,
      lastTurnEnd: kid.lastTurnEnd,
      parentOffline: false,
      held: kid.isHeld,
      hold,
      queued: [],
      tokens: 0,
    };
    const conversation = conversationState(input);
    assert.equal(conversation.text, said.text, 'not "idle": the view says what holds it');
    assert.ok(conversation.hint.includes(said.detail));

    const summary = { lastActivity: new Date().toISOString(), eventCount: kid.log.events.length, turnCount: kid.turnCount };
    const node: SessionNode = { type: 'session', children: [], entry: { header: kid.log.header, summary, file: 'kid.jsonl', live: true } };
    const history = presentSession(node, true, Date.now(), hold);
    assert.match(history.description, /live in this window, run paused: budget spent$/);
    assert.ok(history.tooltip.includes(said.detail));
  });

  it('agents/ imports nothing from budgets/: budgets put holds on agents, never the other way', () => {
    const dir = path.resolve(__dirname, '../../../src/core/agents');
    const offenders = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /\bfrom\s+'\.\.\/budgets(\/|')/.test(fs.readFileSync(path.join(dir, f), 'utf8')));
    assert.deepEqual(offenders, []);
  });
});
