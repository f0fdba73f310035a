import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent, AgentChange } from '../../../src/core/agents';
import { isArborError } from '../../../src/core/errors';
import { externalEngineOf, parseExternalAgents, resumeExternalRoot, startExternalAgentTool, startExternalChild, startExternalRoot } from '../../../src/core/external';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { ACP_WAIT, testAgentConfig, turnEnds } from '../../support/acpTestAgent';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { Runtime } from '../../../src/core/runtime';
import { makeRuntime, recordingModel, approver, until } from '../../support/runtimeFixture';
import { whenState } from '../../support/events';


const texts = (agent: Agent): string[] => agent.log.events.filter((e): e is Extract<SessionEvent, { type: 'assistant_text' }> => e.type === 'assistant_text').map((e) => e.text);

describe('external agents over the Agent Client Protocol (a real child process)', function () {
  this.timeout(60_000);
  let workspace: string;
  let runtime: ReturnType<typeof makeRuntime>['runtime'];
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-'));
    fs.writeFileSync(path.join(workspace, 'notes.txt'), 'first line\n');
    ({ runtime } = makeRuntime({ version: 1, agents: {} }, { workspace }));
  });
  afterEach(async () => {
    await runtime.dispose();
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('streams the agent\'s text, thoughts and plan into the session and ends the turn completed', async () => {
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'think: about it\nplan\nsay: all done here' });
    assert.strictEqual(agent.log.header.external, 'Test Agent');
    await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
    assert.deepStrictEqual(turnEnds(agent).map((e) => e.reason), ['completed']);
    // Text is written as it streams, possibly in several pieces: what matters is what and in which order.
    assert.strictEqual(texts(agent).join(''), 'Thinking: about itall done here');
    // The agent's plan is the agent's plan, as an Arbor agent's is: recorded in the session and shown under its node.
    const plan = [{ step: 'Read the file', status: 'done' }, { step: 'Change it', status: 'in_progress' }, { step: 'Check the result', status: 'pending' }];
    assert.deepStrictEqual(agent.plan, plan);
    assert.deepStrictEqual(agent.log.events.filter((e) => e.type === 'plan').map((e) => e.items), [plan]);
    assert.strictEqual(agent.lastTurnEnd?.finalText, 'all done here');
  });

  it('reads a file through the client, and asks before writing one: the edit is recorded for review', async () => {
    const { prompts, provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'read: notes.txt\nwrite: out/result.txt = written by the agent' });
    await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
    assert.strictEqual(turnEnds(agent)[0].reason, 'completed', JSON.stringify(turnEnds(agent)));
    assert.ok(texts(agent).join(' ').includes('The file says: first line'));
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'out/result.txt'), 'utf8'), 'written by the agent\n');
    assert.strictEqual(prompts.length, 1, 'one question for one edit: the write is covered by the permission just given');
    assert.ok(prompts[0].detail?.includes('+written by the agent'), 'the whole diff is shown');
    const changed = await runtime.changes.list(agent.id);
    assert.deepStrictEqual(changed.map((c) => [c.path, c.original]), [['out/result.txt', null]]);
    const tools = agent.log.events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result').map((e) => e.type);
    assert.deepStrictEqual(tools, ['tool_call', 'tool_result']);
  });

  it('shows an edit as it would change the file now, whatever old text the agent claims', async () => {
    const { prompts, provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    // The test agent sends its diff with no old text, as if the file were new: it is not.
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'write: notes.txt = second line' });
    await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
    assert.strictEqual(prompts.length, 1);
    const detail = prompts[0].detail ?? '';
    assert.ok(detail.includes('--- a/notes.txt') && detail.includes('-first line') && detail.includes('+second line'), detail);
    assert.ok(!detail.includes('/dev/null'), 'not shown as a new file');
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8'), 'second line\n');
  });

  it('a write other than the edit the person allowed is asked about again with its own diff', async () => {
    const { prompts, provider } = approver('Allow once', (p) => {
      if (prompts.length === 2) assert.ok(p.detail?.includes('+something else'), p.detail);
    });
    runtime.interaction.registerProvider(provider);
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'write-other: notes.txt = harmless | something else' });
    await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
    assert.strictEqual(prompts.length, 2, 'the permission showed one text, the write brought another: asked again');
    assert.ok(prompts[0].detail?.includes('+harmless'));
    assert.ok(prompts[1].detail?.includes('+something else') && !prompts[1].detail.includes('harmless'), prompts[1].detail);
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8'), 'something else\n');
  });

  it('a write other than the edit the person allowed is not written when the second question is denied', async () => {
    let asked = 0;
    runtime.interaction.registerProvider({
      ask: async (p) => [{ id: p.questions[0].id, selected: [asked++ === 0 ? 'Allow once' : 'Deny'] }],
    });
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'write-other: notes.txt = harmless | something else' });
    await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
    assert.strictEqual(asked, 2);
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8'), 'first line\n', 'nothing written');
    assert.ok(texts(agent).join(' ').includes('Writing notes.txt failed'), texts(agent).join(' | '));
  });

  it('denies a delegated external agent\'s edit without asking anyone, and it carries on', async () => {
    const { prompts, provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    const parent = runtime.startRoot({ prompt: 'wait', label: 'lead' });
    await parent.whenIdle();
    const child = startExternalChild(runtime, parent, { config: testAgentConfig(), prompt: 'write: x.txt = nope\nsay: finished' });
    assert.strictEqual(child.kind, 'continuable');
    await whenState(runtime, () => turnEnds(child).length === 1, 'the child turn end', ACP_WAIT);
    assert.strictEqual(prompts.length, 0);
    assert.ok(!fs.existsSync(path.join(workspace, 'x.txt')));
    assert.ok(texts(child).join(' ').includes('I was not allowed to write x.txt.'));
    const approval = child.log.events.find((e) => e.type === 'approval');
    assert.strictEqual(approval?.type === 'approval' && approval.decision, 'deny');
    await whenState(runtime, () => parent.log.events.some((e) => e.type === 'queued' && e.from === 'child' && e.text.includes('finished')), 'the report to the parent', ACP_WAIT);
  });

  it('send_message reaches a live external child: its conversation continues in the same process', async () => {
    const parent = runtime.startRoot({ prompt: 'wait', label: 'lead' });
    await parent.whenIdle();
    const child = startExternalChild(runtime, parent, { config: testAgentConfig(), prompt: 'say: one' });
    await whenState(runtime, () => turnEnds(child).length === 1, 'the first turn', ACP_WAIT);
    const pid = externalEngineOf(child)?.pid;
    assert.ok(runtime.agents.isLive(child), 'an external child stays live between turns');
    await runtime.subagents.deliver(parent, child.id, 'say: two');
    await whenState(runtime, () => turnEnds(child).length === 2, 'the second turn', ACP_WAIT);
    assert.strictEqual(texts(child).join('|'), 'one|two');
    assert.strictEqual(externalEngineOf(child)?.pid, pid, 'the same process');
  });

  it('start_external_agent makes the external agent a continuable child whose report reaches the Arbor agent', async () => {
    const script = {
      version: 1 as const,
      agents: {
        lead: {
          turns: [
            [{ toolCalls: [{ name: 'start_external_agent', arguments: { agent: 'Test Agent', task: 'say: hello from outside' } }] }, { text: 'started it' }],
            [{ text: 'got the report' }],
          ],
        },
      },
    };
    await runtime.dispose();
    ({ runtime } = makeRuntime(script, { workspace }));
    runtime.registerTool(startExternalAgentTool(runtime, { list: () => [testAgentConfig()], secrets: async () => ({}) }, startExternalChild));
    const lead = runtime.startRoot({ prompt: 'delegate', label: 'lead' });
    await whenState(runtime, () => lead.turnCount === 2 && lead.status === 'idle', 'the lead\'s second turn', ACP_WAIT);
    const child = runtime.agents.all().find((a) => a.engine);
    assert.ok(child, 'the external child is live in the registry');
    assert.strictEqual(child.kind, 'continuable');
    assert.strictEqual(runtime.agents.parentOf(child), lead);
    const report = lead.log.events.find((e) => e.type === 'user_message' && e.from === 'child');
    assert.ok(report?.type === 'user_message' && report.text.includes('hello from outside'), JSON.stringify(report));
  });

  it('start_external_agent names the configured agents when asked for an unknown one', async () => {
    const tool = startExternalAgentTool(runtime, { list: () => [testAgentConfig()], secrets: async () => ({}) }, startExternalChild);
    const parent = runtime.startRoot({ prompt: 'x', label: 'lead' });
    await parent.whenIdle();
    const result = await tool.run({ agent: 'Nope', task: 't' }, { agent: parent } as Parameters<typeof tool.run>[1]);
    assert.strictEqual(result.isError, true);
    assert.match(result.content, /EXTERNAL_AGENT_CONFIG_INVALID.*"Test Agent"/);
  });

  it('runs a command in a client terminal after approval', async () => {
    const { provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'run: echo from-the-terminal' });
    await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
    assert.ok(texts(agent).join(' ').includes('exited with 0 and printed: from-the-terminal'), texts(agent).join(' | '));
  });

  it('Stop sends session/cancel: the node shows stopping until the agent ends its turn, then the turn is aborted', async () => {
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'hang' });
    await whenState(runtime, () => texts(agent).join('').includes('Working until cancelled…'), 'the agent at work', ACP_WAIT);
    runtime.stop(agent);
    assert.strictEqual(agent.stopping, 'user');
    await agent.whenIdle();
    assert.deepStrictEqual(turnEnds(agent).map((e) => [e.reason, e.cause]), [['aborted', 'user']]);
    assert.ok(texts(agent).join('').includes('Working until cancelled…'), 'what it said before the Stop stays');
    runtime.sendFromUser(agent, 'say: back again');
    await whenState(runtime, () => turnEnds(agent).length === 2, 'the next turn', ACP_WAIT);
    assert.strictEqual(turnEnds(agent)[1].reason, 'completed');
  });

  it('an agent that ignores the cancel is reported overdue after the grace; End ends its process group', async () => {
    const overdue: AgentChange[] = [];
    runtime.onEvent((e) => {
      if (e.type === 'agent_changed' && e.change.type === 'stop_overdue') overdue.push(e.change);
    });
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'ignore-cancel', stopGraceMs: 50 });
    await whenState(runtime, () => texts(agent).join('').includes('not stopping'), 'the agent at work', ACP_WAIT);
    runtime.stop(agent);
    await whenState(runtime, () => overdue.length === 1, 'the overdue report', ACP_WAIT);
    assert.strictEqual(agent.status, 'running', 'still stopping: the agent has not ended its turn');
    const pid = externalEngineOf(agent)?.pid;
    assert.ok(pid);
    await runtime.end(agent);
    await until(() => !isAlive(pid), 'the process to end', ACP_WAIT);
    await agent.whenIdle();
    assert.deepStrictEqual(turnEnds(agent).map((e) => e.reason), ['aborted']);
  });

  it('a crash ends the turn with a typed error and its last output; the conversation stays and the next message starts it again', async () => {
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'say: before the crash\ncrash' });
    await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
    assert.strictEqual(agent.lastTurnEnd?.reason, 'error');
    assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_CRASHED');
    assert.match(agent.lastTurnEnd?.message ?? '', /exited with code 3.*crashing on purpose/s);
    assert.strictEqual(texts(agent).join(''), 'before the crash');
    runtime.sendFromUser(agent, 'say: alive again');
    await whenState(runtime, () => turnEnds(agent).length === 2, 'the next turn', ACP_WAIT);
    assert.strictEqual(turnEnds(agent)[1].reason, 'completed');
  });

  it('an agent that needs a sign-in ends the turn with a message naming it and what to run; nothing hangs', async () => {
    const agent = startExternalRoot(runtime, { config: testAgentConfig({ env: { ACP_TEST_AGENT_AUTH: 'required' } }), prompt: 'say: hi' });
    await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
    assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_AUTH_REQUIRED');
    assert.match(agent.lastTurnEnd?.message ?? '', /Test Agent needs you to sign in.*Test login.*Run `/s);
  });

  it('a command that is not an agent fails to start with a typed error', async () => {
    const agent = startExternalRoot(runtime, { config: testAgentConfig({ command: path.join(workspace, 'no-such-program') }), prompt: 'hi' });
    await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
    assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_START_FAILED');
  });

  it('its session is saved and listed like any agent\'s, and resuming it is refused: History keeps it read-only', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-sessions-'));
    const store = new JsonlSessionStore(dir, { flushDelayMs: 1 });
    const durable = new Runtime({ model: recordingModel({ version: 1, agents: {} }).model, sessions: store, workspace });
    try {
      const agent = startExternalRoot(durable, { config: testAgentConfig(), prompt: 'say: kept for later' });
      await whenState(durable, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
      await durable.end(agent);
      await agent.log.flush();
      await assert.rejects(durable.resumeRoot(agent.id), (err: unknown) => isArborError(err, 'EXTERNAL_NOT_RESUMABLE') && /Test Agent/.test((err as Error).message));
      const saved = fs.readFileSync(path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.jsonl'))!), 'utf8');
      assert.match(saved, /"external":"Test Agent"/);
      assert.match(saved, /kept for later/);
    } finally {
      await durable.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Resume of an external session from History (session/load over a real child process)', function () {
  this.timeout(60_000);
  let workspace: string;
  let dir: string;
  let agentSessions: string;
  let runtime: Runtime;
  const userTexts = (agent: Agent): string[] => agent.log.events.flatMap((e) => (e.type === 'user_message' ? [e.text] : []));
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-'));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-sessions-'));
    agentSessions = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-agent-'));
    runtime = new Runtime({ model: recordingModel({ version: 1, agents: {} }).model, sessions: new JsonlSessionStore(dir, { flushDelayMs: 1 }), workspace });
  });
  afterEach(async () => {
    await runtime.dispose();
    for (const d of [workspace, dir, agentSessions]) fs.rmSync(d, { recursive: true, force: true });
  });

  /** Runs the test agent on `prompt` to the end of its turn, then ends it: a past session in History. */
  async function pastSession(config: ReturnType<typeof testAgentConfig>, prompt: string): Promise<Agent> {
    const agent = startExternalRoot(runtime, { config, prompt });
    await whenState(runtime, () => turnEnds(agent).length === 1, 'the turn end', ACP_WAIT);
    await runtime.end(agent);
    await agent.log.flush();
    return agent;
  }

  it('an agent that offers loadSession is resumed through session/load: its replay becomes the transcript, then the conversation continues', async () => {
    const config = testAgentConfig({ env: { ACP_TEST_AGENT_SESSIONS: agentSessions } });
    const past = await pastSession(config, 'say: kept for later');
    const opened = past.log.events.find((e) => e.type === 'external_session');
    assert.ok(opened?.type === 'external_session' && opened.loadSession, 'the agent\'s session and its loadSession are recorded');

    const resumed = await resumeExternalRoot(runtime, past.id, { config, message: 'recall' });
    assert.strictEqual(resumed.id, past.id, 'the same session continues');
    await whenState(runtime, () => turnEnds(resumed).length === 2, 'the resumed turn', ACP_WAIT);
    assert.strictEqual(turnEnds(resumed)[1].reason, 'completed', JSON.stringify(turnEnds(resumed)));
    const after = resumed.log.events.slice(past.log.events.length);
    const replayStart = after.findIndex((e) => e.type === 'assistant_text' && e.text.includes('reopens its session (session/load)'));
    assert.ok(replayStart >= 0, 'the transcript says the session was loaded');
    // What the agent replayed, in order, then this turn's answer.
    const told = after.slice(replayStart + 1).flatMap((e) => (e.type === 'user_message' ? [`you: ${e.text}`] : e.type === 'assistant_text' ? [e.text] : []));
    assert.deepStrictEqual(told, ['you: say: kept for later', 'kept for later', 'I remember: say: kept for later']);
    assert.strictEqual(resumed.lastTurnEnd?.finalText, 'I remember: say: kept for later', "the replay is not this turn's answer");
    const reopened = after.find((e) => e.type === 'external_session');
    assert.ok(reopened?.type === 'external_session' && opened.type === 'external_session' && reopened.sessionId === opened.sessionId, 'the same agent session, loaded');
    assert.strictEqual(userTexts(resumed).at(-2), 'recall', 'the message that resumed it opens the turn the session is loaded in');
  });

  it('an agent without loadSession is not resumed: History keeps its session read-only, with a message saying why', async () => {
    const config = testAgentConfig();
    const past = await pastSession(config, 'say: read only');
    const events = past.log.events.length;
    await assert.rejects(
      resumeExternalRoot(runtime, past.id, { config, message: 'say: again' }),
      (err: unknown) => isArborError(err, 'EXTERNAL_NOT_RESUMABLE') && /Test Agent cannot reopen a past session.*session\/load.*read-only/.test((err as Error).message),
    );
    assert.strictEqual(runtime.agents.get(past.id), undefined, 'nothing was started');
    const saved = (await new JsonlSessionStore(dir).loadSession(past.id)).events;
    assert.strictEqual(saved.length, events, 'the session is unchanged');
  });
});

describe('arbor.externalAgents settings', () => {
  it('keeps valid entries and names each refused one', () => {
    const parsed = parseExternalAgents([
      { name: 'Gemini', command: 'gemini', args: ['--experimental-acp'] },
      { name: 'Gemini', command: 'other' },
      { name: 'Bad', command: '' },
      { name: 'Sneaky', command: 'x', apiKey: 'secret' },
      'nope',
    ]);
    assert.deepStrictEqual(parsed.agents, [{ name: 'Gemini', command: 'gemini', args: ['--experimental-acp'], env: {}, secretEnv: [] }]);
    assert.strictEqual(parsed.problems.length, 4);
    assert.match(parsed.problems[0], /"Gemini" is ignored: another agent already has that name/);
    assert.match(parsed.problems[2], /"Sneaky".*apiKey/);
    assert.ok(isArborError(new Error()) === false);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
