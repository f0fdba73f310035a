import * as assert from 'assert';
import * as fs from 'node:fs';
import type { Agent } from '../../../src/core/agents/agent';
import { ArborError, isArborError } from '../../../src/core/errors';
import type { InteractionPrompt } from '../../../src/core/interaction';
import { ScriptedModel, type ModelScript } from '../../../src/core/models/scriptedModel';
import { Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore, MISSING_TOOL_RESULT, type SessionEvent, type SessionHeader } from '../../../src/core/sessions';
import { header, makeTempDir, tick as at } from '../../support/sessionFixtures';
import { holdOpenOf } from '../../support/fileHandles';
import { reasons, recordingModel, toolResults, until, userMessages } from '../../support/runtimeFixture';
import { whenState } from '../../support/events';

const question = { questions: [{ id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] }] };

/** A runtime on a JSONL store in `dir`, as a new window would create it, recording every model call. */
function durableRuntime(dir: string, script: ModelScript, ids: Record<string, string> = {}) {
  const store = new JsonlSessionStore(dir, { flushDelayMs: 1 });
  const { model, calls } = recordingModel(script);
  let n = 0;
  const runtime = new Runtime({ model, sessions: store, newId: (label) => ids[label] ?? `${label}-${++n}` });
  return { store, runtime, calls };
}

/** Writes a finished (or, without turn_end, crashed) session the way an earlier window left it. */
async function writeSession(dir: string, head: SessionHeader, events: SessionEvent[]): Promise<void> {
  const store = new JsonlSessionStore(dir);
  const log = store.create(head);
  for (const event of events) log.append(event);
  await log.close();
}

function recordingProvider() {
  const prompts: InteractionPrompt[] = [];
  return { prompts, provider: { ask: async (p: InteractionPrompt) => (prompts.push(p), p.questions.map((q) => ({ id: q.id, selected: [q.options[0].label] }))) } };
}

