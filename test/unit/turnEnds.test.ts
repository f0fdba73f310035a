import * as assert from 'node:assert/strict';
import { JsonlSessionStore, type SessionEvent } from '../../src/core/sessions';
import { makeTempDir, tick, writeSession } from './sessions.fixtures';
import { makeRuntime, reasons } from './support/runtimeFixture';

// How a turn ended is one reason per meaning: `budget` when a limit of the agent or the turn ended
// it (the agent may go on), `paused` when a hold of the run or the agent ended it (it waits for
// the hold's release).

const listAgents = { name: 'list_agents', arguments: {} };

describe('how a turn ended', () => {
  it('a limit of the turn ends it as budget, with no hold; a spent run budget ends it as paused, with the hold', async () => {
    const limited = makeRuntime({ version: 1, agents: { main: { turns: [[{ toolCalls: [listAgents] }, { text: 'never' }]] } } }, { limits: { maxStepsPerTurn: 1 } });
    const one = limited.runtime.startRoot({ prompt: 'go', label: 'main' });
    await one.whenIdle();
    assert.deepEqual(reasons(one), ['budget']);
    assert.equal(one.lastTurnEnd?.hold, undefined);
    await limited.runtime.dispose();

    const spent = makeRuntime(
      { version: 1, agents: { main: { turns: [[{ toolCalls: [listAgents], usage: { inputTokens: 20, outputTokens: 0 } }, { text: 'never' }]] } } },
      { limits: { maxTokens: 10 } },
    );
    const two = spent.runtime.startRoot({ prompt: 'go', label: 'main' });
    await two.whenIdle();
    assert.deepEqual(reasons(two), ['paused']);
    assert.equal(two.lastTurnEnd?.hold?.reason, 'budget');
    assert.match(two.lastTurnEnd?.message ?? '', /token budget of 10 is spent/);
    await spent.runtime.dispose();
  });

  describe('in a session file', () => {
    let dir: string;
    let cleanup: () => void;
    beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-turn-ends-')));
    afterEach(() => cleanup());

    it('a paused end is written and read back as paused; a budget end written before paused existed loads as written', async () => {
      const events: SessionEvent[] = [
        { type: 'turn_start', at: tick(), turn: 1 },
        { type: 'turn_end', at: tick(), turn: 1, reason: 'budget', message: "the run's token budget of 10 is spent" },
        { type: 'turn_start', at: tick(), turn: 2 },
        { type: 'turn_end', at: tick(), turn: 2, reason: 'paused', message: "the run's token budget of 20 is spent" },
      ];
      await writeSession(dir, 'held', events);
      const store = new JsonlSessionStore(dir);
      const loaded = await store.loadSession('held');
      assert.deepEqual(loaded.events, events);
      const listed = await store.listSessions();
      const entry = listed.sessions.find((s) => s.header.id === 'held');
      assert.equal(entry?.damage, undefined);
      assert.equal(entry?.summary.lastTurnEndReason, 'paused');
      await store.dispose();
    });
  });
});
