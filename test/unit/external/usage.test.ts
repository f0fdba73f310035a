import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents';
import { startExternalRoot } from '../../../src/core/external';
import { testAgentConfig } from '../../support/acpTestAgent';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { makeRuntime, until } from '../../support/runtimeFixture';

const WAIT = 20_000;
const ends = (agent: Agent) => agent.log.events.filter((e) => e.type === 'turn_end');

/** What an external agent reports it used reaches its node and its run's budgets, as a model's usage does. */
describe('external agents\' usage', function () {
  this.timeout(60_000);
  const track = disposeAfterEach();
  let workspace: string;
  beforeEach(() => (workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-usage-'))));
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  it('the tokens of a prompt response and the cost of usage_update are recorded on the agent, in its session and by the run', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: {} }, { workspace });
    track(runtime);
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'usage: 120 30 0.25\nsay: done' });
    await until(() => ends(agent).length === 1, 'the turn end', WAIT);
    runtime.sendFromUser(agent, 'usage: 10 5 0.5');
    await until(() => ends(agent).length === 2, 'the second turn end', WAIT);
    assert.deepStrictEqual(agent.usage, { inputTokens: 130, outputTokens: 35 });
    assert.deepStrictEqual(agent.log.events.flatMap((e) => (e.type === 'usage' ? [[e.inputTokens, e.outputTokens]] : [])), [[120, 30], [10, 5]]);
    assert.strictEqual(agent.run.budget.tokensUsed, 165);
    // The reported cost is the session's so far: each report counts what it grew by.
    assert.strictEqual(agent.run.budget.costOf(agent.id), 0.5);
  });

  it("each prompt turn counts as one turn and one model call of the run's budget: at the cap the next message waits, unsent, for the raise, and is sent then", async () => {
    const { runtime } = makeRuntime({ version: 1, agents: {} }, { workspace, limits: { maxModelCalls: 2 } });
    track(runtime);
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'say: first' });
    await until(() => ends(agent).length === 1, 'the turn end', WAIT);
    assert.strictEqual(agent.run.budget.modelCallsUsed, 1);
    assert.strictEqual(agent.run.budget.turnsUsed, 1);
    runtime.sendFromUser(agent, 'say: second');
    await until(() => ends(agent).length === 2, 'the second turn end', WAIT);
    assert.strictEqual(agent.run.budget.modelCallsUsed, 2);
    assert.strictEqual(runtime.budgets.holdOf(agent.run), undefined, 'the call that meets the cap is allowed');

    // The cap is met: the third message is not sent to the agent; the run pauses.
    runtime.sendFromUser(agent, 'say: third');
    await until(() => runtime.budgets.holdOf(agent.run) !== undefined, 'the run to be paused', WAIT);
    await agent.whenIdle();
    assert.strictEqual(runtime.budgets.holdOf(agent.run)?.reason, 'budget');
    const third = ends(agent)[2];
    assert.ok(third?.type === 'turn_end' && third.reason === 'paused', 'a turn that claimed nothing ends paused');
    assert.strictEqual(agent.run.budget.modelCallsUsed, 2, 'no call counted past the cap');
    assert.ok(!agent.log.events.some((e) => e.type === 'user_message' && e.text === 'say: third'), 'the message was not claimed');
    assert.ok(!agent.log.events.some((e) => e.type === 'assistant_text' && e.text.includes('third')), 'nor sent');
    assert.strictEqual(agent.pendingCount, 1, 'it waits in the queue');
    // Another message while paused queues behind it; no turn starts.
    runtime.sendFromUser(agent, 'say: fourth');
    await agent.whenIdle();
    assert.strictEqual(ends(agent).length, 3);
    assert.strictEqual(agent.pendingCount, 2);

    // The raise sends them, in order.
    runtime.budgets.raise(agent.run, { maxModelCalls: 10 });
    await until(() => agent.log.events.some((e) => e.type === 'assistant_text' && e.text.includes('fourth')), 'the queued messages to be sent', WAIT);
    const said = agent.log.events.flatMap((e) => (e.type === 'assistant_text' ? [e.text] : []));
    assert.ok(said.findIndex((t) => t.includes('third')) < said.findIndex((t) => t.includes('fourth')), 'in the order they were sent');
  });

  it("a run's turn budget counts the external agent's prompt turns", async () => {
    const { runtime } = makeRuntime({ version: 1, agents: {} }, { workspace, limits: { maxRunTurns: 1 } });
    track(runtime);
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'say: first' });
    await until(() => ends(agent).length === 1, 'the turn end', WAIT);
    runtime.sendFromUser(agent, 'say: second');
    await until(() => runtime.budgets.holdOf(agent.run) !== undefined, 'the run to be paused', WAIT);
    await agent.whenIdle();
    assert.ok(!agent.log.events.some((e) => e.type === 'assistant_text' && e.text.includes('second')), 'the second prompt is not sent');
    assert.strictEqual(agent.run.budget.turnsUsed, 1);
  });

  it('a run whose token budget the external agent spends is paused like any run', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: {} }, { workspace, limits: { maxTokens: 100 } });
    track(runtime);
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'usage: 120 30 0\nsay: done' });
    await until(() => ends(agent).length === 1, 'the turn end', WAIT);
    await until(() => runtime.budgets.holdOf(agent.run) !== undefined, 'the run to be paused', WAIT);
    assert.strictEqual(runtime.budgets.holdOf(agent.run)?.reason, 'budget');
  });
});