function fileEvents(store: JsonlSessionStore, id: string): Array<Record<string, unknown>> {
  return fs
    .readFileSync(store.fileOf(id), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('runtime: resuming durable sessions', () => {
  let dir: string;
  let cleanup: () => void;
  const runtimes: Runtime[] = [];
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-resume-')));
  afterEach(async () => {
    for (const r of runtimes.splice(0)) await r.dispose();
    cleanup();
  });
  const track = <T extends { runtime: Runtime }>(x: T): T => (runtimes.push(x.runtime), x);

  it('reopens a session recorded as a subagent as a root with no owner, and that root may ask the human', async () => {
    await writeSession(dir, header('kid-1', { kind: 'continuable', parentSession: 'lead-1', delegationDepth: 1, label: 'Kid' }), [
      { type: 'turn_start', at: at(), turn: 1 },
      { type: 'user_message', at: at(), text: 'research databases', from: 'parent' },
      { type: 'assistant_text', at: at(), text: 'Postgres and SQLite look right.' },
      { type: 'turn_end', at: at(), turn: 1, reason: 'completed' },
    ]);
    const { runtime, store } = track(
      durableRuntime(dir, { version: 1, agents: { Kid: { turns: [[{ text: 'unused' }], [{ toolCalls: [{ name: 'ask_user_question', arguments: question }] }, { text: 'noted' }]] } } }),
    );
    const { prompts, provider } = recordingProvider();
    runtime.interaction.registerProvider(provider);

    const agent = await runtime.resumeRoot('kid-1', { message: 'pick one with the user' });
    assert.strictEqual(agent.id, 'kid-1', 'the same session continues');
    assert.strictEqual(agent.kind, 'root');
    assert.strictEqual(agent.delegationDepth, 0, 'a resumed root starts a new run');
    assert.strictEqual(runtime.agents.isRoot(agent), true, 'registered with no owner');
    assert.strictEqual(runtime.agents.ownerOf(agent), undefined);
    assert.strictEqual(agent.log.header.parentSession, 'lead-1', 'the recorded lineage stays as history');
    await agent.whenIdle();

    assert.strictEqual(prompts.length, 1, 'the question reached the provider');
    assert.strictEqual(prompts[0].agent?.id, 'kid-1');
    assert.deepStrictEqual(JSON.parse(toolResults(agent)[0].content), { answers: [{ id: 'db', selected: ['Postgres'] }] });
    assert.deepStrictEqual(reasons(agent), ['completed', 'completed']);
    assert.strictEqual(agent.turnCount, 2, 'turns continue from the log');
    await store.flushAll();
    const onDisk = fileEvents(store, 'kid-1');
    assert.strictEqual(onDisk[0].id, 'kid-1');
    assert.ok(onDisk.some((e) => e.type === 'question'), 'the new turn is appended to the same file');
  });

  it('re-resolves the persisted interaction mode: an autonomous session resumes without the ask tool', async () => {
    await writeSession(dir, header('auto-1', { label: 'Auto', interactionMode: 'autonomous' }), []);
    const { runtime, calls } = track(durableRuntime(dir, { version: 1, agents: { Auto: { turns: [[{ text: 'done' }]] } } }));
    const agent = await runtime.resumeRoot('auto-1', { message: 'go' });
    await agent.whenIdle();
    assert.strictEqual((agent.run as { mode?: string }).mode, 'autonomous');
    const tools = calls[0].tools.map((t) => t.name);
    assert.ok(!tools.includes('ask_user_question'), `unattended runs never see ask_user_question (saw ${tools.join(', ')})`);
  });

  it('carries the conversation over: the next model request starts with the old messages', async () => {
    await writeSession(dir, header('lead-1', { label: 'Lead' }), [
      { type: 'turn_start', at: at(), turn: 1 },
      { type: 'user_message', at: at(), text: 'List the files.', from: 'user' },
      { type: 'assistant_text', at: at(), text: 'Looking.' },
      { type: 'tool_call', at: at(), call: { id: 'c1', name: 'list_agents', arguments: '{"scope":"children"}' } },
      { type: 'tool_result', at: at(), toolCallId: 'c1', name: 'list_agents', content: '[]' },
      { type: 'assistant_text', at: at(), text: 'There are none.' },
      { type: 'turn_end', at: at(), turn: 1, reason: 'completed' },
    ]);
    const { runtime, calls } = track(durableRuntime(dir, { version: 1, agents: { Lead: { turns: [[{ text: 'x' }], [{ text: 'Still none.' }]] } } }));
    const agent = await runtime.resumeRoot('lead-1');
    assert.strictEqual(agent.status, 'idle', 'without a message the resumed agent waits for one');
    runtime.sendFromUser(agent, 'And now?');
    await agent.whenIdle();
    assert.strictEqual(calls.length, 1);
    assert.deepStrictEqual(calls[0].messages, [
      { role: 'user', content: 'List the files.' },
      { role: 'assistant', content: 'Looking.', toolCalls: [{ id: 'c1', name: 'list_agents', arguments: '{"scope":"children"}' }] },
      { role: 'tool', toolCallId: 'c1', name: 'list_agents', content: '[]' },
      { role: 'assistant', content: 'There are none.' },
      { role: 'user', content: 'And now?' },
    ]);
    assert.strictEqual(calls[0].turn, 2);
  });

  it('repairs a turn the process died in: recorded as interrupted on disk, its dangling tool call closed for the model', async () => {
    await writeSession(dir, header('crashed-1', { label: 'Crashed' }), [
      { type: 'turn_start', at: at(), turn: 1 },
      { type: 'user_message', at: at(), text: 'Build it.', from: 'user' },
      { type: 'tool_call', at: at(), call: { id: 'c1', name: 'list_agents', arguments: '{}' } },
    ]);
    const { runtime, store, calls } = track(durableRuntime(dir, { version: 1, agents: { Crashed: { turns: [[{ text: 'x' }], [{ text: 'Starting over.' }]] } } }));
    const agent = await runtime.resumeRoot('crashed-1');
    assert.strictEqual(agent.lastTurnEnd?.reason, 'interrupted');
    const repaired = fileEvents(store, 'crashed-1').at(-1);
    assert.deepStrictEqual({ type: repaired?.type, turn: repaired?.turn, reason: repaired?.reason }, { type: 'turn_end', turn: 1, reason: 'interrupted' });

    runtime.sendFromUser(agent, 'Try again.');
    await agent.whenIdle();
    assert.deepStrictEqual(calls[0].messages.slice(0, 3), [
      { role: 'user', content: 'Build it.' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'list_agents', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c1', name: 'list_agents', content: MISSING_TOOL_RESULT, isError: true },
    ]);
    assert.deepStrictEqual(reasons(agent), ['interrupted', 'completed']);
  });

  it('sums the recorded usage into the resumed agent', async () => {
    await writeSession(dir, header('u-1', { label: 'Usage' }), [
      { type: 'turn_start', at: at(), turn: 1 },
      { type: 'user_message', at: at(), text: 'hi', from: 'user' },
      { type: 'usage', at: at(), inputTokens: 100, outputTokens: 20 },
      { type: 'usage', at: at(), inputTokens: 40, outputTokens: 7 },
      { type: 'turn_end', at: at(), turn: 1, reason: 'completed' },
    ]);
    const { runtime } = track(durableRuntime(dir, { version: 1, agents: { Usage: { turns: [[{ text: 'x' }], [{ text: 'more', usage: { inputTokens: 5, outputTokens: 1 } }]] } } }));
    const agent = await runtime.resumeRoot('u-1');
    assert.deepStrictEqual({ ...agent.usage }, { inputTokens: 140, outputTokens: 27 });
    runtime.sendFromUser(agent, 'again');
    await agent.whenIdle();
    assert.deepStrictEqual({ ...agent.usage }, { inputTokens: 145, outputTokens: 28 });
  });

  it('refuses a session that is live in this runtime, and a missing one, with typed errors', async () => {
    const { runtime } = track(durableRuntime(dir, { version: 1, agents: { Live: { turns: [[{ hang: true }]] } } }));
    const live = runtime.startRoot({ prompt: 'wait', label: 'Live' });
    await assert.rejects(runtime.resumeRoot(live.id), (e: unknown) => isArborError(e, 'SESSION_IN_USE'));
    await assert.rejects(runtime.resumeRoot('nobody'), (e: unknown) => isArborError(e, 'SESSION_NOT_FOUND'));
    await writeSession(dir, header('twice-1', { label: 'Twice' }), []);
    const [first, second] = await Promise.allSettled([runtime.resumeRoot('twice-1'), runtime.resumeRoot('twice-1')]);
    assert.strictEqual(first.status, 'fulfilled');
    assert.ok(second.status === 'rejected' && isArborError(second.reason, 'SESSION_IN_USE'), 'one session, one live agent');
  });

  it('is unavailable on in-memory sessions', async () => {
    const runtime = new Runtime({ model: new ScriptedModel({ version: 1, agents: {} }) });
    runtimes.push(runtime);
    await assert.rejects(runtime.resumeRoot('x'), (e: unknown) => isArborError(e, 'INPUT_INVALID'));
  });

  describe('cold resume of continuable children from disk', () => {
    const firstWindow: ModelScript = {
      version: 1,
      agents: {
        Lead: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Kid', prompt: 'count the apples' } }] }, { text: 'started' }]] },
        Kid: { turns: [[{ text: 'There are 3 apples.', usage: { inputTokens: 11, outputTokens: 4 } }]] },
      },
    };

    /** The first window: Lead starts Kid, Kid reports and settles; then the window goes away. */
    async function beforeReload(): Promise<void> {
      const { runtime, store } = durableRuntime(dir, firstWindow, { Lead: 'lead-1', Kid: 'kid-1' });
      const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
      await whenState(runtime, () => userMessages(lead).some((m) => m.includes('has been released')), "the kid's settled report");
      await lead.whenIdle();
      await runtime.dispose();
      assert.deepStrictEqual(store.flushAllSync(), []);
    }

    it('a live parent resumed after a reload resumes its settled child from the store, conversation and usage included', async () => {
      await beforeReload();
      const { runtime, store, calls } = track(
        durableRuntime(dir, {
          version: 1,
          agents: {
            // {{agent:Kid}} is read from the rebuilt conversation: the start_subagent result carried over.
            // Turns 1 and 2 (start, then the kid's report) happened before the reload.
            Lead: { turns: [[{ text: 'x' }], [{ text: 'x' }], [{ toolCalls: [{ name: 'send_message', arguments: { agent_id: '{{agent:Kid}}', message: 'and the pears?' } }] }, { text: 'asked' }]] },
            Kid: { turns: [[{ text: 'x' }], [{ text: 'There are 2 pears.', usage: { inputTokens: 1, outputTokens: 1 } }]] },
          },
        }),
      );
      // What the kid looks like the moment it is live again (it settles again soon after).
      let resumed: { parent?: Agent; continuable: boolean; usage: { inputTokens: number; outputTokens: number } } | undefined;
      runtime.onEvent((e) => {
        if (e.type === 'agent_added' && e.agent.id === 'kid-1') {
          resumed = { parent: runtime.agents.parentOf(e.agent), continuable: e.agent.kind === 'continuable', usage: { ...e.agent.usage } };
        }
      });
      const lead = await runtime.resumeRoot('lead-1', { message: 'ask the kid about pears' });
      await whenState(runtime, () => toolResults(lead).some((r) => r.name === 'send_message'), 'the send_message result');
      assert.ok(resumed, 'the kid was live again');
      assert.deepStrictEqual(JSON.parse(toolResults(lead).at(-1)!.content), { agent_id: 'kid-1', status: 'resumed' });
      assert.strictEqual(resumed.parent, lead, 'resumed as the live child of its caller');
      assert.strictEqual(resumed.continuable, true);
      assert.deepStrictEqual(resumed.usage, { inputTokens: 11, outputTokens: 4 }, 'past usage carried over');
      await whenState(runtime, () => userMessages(lead).some((m) => m.includes('2 pears')), "the resumed kid's report");
      const kidCall = calls.find((c) => c.agentId === 'kid-1');
      assert.ok(kidCall);
      assert.deepStrictEqual(kidCall.messages.map((m) => m.content), ['count the apples', 'There are 3 apples.', 'and the pears?']);
      assert.strictEqual(kidCall.turn, 2);
      await lead.whenIdle();
      await until(() => !store.openLogs().some((l) => l.header.id === 'kid-1'), "the settled kid's log to close");
    });

    it('is refused for an agent that is not the recorded parent, which leaves the session untouched', async () => {
      await beforeReload();
      const before = fs.readFileSync(new JsonlSessionStore(dir).fileOf('kid-1'), 'utf8');
      const { runtime, store } = track(
        durableRuntime(dir, { version: 1, agents: { Stranger: { turns: [[{ toolCalls: [{ name: 'send_message', arguments: { agent_id: 'kid-1', message: 'hi' } }] }, { text: 'refused' }]] } } }),
      );
      const stranger = runtime.startRoot({ prompt: 'go', label: 'Stranger' });
      await stranger.whenIdle();
      const result = toolResults(stranger)[0];
      assert.strictEqual(result.isError, true);
      assert.strictEqual(JSON.parse(result.content).code, 'SUBAGENT_NOT_FOUND');
      assert.strictEqual(runtime.agents.get('kid-1'), undefined);
      assert.ok(!store.openLogs().some((l) => l.header.id === 'kid-1'), 'never taken over for writing');
      assert.strictEqual(fs.readFileSync(store.fileOf('kid-1'), 'utf8'), before);
    });

    it('a child the user reopened as a root no longer takes messages from its recorded parent', async () => {
      await beforeReload();
      const { runtime } = track(
        durableRuntime(dir, {
          version: 1,
          agents: { Lead: { turns: [[{ text: 'x' }], [{ text: 'x' }], [{ toolCalls: [{ name: 'send_message', arguments: { agent_id: 'kid-1', message: 'hi' } }] }, { text: 'ok' }]] } },
        }),
      );
      const kid = await runtime.resumeRoot('kid-1');
      const lead = await runtime.resumeRoot('lead-1', { message: 'message the kid' });
      await lead.whenIdle();
      const result = JSON.parse(toolResults(lead).at(-1)!.content);
      assert.strictEqual(result.code, 'SUBAGENT_UNAUTHORIZED');
      assert.strictEqual(runtime.agents.get('kid-1'), kid);
      assert.strictEqual(runtime.agents.isRoot(kid), true);
      assert.strictEqual(kid.pendingCount, 0);
    });

    it('an interrupt never cold-resumes a settled child', async () => {
      await beforeReload();
      const { runtime, store } = track(durableRuntime(dir, { version: 1, agents: { Lead: { turns: [[{ text: 'x' }]] } } }));
      const lead = await runtime.resumeRoot('lead-1');
      assert.deepStrictEqual(runtime.subagents.interrupt('kid-1', { kind: 'user', parentSessionId: 'lead-1' }), { accepted: true });
      assert.deepStrictEqual(runtime.subagents.interrupt('kid-1', { kind: 'ancestor', agent: lead }), { accepted: true });
      assert.strictEqual(runtime.agents.get('kid-1'), undefined);
      assert.ok(!store.openLogs().some((l) => l.header.id === 'kid-1'));
    });

    it('two messages at once resume the child once and both reach it in order', async () => {
      await beforeReload();
      const { runtime } = track(
        durableRuntime(dir, {
          version: 1,
          agents: {
            Lead: {
              turns: [
                [{ text: 'x' }],
                [{ text: 'x' }],
                [
                  {
                    toolCalls: [
                      { name: 'send_message', arguments: { agent_id: 'kid-1', message: 'first' } },
                      { name: 'send_message', arguments: { agent_id: 'kid-1', message: 'second' } },
                    ],
                  },
                  { text: 'sent' },
                ],
              ],
            },
          },
        }),
      );
      let added = 0;
      runtime.onEvent((e) => {
        if (e.type === 'agent_added' && e.agent.id === 'kid-1') added++;
      });
      const lead = await runtime.resumeRoot('lead-1', { message: 'send two' });
      await lead.whenIdle();
      const statuses = toolResults(lead).slice(-2).map((r) => JSON.parse(r.content).status);
      assert.deepStrictEqual(statuses, ['resumed', 'queued']);
      assert.strictEqual(added, 1);
      await whenState(runtime, () => runtime.agents.get('kid-1') === undefined, 'the kid to settle again');
      await runtime.dispose();
      const kidMessages = fileEvents(new JsonlSessionStore(dir), 'kid-1')
        .filter((e) => e.type === 'user_message' && e.from === 'parent')
        .map((e) => e.text);
      assert.deepStrictEqual(kidMessages, ['count the apples', 'first', 'second']);
    });
  });

  describe('logs of ended agents', () => {
    it('are closed, so the store holds only live sessions, and an in-process settled child resumes from the store', async () => {
      const { runtime, store } = track(
        durableRuntime(
          dir,
          {
            version: 1,
            agents: {
              Lead: {
                turns: [
                  [{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'Once', prompt: 'p' } }, { name: 'start_subagent', arguments: { label: 'Kid', prompt: 'k' } }] }, { text: 'ok' }],
                  [{ toolCalls: [{ name: 'send_message', arguments: { agent_id: 'kid-1', message: 'more' } }] }, { text: 'ok' }],
                ],
              },
              Once: { turns: [[{ text: 'one' }]] },
              Kid: { turns: [[{ text: 'k1' }], [{ text: 'k2' }]] },
            },
          },
          { Lead: 'lead-1', Kid: 'kid-1', Once: 'once-1' },
        ),
      );
      const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
      await whenState(runtime, () => userMessages(lead).some((m) => m.includes('has been released')), 'the kid to settle');
      await lead.whenIdle();
      await until(() => store.openLogs().map((l) => l.header.id).join() === 'lead-1', 'only the live root to stay open', 3000);
      assert.ok(fs.existsSync(store.fileOf('once-1')) && fs.existsSync(store.fileOf('kid-1')), 'ended sessions stay on disk');

      runtime.sendFromUser(lead, 'talk to the kid again');
      await whenState(runtime, () => userMessages(lead).some((m) => m.includes('k2')), "the kid's second report");
      assert.deepStrictEqual(JSON.parse(toolResults(lead).at(-1)!.content), { agent_id: 'kid-1', status: 'resumed' });
    });
  });
});

