import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent, RuntimeEvent } from '../../../src/core/agents';
import { externalEngineForRestore, externalEngineOf, restartExternalProcess, startExternalRoot, type ExternalAgentConfig } from '../../../src/core/external';
import { Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore, type SessionEvent } from '../../../src/core/sessions';
import { presentAgent } from '../../../src/extension/agents/agentPresentation';
import { ACP_WAIT, testAgentConfig, testAgentSessionsEnv, turnEnds } from '../../support/acpTestAgent';
import { recordingModel } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

// An external agent that was live when the window went away gets its process back when it is
// restored: its own session loaded (session/load) when the agent can, else a fresh one, and
// then its node says plainly that it starts with a fresh memory, and why.

const texts = (events: readonly SessionEvent[]) => events.flatMap((e) => (e.type === 'assistant_text' ? [e.text] : []));
const opened = (events: readonly SessionEvent[]) => events.flatMap((e) => (e.type === 'external_session' ? [e.sessionId] : []));
const described = (agent: Agent) => presentAgent({ agent, waiting: false, treeTokens: 0, descendants: 0, now: Date.now() });

describe('a restored external agent gets its process back', function () {
  const track = disposeAfterEach();
  this.timeout(60_000);
  let workspace: string;
  let dir: string;
  let agentSessions: string;
  const runtimes: Runtime[] = [];
  const window = (): Runtime => {
    const runtime = new Runtime({ model: recordingModel({ version: 1, agents: {} }).model, sessions: new JsonlSessionStore(dir, { flushDelayMs: 1 }), workspace });
    runtimes.push(runtime);
    return runtime;
  };
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-restore-ext-'));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-restore-ext-sessions-'));
    agentSessions = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-restore-ext-agent-'));
  });
  afterEach(async () => {
    for (const runtime of runtimes.splice(0)) await runtime.dispose();
    for (const d of [workspace, dir, agentSessions]) fs.rmSync(d, { recursive: true, force: true });
  });

  /** A window whose external agent ran `prompt` and was then closed (the reload): the agent's session id. */
  async function closedWindow(config: ExternalAgentConfig, prompt: string): Promise<{ id: string; before: number }> {
    const runtime = window();
    const agent = startExternalRoot(runtime, { config, prompt });
    await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
    await runtime.dispose();
    const saved = await new JsonlSessionStore(dir).loadSession(agent.id);
    return { id: agent.id, before: saved.events.length };
  }

  /** The next window rebuilds the agent from its session (as the restore does) on the restore's engine. */
  async function restored(id: string, config: ExternalAgentConfig): Promise<{ runtime: Runtime; agent: Agent; changes: RuntimeEvent[] }> {
    const runtime = window();
    const changes: RuntimeEvent[] = [];
    runtime.onEvent((e) => changes.push(e));
    const agent = await runtime.resumeRoot(id, { externalEngine: (log) => externalEngineForRestore(runtime, log, { config }) });
    return { runtime, agent, changes };
  }

  it('an agent that offers loadSession continues its own session: its process is up again and it remembers, without the conversation written twice', async () => {
    const config = testAgentConfig({ env: testAgentSessionsEnv(agentSessions) });
    const past = await closedWindow(config, 'say: kept for later');
    const { runtime, agent } = await restored(past.id, config);
    assert.equal(externalEngineOf(agent)?.notice, undefined, 'nothing is lost, so the node says nothing');

    const started = await restartExternalProcess(agent);
    assert.ok(started, 'an external agent');
    assert.equal(started.loaded, true);
    assert.ok(externalEngineOf(agent)?.pid, 'its process runs before any message');
    const ids = opened(agent.log.events);
    assert.equal(ids.length, 2, 'the session it opened before the reload, and the one it loaded');
    assert.equal(ids[1], ids[0], 'the same agent session, loaded');
    assert.equal(started.sessionId, ids[0]);

    agent.send('recall', { from: 'user' });
    await whenState(runtime, () => turnEnds(agent).length === 2, 'the turn after the restore', ACP_WAIT);
    assert.equal(agent.lastTurnEnd?.finalText, 'I remember: say: kept for later');
    const after = agent.log.events.slice(past.before);
    assert.deepEqual(texts(after), ['Test Agent reopened its own session (session/load): it remembers the conversation above.', 'I remember: say: kept for later']);
    assert.equal(agent.log.events.filter((e) => e.type === 'user_message' && e.text === 'say: kept for later').length, 1, 'the replay is not written again');
    assert.doesNotMatch(described(agent).description, /fresh memory/);
  });

  it('an agent that cannot load sessions starts a fresh one, and its node says so, and why, from the first paint', async () => {
    const config = testAgentConfig();
    const past = await closedWindow(config, 'say: forgotten');
    const { runtime, agent } = await restored(past.id, config);
    const notice = externalEngineOf(agent)?.notice;
    assert.equal(notice?.text, 'fresh memory: cannot load its earlier session');
    assert.match(described(agent).description, /external: Test Agent · fresh memory: cannot load its earlier session/);
    assert.match(described(agent).tooltip, /Test Agent starts with a fresh memory: this agent cannot load its earlier session .*it does not offer session\/load.*so it does not remember its earlier conversation/);

    const started = await restartExternalProcess(agent);
    assert.equal(started?.loaded, false);
    assert.ok(externalEngineOf(agent)?.pid, 'it has a process again');
    const ids = opened(agent.log.events);
    assert.equal(ids.length, 2);
    assert.notEqual(ids[1], ids[0], 'a new agent session');
    assert.ok(texts(agent.log.events.slice(past.before)).some((t) => /^Test Agent starts with a fresh memory: this agent cannot load its earlier session/.test(t)), 'the transcript says it too');

    agent.send('recall', { from: 'user' });
    await whenState(runtime, () => turnEnds(agent).length === 2, 'the turn after the restore', ACP_WAIT);
    assert.equal(agent.lastTurnEnd?.finalText, 'I remember nothing.');
  });

  it('an agent that no longer offers loadSession falls back to a fresh session and its node is repainted to say so', async () => {
    const past = await closedWindow(testAgentConfig({ env: testAgentSessionsEnv(agentSessions) }), 'say: kept');
    const config = testAgentConfig({ env: testAgentSessionsEnv(agentSessions, { loadSession: false }) });
    const { agent, changes } = await restored(past.id, config);
    assert.equal(externalEngineOf(agent)?.notice, undefined, 'the log says it could load its session');
    const seen = changes.length;
    const started = await restartExternalProcess(agent);
    assert.equal(started?.loaded, false);
    assert.match(started?.notice?.detail ?? '', /this agent cannot load its earlier session \(it no longer offers session\/load\)/);
    assert.match(described(agent).description, /fresh memory: cannot load its earlier session/);
    assert.ok(changes.slice(seen).some((e) => e.type === 'agent_changed' && e.agent === agent && e.change.type === 'status'), 'the node is told to repaint');
    assert.equal(new Set(opened(agent.log.events)).size, 2, 'a new agent session');
  });

  it('a session the agent cannot find any more starts fresh, and says the load failed', async () => {
    const config = testAgentConfig({ env: testAgentSessionsEnv(agentSessions) });
    const past = await closedWindow(config, 'say: lost');
    for (const file of fs.readdirSync(agentSessions)) fs.rmSync(path.join(agentSessions, file));
    const { agent } = await restored(past.id, config);
    const started = await restartExternalProcess(agent);
    assert.equal(started?.loaded, false);
    assert.equal(started?.notice?.text, 'fresh memory: its earlier session did not load');
    assert.match(started?.notice?.detail ?? '', /its earlier session did not load \(The external agent Test Agent answered with an error/);
  });

  it('a message sent while the process starts again waits for that one start: one process, one session', async () => {
    const config = testAgentConfig({ env: testAgentSessionsEnv(agentSessions) });
    const past = await closedWindow(config, 'say: once');
    const { runtime, agent } = await restored(past.id, config);
    const starting = restartExternalProcess(agent);
    agent.send('recall', { from: 'user' });
    await starting;
    await whenState(runtime, () => turnEnds(agent).length === 2, 'the turn', ACP_WAIT);
    assert.equal(opened(agent.log.events.slice(past.before)).length, 1, 'one session opened after the restore');
    assert.equal(agent.lastTurnEnd?.finalText, 'I remember: say: once');
  });

  it('an agent that never started its process lost nothing: no notice', async () => {
    const runtime = window();
    const config = testAgentConfig();
    const engine = externalEngineForRestore(runtime, { header: { type: 'header', version: 1, id: 'x', createdAt: new Date().toISOString(), delegationDepth: 0, kind: 'root', label: 'x', interactionMode: 'interactive', external: config.name }, events: [] }, { config });
    track(engine);
    assert.equal(engine.notice, undefined);
  });

  it('is not external: nothing to start', async () => {
    const runtime = window();
    const agent = runtime.startRoot({ prompt: 'hi', label: 'model agent' });
    assert.equal(await restartExternalProcess(agent), undefined);
  });
});
