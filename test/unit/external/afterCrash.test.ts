import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents';
import { externalEngineOf, startExternalRoot } from '../../../src/core/external';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { testAgentConfig, testAgentSessionsEnv } from '../../support/acpTestAgent';
import { makeRuntime, until } from '../../support/runtimeFixture';

const WAIT = 20_000;
const ends = (agent: Agent) => agent.log.events.filter((e): e is Extract<SessionEvent, { type: 'turn_end' }> => e.type === 'turn_end');
const texts = (agent: Agent) => agent.log.events.flatMap((e) => (e.type === 'assistant_text' ? [e.text] : []));
const opened = (agent: Agent) => agent.log.events.flatMap((e) => (e.type === 'external_session' ? [e.sessionId] : []));

/** After a crash the next message starts the agent again: with its memory when it can load its session, and saying so when it cannot. */
describe('external agents after a crash', function () {
  this.timeout(60_000);
  let workspace: string;
  let runtime: ReturnType<typeof makeRuntime>['runtime'];
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-crash-'));
    ({ runtime } = makeRuntime({ version: 1, agents: {} }, { workspace }));
  });
  afterEach(async () => {
    await runtime.dispose();
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  async function crashThenRecall(env: Record<string, string>): Promise<Agent> {
    const agent = startExternalRoot(runtime, { config: testAgentConfig({ env }), prompt: 'say: remember apples' });
    await until(() => ends(agent).length === 1, 'the first turn', WAIT);
    runtime.sendFromUser(agent, 'crash');
    await until(() => ends(agent).length === 2, 'the crash', WAIT);
    assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_CRASHED');
    await agent.whenIdle();
    return agent;
  }

  it('an agent that offers loadSession continues its own session with session/load: it remembers', async () => {
    const agent = await crashThenRecall(testAgentSessionsEnv(path.join(workspace, '.sessions')));
    runtime.sendFromUser(agent, 'recall');
    await until(() => ends(agent).length === 3, 'the turn after the crash', WAIT);
    assert.strictEqual(ends(agent)[2].reason, 'completed', JSON.stringify(ends(agent)[2]));
    assert.match(agent.lastTurnEnd?.finalText ?? '', /I remember: say: remember apples/);
    const [first, second] = opened(agent);
    assert.strictEqual(second, first, 'the same session of the agent, loaded');
    assert.ok(texts(agent).some((t) => /reopened its own session \(session\/load\)/.test(t)), texts(agent).join('\n'));
    // The replay is not written again (the session already holds that conversation): only the
    // first answer and the recall say it.
    assert.deepStrictEqual(texts(agent).filter((t) => t.includes('remember apples')), ['remember apples', 'I remember: say: remember apples']);
    assert.strictEqual(externalEngineOf(agent)?.notice, undefined);
  });

  it('an agent that cannot load its session starts with a fresh memory, and its node and transcript say so', async () => {
    const agent = await crashThenRecall(testAgentSessionsEnv(path.join(workspace, '.sessions'), { loadSession: false }));
    assert.match(externalEngineOf(agent)?.notice?.text ?? '', /fresh memory/, 'the node says it before the next message');
    runtime.sendFromUser(agent, 'recall');
    await until(() => ends(agent).length === 3, 'the turn after the crash', WAIT);
    assert.match(agent.lastTurnEnd?.finalText ?? '', /I remember nothing/);
    assert.ok(texts(agent).some((t) => /starts with a fresh memory: its process ended and this agent cannot load its session/.test(t)), texts(agent).join('\n'));
  });
});
