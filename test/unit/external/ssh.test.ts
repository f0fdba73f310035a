import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents';
import { externalEngineOf, startExternalRoot, type ExternalAgentConfig } from '../../../src/core/external';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { ACP_TEST_AGENT_SCRIPT } from '../../support/acpTestAgent';
import { startLoopbackSshd, SSHD, type LoopbackSshd } from '../../support/loopbackSshd';
import { isRunning, killQuietly, pidIn } from '../../support/processes';
import { approver, makeRuntime, until } from '../../support/runtimeFixture';

const WAIT = 30_000;
const ends = (agent: Agent) => agent.log.events.filter((e): e is Extract<SessionEvent, { type: 'turn_end' }> => e.type === 'turn_end');

/**
 * An agent on another machine, reached as `{ "command": "ssh", "args": [host, agent...] }`: the
 * same tree, Stop, crash, End and Review as a local one. The other machine is an sshd the test
 * starts on 127.0.0.1 (scripts/setup.cjs installs openssh-server).
 */
describe('external agents reached through ssh (an sshd on loopback)', function () {
  this.timeout(120_000);
  let sshd: LoopbackSshd;
  let workspace: string;
  let runtime: ReturnType<typeof makeRuntime>['runtime'];
  const started: Array<number | undefined> = [];
  before(async function () {
    if (!SSHD) throw new Error('openssh-server is not installed: run scripts/setup.cjs (it lists it)');
    sshd = await startLoopbackSshd();
  });
  after(() => sshd?.stop());
  beforeEach(() => {
    workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-ssh-')));
    ({ runtime } = makeRuntime({ version: 1, agents: {} }, { workspace }));
  });
  afterEach(async () => {
    await runtime.dispose();
    killQuietly(started.splice(0));
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  /** The test agent on the "remote" side; its environment is set there, as a remote agent's must be. */
  const remote = (env: Record<string, string> = {}): ExternalAgentConfig => ({
    name: 'Remote Agent',
    command: 'ssh',
    args: [...sshd.sshArgs, 'env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, ACP_TEST_AGENT_SCRIPT],
    env: {},
    secretEnv: [],
  });

  it('streams a turn, and Stop reaches the remote agent as session/cancel: the turn ends aborted, the same connection carries on', async () => {
    const log = path.join(workspace, 'received.log');
    const agent = startExternalRoot(runtime, { config: remote({ ACP_TEST_AGENT_LOG: log }), prompt: 'say: hello over ssh' });
    await until(() => ends(agent).length === 1, 'the first turn', WAIT);
    assert.strictEqual(agent.lastTurnEnd?.finalText, 'hello over ssh');
    const ssh = externalEngineOf(agent)?.pid;
    started.push(ssh);
    runtime.sendFromUser(agent, 'hang');
    await until(() => agent.log.events.some((e) => e.type === 'assistant_text' && e.text.includes('Working until cancelled')), 'the remote agent at work', WAIT);
    runtime.stop(agent);
    await until(() => ends(agent).length === 2, 'the stopped turn', WAIT);
    assert.strictEqual(ends(agent)[1].reason, 'aborted');
    assert.match(fs.readFileSync(log, 'utf8'), /^session\/cancel \S+$/m, 'the remote process received session/cancel');
    runtime.sendFromUser(agent, 'say: still here');
    await until(() => ends(agent).length === 3, 'the next turn', WAIT);
    assert.strictEqual(ends(agent)[2].reason, 'completed');
    assert.strictEqual(externalEngineOf(agent)?.pid, ssh, 'the same ssh connection');
  });

  it('a crash on the remote side is EXTERNAL_AGENT_CRASHED with its last output; the next message connects again', async () => {
    const agent = startExternalRoot(runtime, { config: remote(), prompt: 'crash' });
    await until(() => ends(agent).length === 1, 'the crash', WAIT);
    assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_CRASHED');
    assert.match(agent.lastTurnEnd?.message ?? '', /Remote Agent \(ssh .*exited with code 3.*crashing on purpose/s);
    runtime.sendFromUser(agent, 'say: back');
    await until(() => ends(agent).length === 2, 'the next turn', WAIT);
    assert.strictEqual(ends(agent)[1].reason, 'completed');
    started.push(externalEngineOf(agent)?.pid);
  });

  it('End ends the remote agent too (its input closes with the connection), and its edits are reviewed like a local one\'s', async () => {
    const { provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    const file = path.join(workspace, 'remote.pid');
    const agent = startExternalRoot(runtime, { config: remote(), prompt: `pid: ${file}\nwrite: from-afar.txt = written over ssh\nhang` });
    await until(() => pidIn(file) !== undefined && fs.existsSync(path.join(workspace, 'from-afar.txt')), 'the remote agent to write', WAIT);
    const remotePid = pidIn(file)!;
    started.push(remotePid, externalEngineOf(agent)?.pid);
    assert.deepStrictEqual((await runtime.changes.list(agent.id)).map((c) => [c.path, c.original]), [['from-afar.txt', null]]);
    await runtime.end(agent);
    await until(() => !isRunning(remotePid), 'the remote agent to end', WAIT);
  });
});
