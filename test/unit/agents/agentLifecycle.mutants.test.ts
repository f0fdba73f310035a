import * as assert from 'assert';
import type { Agent, AgentChange, TurnEngine } from '../../../src/core/agents';
import { ArborError } from '../../../src/core/errors';
import type { ToolCall } from '../../../src/core/models/types';
import type { OnProblem } from '../../../src/core/problems';
import { Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore, MemorySessionLog, type SessionEvent, type SessionHeader } from '../../../src/core/sessions';
import { header, makeTempDir, tick as at } from '../../support/sessionFixtures';
import { makeRuntime, reasons, recordingModel, toolResults, until, userMessages } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

// An agent's life as its owner and the views see it: what reaches the views (log appends, session
// problems, an external engine's turn start and overdue Stop), how each kind of send, Stop, hold
// and disposal treats the queue, and what a reopened session or a waiting call starts.

/** The changes of the agent with session id `id` the runtime announces, as they arrive. */
function changesOf(runtime: Runtime, id: string): AgentChange[] {
  const seen: AgentChange[] = [];
  runtime.onEvent((e) => {
    if (e.type === 'agent_changed' && e.agent.id === id) seen.push(e.change);
  });
  return seen;
}

const types = (changes: readonly AgentChange[]): string[] => changes.filter((c) => c.type !== 'log').map((c) => c.type);

/** A memory session log that reports saving problems to whoever listens, as a file-backed one does. */
class ProblemLog extends MemorySessionLog {
  readonly listeners = new Set<(problem: ArborError | undefined) => void>();
  onProblem(listener: (problem: ArborError | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  report(problem: ArborError | undefined): void {
    for (const listener of [...this.listeners]) listener(problem);
  }
}

/** A runtime whose agents write to ProblemLogs (or to logs `makeLog` makes), on the scripted model. */
function runtimeWithLogs<L extends MemorySessionLog>(makeLog: (h: SessionHeader) => L, script = { version: 1 as const, agents: { main: { turns: [[{ text: 'done' }]] } } }, onProblem?: OnProblem) {
  const logs: L[] = [];
  const { model, calls } = recordingModel(script);
  let n = 0;
  const runtime = new Runtime({
    model,
    sessions: { create: (h) => (logs.push(makeLog(h)), logs[logs.length - 1]) },
    newId: (label) => `${label}#${++n}`,
    onProblem,
  });
  return { runtime, logs, calls };
}

describe('agent lifecycle, pinned: what reaches the views', () => {
  const track = disposeAfterEach();
  it('every event appended to the session reaches the views as a log change, in order', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
    track(runtime);
    const seen = changesOf(runtime, 'main#1');
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    const logged = seen.flatMap((c) => (c.type === 'log' ? [c.event] : []));
    assert.ok(logged.length >= 4, 'queued, turn start, user message, text, turn end');
    assert.deepStrictEqual(logged, root.log.events);
  });

  it('a saving problem is shown on the agent and announced, and cleared when the log saves after all', async () => {
    const { runtime, logs } = runtimeWithLogs((h) => new ProblemLog(h));
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    const seen = changesOf(runtime, root.id);
    const problem = new ArborError('SESSION_WRITE_FAILED', 'the disk is full');
    logs[0].report(problem);
    assert.strictEqual(root.sessionProblem, problem);
    assert.deepStrictEqual(seen, [{ type: 'session_problem', problem }]);
    logs[0].report(undefined);
    assert.strictEqual(root.sessionProblem, undefined);
    assert.deepStrictEqual(seen, [
      { type: 'session_problem', problem },
      { type: 'session_problem', problem: undefined },
    ]);
  });

  it('an agent detached from its log hears no more of its problems, and detaching again is harmless', async () => {
    const { runtime, logs } = runtimeWithLogs((h) => new ProblemLog(h));
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    const seen = changesOf(runtime, root.id);
    const listening = logs[0].listeners.size;
    root.detachFromLog();
    assert.strictEqual(logs[0].listeners.size, listening - 1, 'the agent stopped listening to its log');
    logs[0].report(new ArborError('SESSION_WRITE_FAILED', 'too late'));
    assert.strictEqual(root.sessionProblem, undefined);
    assert.deepStrictEqual(seen, []);
    root.detachFromLog();
  });

  it('an agent whose log reports no problems can be detached from it', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.doesNotThrow(() => root.detachFromLog());
  });

  it("a session that cannot be saved at the end of a turn is reported to the runtime's onProblem with its id, and the agent goes on", async () => {
    class FailingFlushLog extends MemorySessionLog {
      override flush(): Promise<void> {
        return Promise.reject(new Error('disk gone'));
      }
    }
    const reported: unknown[][] = [];
    const { runtime } = runtimeWithLogs((h) => new FailingFlushLog(h), undefined, (...args) => void reported.push(args));
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    await until(() => reported.length > 0, 'the report');
    assert.strictEqual(reported[0][0], 'Arbor: could not save session main#1');
    assert.match(String(reported[0][1]), /disk gone/);
    assert.deepStrictEqual(reasons(root), ['completed']);
  });

  it('an agent is created in plan mode only when asked, and its creation order doubles as createdAt', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]], afterLastTurn: 'repeat-last' } } });
    track(runtime);
    const first = runtime.startRoot({ prompt: 'go', label: 'main' });
    const second = runtime.startRoot({ prompt: 'go', label: 'main', planMode: true });
    assert.strictEqual(first.planMode, false);
    assert.strictEqual(second.planMode, true);
    assert.strictEqual(first.createdAt, first.creationOrder);
    assert.strictEqual(second.createdAt, second.creationOrder);
    assert.ok(second.createdAt > first.createdAt);
  });
});

