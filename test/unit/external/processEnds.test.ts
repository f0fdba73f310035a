import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents';
import { externalEngineOf, startExternalRoot } from '../../../src/core/external';
import { ACP_TEST_AGENT_SCRIPT, ACP_WAIT, testAgentConfig, turnEnds } from '../../support/acpTestAgent';
import { isRunning, killQuietly, pidIn } from '../../support/processes';
import { makeRuntime, until } from '../../support/runtimeFixture';
import { whenState } from '../../support/events';


/**
 * How an external agent ends when it misbehaves: every way out of a turn reaches a turn end,
 * a connection that closed ends its process, and End or a shutdown ends every process it started.
 */
describe('external agents that misbehave end cleanly (a real child process)', function () {
  this.timeout(60_000);
  let workspace: string;
  let runtime: ReturnType<typeof makeRuntime>['runtime'];
  /** Processes a failing test may have left running. */
  const started: Array<number | undefined> = [];
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-ends-'));
    ({ runtime } = makeRuntime({ version: 1, agents: {} }, { workspace }));
  });
  afterEach(async () => {
    await runtime.dispose();
    killQuietly(started.splice(0));
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  /** Waits for the agent's next turn end and returns it. */
  async function nextEnd(agent: Agent, count: number) {
    await whenState(runtime, () => turnEnds(agent).length === count, `turn end #${count}`, ACP_WAIT);
    await agent.whenIdle();
    return turnEnds(agent)[count - 1];
  }

  /** The next message starts the agent again: a new process that completes its turn. */
  async function startsAgain(agent: Agent, count: number, oldPid: number | undefined): Promise<void> {
    runtime.sendFromUser(agent, 'say: back again');
    const end = await nextEnd(agent, count);
    assert.strictEqual(end.reason, 'completed', JSON.stringify(end));
    const pid = externalEngineOf(agent)?.pid;
    started.push(pid);
    assert.ok(pid && pid !== oldPid, 'a new process');
  }

  it('an unknown stop reason ends the turn with EXTERNAL_AGENT_PROTOCOL naming it; the agent goes idle, works on, and shutdown settles', async () => {
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'say: partial\nstop-reason: bogus' });
    const end = await nextEnd(agent, 1);
    assert.strictEqual(end.reason, 'error');
    assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_PROTOCOL');
    assert.match(end.message ?? '', /"bogus"/);
    assert.strictEqual(agent.status, 'idle');
    const pid = externalEngineOf(agent)?.pid;
    started.push(pid);
    runtime.sendFromUser(agent, 'say: still here');
    assert.strictEqual((await nextEnd(agent, 2)).reason, 'completed');
    assert.strictEqual(externalEngineOf(agent)?.pid, pid, 'the connection was sound: the same process carries on');
    runtime.sendFromUser(agent, 'hang');
    await whenState(runtime, () => agent.status === 'running' && turnEnds(agent).length === 2, 'the third turn', ACP_WAIT);
    await runtime.dispose();
    assert.strictEqual(turnEnds(agent).at(-1)?.reason, 'aborted');
    await until(() => !isRunning(pid!), 'the process to end', ACP_WAIT);
  });

  it('updates with values Arbor does not know (a newer protocol) are salvaged or skipped; the turn completes', async () => {
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'odd-updates' });
    const end = await nextEnd(agent, 1);
    assert.strictEqual(end.reason, 'completed', JSON.stringify(end));
    const told = agent.log.events.flatMap((e) =>
      e.type === 'assistant_text' ? [e.text] : e.type === 'tool_call' ? [`call ${e.call.name}`] : e.type === 'tool_result' ? [`result ${e.isError ? 'error' : 'ok'}`] : e.type === 'plan' ? [`plan ${e.items.map((i) => `${i.status} ${i.step}`).join(', ')}`] : [],
    );
    // The tool call's unknown status is not a start: it stays open (and unwritten, its input may
    // still come) until the turn ends; the unknown update kind is skipped.
    assert.deepStrictEqual(told, ['plan done Known step', 'still talking', 'call Teleport', 'result error']);
  });

  it('an agent that closes its output but keeps running is ended; the next message starts it again', async () => {
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'close-output' });
    await until(() => externalEngineOf(agent)?.pid !== undefined, 'the process', ACP_WAIT);
    const pid = externalEngineOf(agent)?.pid;
    started.push(pid);
    const end = await nextEnd(agent, 1);
    await until(() => !isRunning(pid!), 'the process to be ended', ACP_WAIT);
    assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_PROTOCOL', JSON.stringify(end));
    assert.match(end.message ?? '', /closed its output/);
    await startsAgain(agent, 2, pid);
  });

  it('an agent that sends a line over the message limit is ended; the next message starts it again', async () => {
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'huge-line' });
    await until(() => externalEngineOf(agent)?.pid !== undefined, 'the process', ACP_WAIT);
    const pid = externalEngineOf(agent)?.pid;
    started.push(pid);
    const end = await nextEnd(agent, 1);
    await until(() => !isRunning(pid!), 'the process to be ended', ACP_WAIT);
    assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_PROTOCOL', JSON.stringify(end));
    assert.match(end.message ?? '', /limit/);
    await startsAgain(agent, 2, pid);
  });

  it('an agent that stops reading its input has crashed (EXTERNAL_AGENT_CRASHED); the next message starts it again', async () => {
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'close-input\nsay: done' });
    assert.strictEqual((await nextEnd(agent, 1)).reason, 'completed');
    const pid = externalEngineOf(agent)?.pid;
    started.push(pid);
    runtime.sendFromUser(agent, 'say: unheard');
    const end = await nextEnd(agent, 2);
    assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_CRASHED', JSON.stringify(end));
    await until(() => !isRunning(pid!), 'the process to be ended', ACP_WAIT);
    await startsAgain(agent, 3, pid);
  });

  it('End ends a child the agent moved to a session of its own (setsid)', async () => {
    const file = path.join(workspace, 'child.pid');
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: `setsid-child: ${file}\nsay: started it` });
    assert.strictEqual((await nextEnd(agent, 1)).reason, 'completed');
    const child = pidIn(file);
    started.push(child, externalEngineOf(agent)?.pid);
    assert.ok(child && isRunning(child), 'the setsid child runs');
    await runtime.end(agent);
    await until(() => !isRunning(child), 'the setsid child to end', ACP_WAIT);
  });

  it('shutdown settles while a setsid child holds the agent\'s output, and ends that child', async () => {
    const file = path.join(workspace, 'child.pid');
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: `setsid-child: ${file}\nignore-cancel` });
    await until(() => pidIn(file) !== undefined && agent.status === 'running', 'the setsid child', ACP_WAIT);
    const child = pidIn(file)!;
    started.push(child, externalEngineOf(agent)?.pid);
    await runtime.dispose();
    assert.strictEqual(turnEnds(agent).at(-1)?.reason, 'aborted');
    await until(() => !isRunning(child), 'the setsid child to end', ACP_WAIT);
  });

  it('a launcher that exits while the agent it started keeps the pipes ends the turn as a crash; the agent is ended and the next message starts it again', async () => {
    const file = path.join(workspace, 'agent.pid');
    // A shell that stays the agent's parent (it has more to do after it), as a wrapper script would.
    const config = testAgentConfig({ command: '/bin/sh', args: ['-c', '"$0" "$1"; exit $?', process.execPath, ACP_TEST_AGENT_SCRIPT] });
    const agent = startExternalRoot(runtime, { config, prompt: `kill-launcher: ${file}\nhang` });
    await until(() => pidIn(file) !== undefined, 'the agent below the launcher', ACP_WAIT);
    const grandchild = pidIn(file)!;
    started.push(grandchild);
    const end = await nextEnd(agent, 1);
    assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_CRASHED', JSON.stringify(end));
    await until(() => !isRunning(grandchild), 'the agent the launcher left to end', ACP_WAIT);
    fs.rmSync(file);
    runtime.sendFromUser(agent, 'say: back again');
    const again = await nextEnd(agent, 2);
    assert.strictEqual(again.reason, 'completed', JSON.stringify(again));
  });
});