describe('runtime: queued messages survive a reload', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-queue-')));
  afterEach(() => cleanup());

  const script: ModelScript = {
    version: 1,
    agents: { Lead: { turns: [[{ hang: true }], [{ text: 'B done' }], [{ text: 'C done' }], [{ text: 'D done' }]] } },
  };

  it('a parked queue left at shutdown comes back parked after a reopen, then runs in FIFO order', async () => {
    const first = durableRuntime(dir, script, { Lead: 'lead-1' });
    const lead = first.runtime.startRoot({ prompt: 'A', label: 'Lead' });
    lead.send('B', { from: 'user', wake: false });
    lead.send('C', { from: 'user', wake: false });
    await whenState(first.runtime, () => lead.status === 'running', 'the first turn');
    first.runtime.stop(lead);
    await lead.whenIdle();
    await first.runtime.dispose(); // the window closes
    await first.store.dispose();

    const second = durableRuntime(dir, script);
    const again = await second.runtime.resumeRoot('lead-1');
    assert.strictEqual(again.pendingCount, 2, 'the unclaimed messages are back');
    assert.strictEqual(again.isParked, true, 'parked: nothing runs until you say so');
    again.send('D', { from: 'user' });
    await whenState(second.runtime, () => reasons(again).length === 4 && again.status === 'idle', 'the queue to drain');
    assert.deepStrictEqual(userMessages(again), ['A', 'B', 'C', 'D']);
    assert.deepStrictEqual(reasons(again), ['aborted:user', 'completed', 'completed', 'completed']);
    await second.runtime.dispose();
    await second.store.dispose();
  });

  it('messages dropped on purpose (a clearing cancel, End Agent) stay dropped', async () => {
    const first = durableRuntime(dir, script, { Lead: 'lead-2' });
    const lead = first.runtime.startRoot({ prompt: 'A', label: 'Lead' });
    lead.send('B', { from: 'user', wake: false });
    await whenState(first.runtime, () => lead.status === 'running', 'the first turn');
    lead.send('C', { from: 'user', wake: false });
    await first.runtime.end(lead);
    await lead.whenIdle();
    await first.runtime.dispose();
    await first.store.dispose();

    const second = durableRuntime(dir, script);
    const again = await second.runtime.resumeRoot('lead-2');
    assert.strictEqual(again.pendingCount, 0);
    assert.strictEqual(again.isParked, false);
    await second.runtime.dispose();
    await second.store.dispose();
  });
});

