import * as assert from 'node:assert/strict';
import type { Agent, TurnEngine } from '../../../src/core/agents/agent';
import { Runtime, type ClosableSessionLog, type DurableSessionStore } from '../../../src/core/runtime';
import { MemorySessionLog } from '../../../src/core/sessions/memoryLog';
import type { SessionHeader } from '../../../src/core/sessions/types';
import { recordingModel, tick, until } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

/** A durable store whose logs finish closing only when the test says so. */
function gatedStore() {
  const gates: Array<() => void> = [];
  const closed: string[] = [];
  const store: DurableSessionStore = {
    create(header: SessionHeader): ClosableSessionLog {
      const log = new MemorySessionLog(header) as MemorySessionLog & ClosableSessionLog;
      log.close = () =>
        new Promise<void>((resolve) =>
          gates.push(() => {
            closed.push(header.id);
            resolve();
          }),
        );
      return log;
    },
    reopenLog: () => Promise.reject(new Error('not used')),
    loadSession: () => Promise.reject(new Error('not used')),
  };
  return { store, closed, openGates: () => gates.splice(0).forEach((open) => open()), pendingCloses: () => gates.length };
}

describe('runtime: shutdown', () => {
  it('dispose resolves only after the logs of agents that ended just before are written', async () => {
    const { model } = recordingModel({
      version: 1,
      agents: {
        Lead: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'Helper', prompt: 'count' } }] }, { text: 'done' }]] },
        Helper: { turns: [[{ text: '3' }]] },
      },
    });
    const { store, closed, openGates, pendingCloses } = gatedStore();
    let n = 0;
    const runtime = new Runtime({ model, sessions: store, newId: (label) => `${label}#${++n}` });
    const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
    await lead.whenIdle();
    // The one-shot Helper has ended; its log is closing.
    await until(() => pendingCloses() === 1, "the helper's log to start closing");

    let disposed = false;
    const disposing = runtime.dispose().then(() => (disposed = true));
    await tick();
    assert.equal(disposed, false, 'dispose must wait for the ended agent\'s log');
    openGates();
    await disposing;
    assert.deepEqual(closed, ['Helper#2']);
  });
});

describe('runtime: shutdown of running agents', () => {
  const track = disposeAfterEach();
  it("dispose resolves after a running agent's aborted turn has recorded its end and been written", async () => {
    const { model } = recordingModel({ version: 1, agents: { Live: { turns: [[{ hang: true }]] } } });
    // Each flush finishes one event-loop turn after it starts, so dispose can only have seen
    // the flushes it waited for.
    const written: string[][] = [];
    const logs: MemorySessionLog[] = [];
    const runtime = new Runtime({
      model,
      sessions: {
        create: (header) => {
          const log = new MemorySessionLog(header);
          log.flush = () => {
            const types = log.events.map((e) => e.type);
            return new Promise<void>((resolve) => setImmediate(() => (written.push(types), resolve())));
          };
          logs.push(log);
          return log;
        },
      },
    });
    track(runtime);
    const live = runtime.startRoot({ prompt: 'wait', label: 'Live' });
    await whenState(runtime, () => live.status === 'running' && live.log.events.some((e) => e.type === 'turn_start'), 'the turn to start');
    await runtime.dispose();
    const seen = written.slice();
    assert.equal(logs[0].events.at(-1)?.type, 'turn_end', 'the aborted turn recorded its end');
    assert.ok(
      seen.some((types) => types.at(-1) === 'turn_end'),
      `a write that dispose waited for held the turn end (writes done: ${JSON.stringify(seen.map((t) => t.at(-1)))})`,
    );
  });
});

describe('runtime: shutdown in bounded time', () => {
  const track = disposeAfterEach();
  it('dispose settles when a turn never records its end (an engine that ignores the abort)', async () => {
    const { model } = recordingModel({ version: 1, agents: {} });
    const runtime = new Runtime({ model, shutdownWaitMs: 50 });
    track(runtime);
    const stuck: TurnEngine<Agent> = { name: 'stuck', runTurn: () => new Promise(() => undefined), dispose: () => undefined };
    const agent = runtime.startRoot({ prompt: 'go', label: 'Stuck', engine: stuck });
    await whenState(runtime, () => agent.log.events.some((e) => e.type === 'turn_start'), 'the turn to start');
    await runtime.dispose();
    assert.equal(agent.log.events.at(-1)?.type, 'user_message', 'written as it stands: a reload repairs the turn');
  });
});