describe('agent lifecycle, pinned: sends, Stops, holds and disposal', () => {
  const track = disposeAfterEach();
  it('a non-waking send to an idle agent only queues; the next waking send runs both, oldest first', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'a' }], [{ text: 'b' }], [{ text: 'c' }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'A', label: 'main' });
    await root.whenIdle();
    const seen = changesOf(runtime, root.id);
    root.send('B', { from: 'user', wake: false });
    assert.strictEqual(root.status, 'idle');
    assert.strictEqual(root.pendingCount, 1);
    assert.deepStrictEqual(types(seen), ['status'], 'the pending count shown changes');
    root.send('C', { from: 'user' });
    await whenState(runtime, () => reasons(root).length === 3 && root.status === 'idle', 'both queued turns');
    assert.deepStrictEqual(userMessages(root), ['A', 'B', 'C']);
  });

  it("a child's report to an agent whose queue a Stop parked only queues; the user's next message runs the queue", async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ hang: true }], [{ text: 'b' }], [{ text: 'r' }], [{ text: 'c' }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'A', label: 'main' });
    root.send('B', { from: 'user', wake: false });
    runtime.stop(root);
    await root.whenIdle();
    assert.strictEqual(root.isParked, true);
    root.send('report', { from: 'child', wake: 'unless-parked' });
    assert.strictEqual(root.status, 'idle');
    assert.strictEqual(root.isParked, true);
    assert.strictEqual(root.pendingCount, 2);
    root.send('C', { from: 'user' });
    await whenState(runtime, () => reasons(root).length === 4 && root.status === 'idle', 'the parked queue to run');
    assert.deepStrictEqual(userMessages(root), ['A', 'B', 'report', 'C']);
  });

  it('a Stop on an idle agent is refused and records nothing; on a running one it names who stopped it', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'a' }], [{ hang: true }], [{ hang: true }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'A', label: 'main' });
    await root.whenIdle();
    const interrupts = (): SessionEvent[] => root.log.events.filter((e) => e.type === 'interrupt');
    assert.strictEqual(root.interrupt('user'), false);
    assert.deepStrictEqual(interrupts(), []);
    root.send('B', { from: 'user' });
    assert.strictEqual(root.interrupt('ancestor', 'boss#7'), true);
    assert.strictEqual(root.stopping, 'parent');
    await root.whenIdle();
    root.send('C', { from: 'user' });
    assert.strictEqual(root.interrupt('user'), true);
    assert.strictEqual(root.stopping, 'user');
    await root.whenIdle();
    assert.deepStrictEqual(
      interrupts().map((e) => (e.type === 'interrupt' ? [e.authority, e.by] : [])),
      [
        ['ancestor', 'boss#7'],
        ['user', undefined],
      ],
    );
    assert.deepStrictEqual(reasons(root), ['completed', 'aborted:parent', 'aborted:user']);
  });

  it('a held agent is announced once, only queues reports, and a waking send releases it; an ended agent is not held', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'a' }], [{ text: 'r' }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'A', label: 'main' });
    await root.whenIdle();
    const seen = changesOf(runtime, root.id);
    root.hold();
    assert.strictEqual(root.isHeld, true);
    assert.deepStrictEqual(types(seen), ['status']);
    root.hold();
    assert.deepStrictEqual(types(seen), ['status'], 'holding a held agent changes nothing');
    root.send('report', { from: 'child', wake: 'unless-parked' });
    assert.strictEqual(root.status, 'idle');
    assert.strictEqual(root.pendingCount, 1);
    root.send('go on', { from: 'user' });
    assert.strictEqual(root.isHeld, false);
    await whenState(runtime, () => reasons(root).length === 3 && root.status === 'idle', 'the released queue');
    assert.deepStrictEqual(userMessages(root), ['A', 'report', 'go on']);
    root.dispose();
    seen.length = 0;
    root.hold();
    assert.strictEqual(root.isHeld, false);
    assert.deepStrictEqual(seen, []);
  });

  it('disposal at shutdown keeps the queued messages in the session; disposal that drops the queue records which', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ hang: true }]], afterLastTurn: 'repeat-last' } } });
    track(runtime);
    const kept = runtime.startRoot({ prompt: 'A', label: 'main' });
    kept.send('B', { from: 'user', wake: false });
    kept.dispose();
    await kept.whenIdle();
    assert.deepStrictEqual(kept.log.events.filter((e) => e.type === 'queue_dropped'), []);
    assert.deepStrictEqual(reasons(kept), ['aborted:disposed']);
    const dropped = runtime.startRoot({ prompt: 'A', label: 'main' });
    dropped.send('B', { from: 'user', wake: false });
    dropped.dispose({ dropQueue: true });
    await dropped.whenIdle();
    const drops = dropped.log.events.filter((e) => e.type === 'queue_dropped');
    assert.deepStrictEqual(
      drops.map((e) => (e.type === 'queue_dropped' ? e.ids : [])),
      [[2]],
    );
  });

  it('a message sent while the views hear of a turn end starts the next turn, and whenIdle waits for that turn too', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'a' }], [{ delayMs: 5, text: 'b' }]] } } });
    track(runtime);
    let sent = false;
    runtime.onEvent((e) => {
      if (!sent && e.type === 'agent_changed' && e.change.type === 'turn_end') {
        sent = true;
        e.agent.send('B', { from: 'user' });
      }
    });
    const root = runtime.startRoot({ prompt: 'A', label: 'main' });
    await root.whenIdle();
    assert.strictEqual(root.status, 'idle');
    assert.deepStrictEqual(reasons(root), ['completed', 'completed']);
  });
});

