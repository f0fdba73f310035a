import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents';
import { externalEngineOf, startExternalAgentTool, startExternalChild, startExternalRoot, type RemoteAgentConfig } from '../../../src/core/external';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { ACP_WAIT, testAgentSessionsEnv, turnEnds } from '../../support/acpTestAgent';
import { whenState } from '../../support/events';
import { approver, makeRuntime } from '../../support/runtimeFixture';
import { serveTestAgent, type ServedTestAgent } from '../../support/servedAcpAgent';

const texts = (agent: Agent): string[] => agent.log.events.flatMap((e) => (e.type === 'assistant_text' ? [e.text] : []));
const opened = (agent: Agent) => agent.log.events.flatMap((e) => (e.type === 'external_session' ? [e.sessionId] : []));
const TOKEN = 'tok-3f9a1c7e-never-shown';

/**
 * An external agent served over the network (`url` instead of `command`): the tests' agent in a
 * process of its own, listening on 127.0.0.1, reached over WebSocket and over streamable HTTP,
 * through the core API exactly as a local agent is.
 */
for (const transport of ['ws', 'http'] as const) {
  describe(`external agents served over the network (${transport === 'ws' ? 'WebSocket' : 'streamable HTTP'})`, function () {
    this.timeout(60_000);
    let workspace: string;
    let served: ServedTestAgent;
    let runtime: ReturnType<typeof makeRuntime>['runtime'];
    let problems: ReturnType<typeof makeRuntime>['problems'];
    const token = async () => TOKEN;

    async function serve(env: Record<string, string> = {}): Promise<RemoteAgentConfig> {
      served = await serveTestAgent({ ACP_TEST_AGENT_TOKEN: TOKEN, ...env });
      return served.config(transport);
    }
    beforeEach(() => {
      workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-net-'));
      fs.writeFileSync(path.join(workspace, 'notes.txt'), 'first line\n');
      ({ runtime, problems } = makeRuntime({ version: 1, agents: {} }, { workspace }));
    });
    afterEach(async () => {
      await runtime.dispose();
      await served?.stop();
      fs.rmSync(workspace, { recursive: true, force: true });
    });

    it('a prompt streams its text, thoughts and plan into the session; the turn ends completed', async () => {
      const agent = startExternalRoot(runtime, { config: await serve(), token, prompt: 'think: about it\nplan\nsay: all done here' });
      await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
      assert.deepStrictEqual(turnEnds(agent).map((e) => e.reason), ['completed'], JSON.stringify(turnEnds(agent)));
      assert.strictEqual(texts(agent).join(''), 'Thinking: about itall done here');
      assert.strictEqual(agent.plan?.length, 3);
      assert.strictEqual(agent.lastTurnEnd?.finalText, 'all done here');
    });

    it('Stop sends session/cancel over the connection and ends the turn; the same connection answers the next message', async () => {
      const agent = startExternalRoot(runtime, { config: await serve(), token, prompt: 'hang' });
      await whenState(runtime, () => texts(agent).join('').includes('Working until cancelled…'), 'the agent at work', ACP_WAIT);
      const first = opened(agent);
      runtime.stop(agent);
      assert.strictEqual(agent.stopping, 'user');
      await agent.whenIdle();
      assert.deepStrictEqual(turnEnds(agent).map((e) => [e.reason, e.cause]), [['aborted', 'user']]);
      runtime.sendFromUser(agent, 'say: back again');
      await whenState(runtime, () => turnEnds(agent).length === 2, 'the next turn', ACP_WAIT);
      assert.strictEqual(turnEnds(agent)[1].reason, 'completed');
      assert.deepStrictEqual(opened(agent), first, 'no new session: the connection stayed');
    });

    it('a permission goes through Arbor\'s approvals with its diff; the write is recorded for Review', async () => {
      const { prompts, provider } = approver('Allow once');
      runtime.interaction.registerProvider(provider);
      const agent = startExternalRoot(runtime, { config: await serve(), token, prompt: 'read: notes.txt\nwrite: out/result.txt = written from afar' });
      await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
      assert.strictEqual(turnEnds(agent)[0].reason, 'completed', JSON.stringify(turnEnds(agent)));
      assert.ok(texts(agent).join(' ').includes('The file says: first line'));
      assert.strictEqual(prompts.length, 1);
      assert.ok(prompts[0].detail?.includes('+written from afar'), prompts[0].detail);
      assert.strictEqual(fs.readFileSync(path.join(workspace, 'out/result.txt'), 'utf8'), 'written from afar\n');
      assert.deepStrictEqual((await runtime.changes.list(agent.id)).map((c) => c.path), ['out/result.txt']);
    });

    it('the server dropping the connection shows on the node; the next message reconnects and continues the session with session/load', async () => {
      const config = await serve(testAgentSessionsEnv(path.join(workspace, '.sessions')));
      const agent = startExternalRoot(runtime, { config, token, prompt: 'say: remember apples' });
      await whenState(runtime, () => turnEnds(agent).length === 1, 'the first turn', ACP_WAIT);
      served.drop();
      await whenState(runtime, () => /disconnected/.test(externalEngineOf(agent)?.notice?.text ?? ''), 'the node to show the dropped connection', ACP_WAIT);
      assert.match(externalEngineOf(agent)?.notice?.detail ?? '', /connects again.*session\/load/s);
      runtime.sendFromUser(agent, 'recall');
      await whenState(runtime, () => turnEnds(agent).length === 2, 'the turn after the drop', ACP_WAIT);
      assert.strictEqual(turnEnds(agent)[1].reason, 'completed', JSON.stringify(turnEnds(agent)[1]));
      assert.match(agent.lastTurnEnd?.finalText ?? '', /I remember: say: remember apples/);
      const [first, second] = opened(agent);
      assert.strictEqual(second, first, 'the same session of the agent, loaded');
      assert.ok(texts(agent).some((t) => /reopened its own session \(session\/load\)/.test(t)), texts(agent).join('\n'));
      assert.strictEqual(externalEngineOf(agent)?.notice, undefined, 'connected again: the node no longer says disconnected');
    });

    it('a connection dropped during a turn ends it with EXTERNAL_AGENT_DISCONNECTED; an agent without session/load reconnects with a fresh memory, and says so', async () => {
      const config = await serve(testAgentSessionsEnv(path.join(workspace, '.sessions'), { loadSession: false }));
      const agent = startExternalRoot(runtime, { config, token, prompt: 'say: remember pears\ndrop-connection' });
      await whenState(runtime, () => turnEnds(agent).length === 1, 'the dropped turn', ACP_WAIT);
      assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_DISCONNECTED', JSON.stringify(agent.lastTurnEnd));
      assert.match(agent.lastTurnEnd?.message ?? '', new RegExp(`Served Agent at ${transport}://127\\.0\\.0\\.1:\\d+/.*Your next message connects again`, 's'));
      await agent.whenIdle();
      assert.match(externalEngineOf(agent)?.notice?.text ?? '', /fresh memory/);
      runtime.sendFromUser(agent, 'recall');
      await whenState(runtime, () => turnEnds(agent).length === 2, 'the turn after the drop', ACP_WAIT);
      assert.match(agent.lastTurnEnd?.finalText ?? '', /I remember nothing/);
      assert.ok(texts(agent).some((t) => /starts with a fresh memory: its connection closed and this agent cannot load its session/.test(t)), texts(agent).join('\n'));
    });

    it('a wrong token, or none, is EXTERNAL_AGENT_UNAUTHORIZED naming the command that sets it; the token is in no log, transcript or error', async () => {
      const config = await serve();
      const wrong = startExternalRoot(runtime, { config, token: async () => `${TOKEN}-wrong`, prompt: 'say: hi' });
      await whenState(runtime, () => turnEnds(wrong).length === 1, 'the refused turn', ACP_WAIT);
      assert.strictEqual(wrong.lastTurnEnd?.code, 'EXTERNAL_AGENT_UNAUTHORIZED', JSON.stringify(wrong.lastTurnEnd));
      assert.match(wrong.lastTurnEnd?.message ?? '', /did not accept its token \(HTTP 403\)\. Set its token with "Arbor: Set External Agent Token\.\.\."/);
      const none = startExternalRoot(runtime, { config: { ...config, name: 'Tokenless' }, prompt: 'say: hi' });
      await whenState(runtime, () => turnEnds(none).length === 1, 'the refused turn', ACP_WAIT);
      assert.strictEqual(none.lastTurnEnd?.code, 'EXTERNAL_AGENT_UNAUTHORIZED');
      assert.match(none.lastTurnEnd?.message ?? '', /needs a token, and none is set \(HTTP 401\)/);
      // With the right token (set after the refusal) the same agent's next message works.
      let current = `${TOKEN}-wrong`;
      const later = startExternalRoot(runtime, { config: { ...config, name: 'Later' }, token: async () => current, prompt: 'say: hi' });
      await whenState(runtime, () => turnEnds(later).length === 1, 'the refused turn', ACP_WAIT);
      current = TOKEN;
      runtime.sendFromUser(later, 'say: let in');
      await whenState(runtime, () => turnEnds(later).length === 2, 'the turn with the token set', ACP_WAIT);
      assert.strictEqual(later.lastTurnEnd?.reason, 'completed', JSON.stringify(later.lastTurnEnd));
      const everything = JSON.stringify([wrong, none, later].map((a) => [a.log.header, a.log.events])) + JSON.stringify(problems.map(([p, e]) => [p, String(e)]));
      assert.ok(!everything.includes(TOKEN), 'the token is nowhere in what Arbor recorded');
    });
  });
}