describe('runtime: a question or approval open when the window closed', () => {
let dir: string;
let cleanup: () => void;
const runtimes: Runtime[] = [];
beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-waiting-')));
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.dispose();
  cleanup();
});
const track = <T extends { runtime: Runtime }>(x: T): T => (runtimes.push(x.runtime), x);
  const lead = (after: ModelScript['agents'][string]['turns'][number]): ModelScript => ({
    version: 1,
    agents: { Lead: { turns: [[{ toolCalls: [{ name: 'ask_user_question', arguments: question }] }, { text: 'unused' }], after] } },
  });

  /**
   * Runs the lead until its question is open, then closes the window the way deactivation does
   * (the runtime's dispose started, every log closed synchronously in the same run of code).
   * The next window starts only once this one has finished: whatever its aborted turn still
   * records has happened by then, so a resume sees it every time, not by chance.
   */
  async function leaveQuestionOpen(): Promise<string> {
    const { runtime, store } = durableRuntime(dir, lead([{ text: 'unused' }]), { Lead: 'lead-1' });
    runtime.interaction.registerProvider({ ask: () => new Promise<never>(() => undefined) });
    const agent = runtime.startRoot({ prompt: 'set up the project', label: 'Lead' });
    await whenState(runtime, () => agent.log.events.some((e) => e.type === 'question'), 'the question to be open');
    const closing = runtime.dispose();
    assert.deepStrictEqual(store.closeAllSync(), [], 'every log written and let go at deactivation');
    await closing;
    return agent.id;
  }

  it('is asked again on resume, and the answer reaches the agent as the result of the call that asked', async () => {
    const id = await leaveQuestionOpen();
    const { runtime, calls } = track(durableRuntime(dir, lead([{ text: 'Going with Postgres.' }])));
    const { prompts, provider } = recordingProvider();
    runtime.interaction.registerProvider(provider);

    const agent = await runtime.resumeRoot(id);
    await agent.whenIdle();
    assert.deepStrictEqual(
      prompts.map((p) => p.questions[0].question),
      ['Which database?'],
      'the same question is asked once more',
    );
    assert.strictEqual(agent.lastTurnEnd?.reason, 'completed');
    assert.strictEqual(agent.lastTurnEnd?.finalText, 'Going with Postgres.');
    const sent = calls.at(-1)!.messages;
    const asked = sent.find((m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.name === 'ask_user_question'));
    const callId = asked?.role === 'assistant' ? asked.toolCalls![0].id : undefined;
    const results = sent.filter((m) => m.role === 'tool' && m.toolCallId === callId);
    assert.strictEqual(results.length, 1, 'one result for the call, not a "did not complete" one too');
    assert.match(results[0].content, /Postgres/, 'the answer is the result of the call that asked');
    assert.ok(!sent.some((m) => m.role === 'tool' && m.content === MISSING_TOOL_RESULT));

    // A later rebuild of the conversation (another resume) keeps the answer.
    await runtime.end(agent);
    const again = track(durableRuntime(dir, lead([{ text: 'unused' }])));
    const reopened = await again.runtime.resumeRoot(id);
    const rebuilt = reopened.conversation.filter((m) => m.role === 'tool' && m.toolCallId === callId);
    assert.strictEqual(rebuilt.length, 1);
    assert.match(rebuilt[0].content, /Postgres/);
    assert.strictEqual(reopened.status, 'idle', 'an answered question is not asked a third time');
  });

  it('tells the agent clearly when the human declines the question asked again', async () => {
    const id = await leaveQuestionOpen();
    const { runtime } = track(durableRuntime(dir, lead([{ text: 'I will ask later.' }])));
    runtime.interaction.registerProvider({
      ask: async () => {
        throw new ArborError('ASK_CANCELLED', 'The human dismissed the question.');
      },
    });
    const agent = await runtime.resumeRoot(id);
    await agent.whenIdle();
    const result = toolResults(agent).at(-1)!;
    assert.strictEqual(result.name, 'ask_user_question');
    assert.match(result.content, /dismiss|declin|cancel/i);
    assert.strictEqual(agent.lastTurnEnd?.reason, 'completed');
  });

  it('is asked again when the window closed while the new session file was still being created', async () => {
    // The first write of the session (the file's create) is held after the file exists and
    // before its writer hears so: deactivation comes exactly then.
    const { runtime, store } = durableRuntime(dir, lead([{ text: 'unused' }]), { Lead: 'lead-1' });
    const hold = holdOpenOf(store.fileOf('lead-1'));
    try {
      runtime.interaction.registerProvider({ ask: () => new Promise<never>(() => undefined) });
      const first = runtime.startRoot({ prompt: 'set up the project', label: 'Lead' });
      await hold.opened;
      await whenState(runtime, () => first.log.events.some((e) => e.type === 'question'), 'the question to be open');
      const closing = runtime.dispose();
      assert.deepStrictEqual(store.closeAllSync(), [], 'the file being created is the log\'s own');
      hold.release();
      await closing; // the aborted turn has recorded its end, in memory only
      await hold.closed;
    } finally {
      hold.restore();
    }
    const next = track(durableRuntime(dir, lead([{ text: 'Going with Postgres.' }])));
    const { prompts, provider } = recordingProvider();
    next.runtime.interaction.registerProvider(provider);
    const agent = await next.runtime.resumeRoot('lead-1');
    await agent.whenIdle();
    assert.deepStrictEqual(prompts.map((p) => p.questions[0].question), ['Which database?']);
    assert.deepStrictEqual(reasons(agent), ['interrupted', 'completed'], "the old window's aborted turn never reached the file");
  });

  it('is not asked again when the human stopped the agent while it waited', async () => {
    const { runtime, store } = durableRuntime(dir, lead([{ text: 'unused' }]), { Lead: 'lead-1' });
    runtime.interaction.registerProvider({ ask: (p: InteractionPrompt) => new Promise<never>((_, reject) => p.signal?.addEventListener('abort', () => reject(p.signal?.reason))) });
    const agent = runtime.startRoot({ prompt: 'set up the project', label: 'Lead' });
    await whenState(runtime, () => agent.log.events.some((e) => e.type === 'question'), 'the question to be open');
    runtime.stop(agent);
    await agent.whenIdle();
    await runtime.dispose();
    await store.dispose();
    const next = track(durableRuntime(dir, lead([{ text: 'unused' }])));
    const { prompts, provider } = recordingProvider();
    next.runtime.interaction.registerProvider(provider);
    const resumed = await next.runtime.resumeRoot(agent.id);
    assert.strictEqual(resumed.status, 'idle');
    assert.deepStrictEqual(prompts, []);
  });
});
