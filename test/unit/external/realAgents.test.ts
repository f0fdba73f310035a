import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import type { Agent } from '../../../src/core/agents';
import { AgentProcess, externalEngineOf, startExternalRoot } from '../../../src/core/external';
import { whenLost } from '../../../src/core/external/connectionLoss';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { launchedTestAgentConfig } from '../../support/acpTestAgent';
import { isRunning, killQuietly, pidIn } from '../../support/processes';
import { approver, makeRuntime, until } from '../../support/runtimeFixture';

const ends = (agent: Agent) => agent.log.events.filter((e): e is Extract<SessionEvent, { type: 'turn_end' }> => e.type === 'turn_end');
/** Generous: a child process on a loaded machine; the tests wait for states, never for a time. */
const WAIT = 20_000;

/**
 * What real agents do that the plain test agent does not: launchers that hand the agent their
 * own pipes and die. Each case here failed before the behaviour it names was built.
 */
describe('external agents as real ones are run: launchers', function () {
  this.timeout(60_000);
  let workspace: string;
  let runtime: ReturnType<typeof makeRuntime>['runtime'];
  const started: Array<number | undefined> = [];
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-real-'));
    ({ runtime } = makeRuntime({ version: 1, agents: {} }, { workspace }));
  });
  afterEach(async () => {
    await runtime.dispose();
    killQuietly(started.splice(0));
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  async function nextEnd(agent: Agent, count: number) {
    await until(() => ends(agent).length === count, `turn end #${count}`, WAIT);
    await agent.whenIdle();
    return ends(agent)[count - 1];
  }

  it('a launcher that dies ends the agent at once: what the agent it left still sends is not acted on, and the next message starts it again', async () => {
    const { prompts, provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    const file = path.join(workspace, 'agent.pid');
    const agent = startExternalRoot(runtime, { config: launchedTestAgentConfig(), prompt: `permission-on-term\nkill-launcher: ${file}\nhang` });
    await until(() => pidIn(file) !== undefined, 'the agent below the launcher', WAIT);
    const below = pidIn(file)!;
    started.push(below);
    const end = await nextEnd(agent, 1);
    assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_CRASHED', JSON.stringify(end));
    assert.match(end.message ?? '', /Test Agent .*launcher\.mjs.*was ended by SIGKILL/);
    await until(() => !isRunning(below), 'the agent the launcher left to be ended', WAIT);
    // Ended with SIGTERM first, it asked a permission on the dead launcher's pipes: nobody was asked.
    assert.deepStrictEqual(prompts.map((p) => p.detail), []);
    fs.rmSync(file);
    runtime.sendFromUser(agent, 'say: back again');
    const again = await nextEnd(agent, 2);
    assert.strictEqual(again.reason, 'completed', JSON.stringify(again));
    started.push(externalEngineOf(agent)?.pid);
  });

  it('a failed write to the agent\'s input is a crash (EXTERNAL_AGENT_CRASHED naming the agent), not a protocol error', async () => {
    const config = { name: 'Sleeper', command: 'sleep', args: ['30'], env: {}, secretEnv: [] };
    const proc = new AgentProcess(config, { cwd: workspace });
    started.push(proc.pid);
    // What the SDK closes its connection with when a write fails on a stream Node destroyed.
    const written = new Error('The operation was aborted');
    written.name = 'AbortError';
    Object.assign(written, { code: 'ABORT_ERR' });
    const connection: Pick<acp.ClientConnection, 'signal'> = { signal: AbortSignal.abort(written) };
    const lost = await whenLost(config, proc, connection);
    assert.strictEqual(lost.code, 'EXTERNAL_AGENT_CRASHED', lost.message);
    assert.match(lost.message, /Sleeper/);
    await until(() => !isRunning(proc.pid!), 'the process to be ended', WAIT);
  });
});