describe('external agents served over the network: delegated and unreachable', function () {
  this.timeout(60_000);
  it('start_external_agent reaches a served agent with the token the directory keeps for it; its report reaches the Arbor agent', async () => {
    const served = await serveTestAgent({ ACP_TEST_AGENT_TOKEN: TOKEN });
    const script = {
      version: 1 as const,
      agents: {
        lead: {
          turns: [
            [{ toolCalls: [{ name: 'start_external_agent', arguments: { agent: 'Served Agent', task: 'say: hello from afar' } }] }, { text: 'started it' }],
            [{ text: 'got the report' }],
          ],
        },
      },
    };
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-net-'));
    const { runtime } = makeRuntime(script, { workspace });
    try {
      const asked: string[] = [];
      const directory = { list: () => [served.config('ws')], secrets: async () => ({}), token: async (config: { name: string }) => (asked.push(config.name), TOKEN) };
      runtime.registerTool(startExternalAgentTool(runtime, directory, startExternalChild));
      const lead = runtime.startRoot({ prompt: 'delegate', label: 'lead' });
      await whenState(runtime, () => lead.turnCount === 2 && lead.status === 'idle', 'the lead\'s second turn', ACP_WAIT);
      const report = lead.log.events.find((e) => e.type === 'user_message' && e.from === 'child');
      assert.ok(report?.type === 'user_message' && report.text.includes('hello from afar'), JSON.stringify(report));
      assert.deepStrictEqual(asked, ['Served Agent']);
    } finally {
      await runtime.dispose();
      await served.stop();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('a server that is not there is EXTERNAL_AGENT_DISCONNECTED saying it cannot be reached; nothing hangs', async () => {
    const served = await serveTestAgent();
    const config = served.config('ws', 'Gone');
    await served.stop();
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-net-'));
    const { runtime } = makeRuntime({ version: 1, agents: {} }, { workspace });
    try {
      const agent = startExternalRoot(runtime, { config, prompt: 'say: hi' });
      await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
      assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_DISCONNECTED', JSON.stringify(agent.lastTurnEnd));
      assert.match(agent.lastTurnEnd?.message ?? '', /cannot be reached \(ECONNREFUSED\)/);
      const ends: SessionEvent[] = turnEnds(agent);
      assert.strictEqual(ends.length, 1);
    } finally {
      await runtime.dispose();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