describe('agent lifecycle, pinned: engines, waiting calls and reopened sessions', () => {
  const track = disposeAfterEach();
  /** An engine that records the texts of its turns, says a Stop is overdue, and counts its disposals. */
  function fakeEngine() {
    const texts: string[] = [];
    let disposed = 0;
    const engine: TurnEngine<Agent> = {
      name: 'Fake Agent',
      runTurn: async (turn) => {
        texts.push(turn.text);
        turn.stopOverdue(1500);
        return { turn: turn.turn, reason: 'completed', finalText: 'engine done' };
      },
      dispose: () => void disposed++,
    };
    return { engine, texts, disposed: () => disposed };
  }

  it("an engine runs the agent's turns instead of the model; its turn start and overdue Stop reach the views", async () => {
    const { runtime, calls } = makeRuntime({ version: 1, agents: { ext: { turns: [[{ text: 'model' }]] } } });
    track(runtime);
    const { engine, texts, disposed } = fakeEngine();
    const seen = changesOf(runtime, 'ext#1');
    const root = runtime.startRoot({ prompt: 'go', label: 'ext', engine });
    await whenState(runtime, () => reasons(root).length === 1 && root.status === 'idle', 'the engine turn');
    assert.deepStrictEqual(texts, ['go']);
    assert.strictEqual(calls.length, 0, 'the model is not called');
    assert.strictEqual(root.lastTurnEnd?.finalText, 'engine done');
    assert.deepStrictEqual(
      seen.filter((c) => c.type === 'turn_start' || c.type === 'stop_overdue'),
      [
        { type: 'turn_start', turn: 1 },
        { type: 'stop_overdue', graceMs: 1500 },
      ],
    );
    root.dispose();
    root.dispose();
    assert.strictEqual(disposed(), 1, 'the engine is released once');
  });

  it("a waiting call an engine agent resumes runs through Arbor's own tools and model, not the engine", async () => {
    const { runtime, calls } = makeRuntime({ version: 1, agents: { ext: { turns: [[{ text: 'unused' }], [{ text: 'after the call' }]] } } });
    track(runtime);
    const { engine, texts } = fakeEngine();
    const root = runtime.startRoot({ prompt: 'go', label: 'ext', engine });
    await whenState(runtime, () => reasons(root).length === 1 && root.status === 'idle', 'the engine turn');
    const call: ToolCall = { id: 'call-1', name: 'list_agents', arguments: '{}' };
    root.continueWaitingCall(call);
    assert.strictEqual(root.currentTurn, 2);
    await whenState(runtime, () => reasons(root).length === 2 && root.status === 'idle', 'the resumed call');
    assert.deepStrictEqual(texts, ['go'], 'the engine ran only its own turn');
    assert.strictEqual(toolResults(root).length, 1);
    assert.strictEqual(toolResults(root)[0].name, 'list_agents');
    assert.strictEqual(calls.length, 1);
    assert.strictEqual(root.lastTurnEnd?.finalText, 'after the call');
  });

  it('a waiting call is not run again while a turn runs, nor after the agent ended', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ hang: true }]], afterLastTurn: 'repeat-last' } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    const call: ToolCall = { id: 'call-1', name: 'list_agents', arguments: '{}' };
    root.continueWaitingCall(call);
    assert.strictEqual(root.turnCount, 1, 'no second turn beside the running one');
    root.dispose();
    await root.whenIdle();
    root.continueWaitingCall(call);
    assert.strictEqual(root.turnCount, 1);
    assert.strictEqual(root.status, 'idle');
    assert.deepStrictEqual(toolResults(root), []);
  });

  it('a reopened session numbers new queued messages after the last one it recorded', async () => {
    const { dir, cleanup } = makeTempDir('arbor-lifecycle-');
    try {
      const writer = new JsonlSessionStore(dir);
      const log = writer.create(header('main-1', { label: 'main' }));
      for (const event of [
        { type: 'queued', at: at(), id: 1, text: 'first', from: 'user' },
        { type: 'turn_start', at: at(), turn: 1 },
        { type: 'user_message', at: at(), text: 'first', from: 'user', queuedId: 1 },
        { type: 'assistant_text', at: at(), text: 'one' },
        { type: 'turn_end', at: at(), turn: 1, reason: 'completed' },
        { type: 'queued', at: at(), id: 2, text: 'second', from: 'user' },
        { type: 'turn_start', at: at(), turn: 2 },
        { type: 'user_message', at: at(), text: 'second', from: 'user', queuedId: 2 },
        { type: 'assistant_text', at: at(), text: 'two' },
        { type: 'turn_end', at: at(), turn: 2, reason: 'completed' },
      ] satisfies SessionEvent[])
        log.append(event);
      await log.close();
      const { model } = recordingModel({ version: 1, agents: { main: { turns: [[{ text: 'three' }]] } } });
      const runtime = new Runtime({ model, sessions: new JsonlSessionStore(dir, { flushDelayMs: 1 }) });
      const root = await runtime.resumeRoot('main-1', { message: 'third' });
      await whenState(runtime, () => root.status === 'idle' && root.turnCount === 3, 'the resumed turn');
      const queued = root.log.events.filter((e) => e.type === 'queued');
      assert.deepStrictEqual(
        queued.map((e) => (e.type === 'queued' ? e.id : 0)),
        [1, 2, 3],
      );
      await runtime.dispose();
    } finally {
      cleanup();
    }
  });
});
