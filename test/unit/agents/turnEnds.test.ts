import * as assert from 'node:assert/strict';
import { describeTurnEnd, type TurnEnd, type TurnEndFacts } from '../../../src/core/agents';
import { JsonlSessionStore, type SessionEvent, type TurnEndReason } from '../../../src/core/sessions';
import { formatReport, readReport, reportOf } from '../../../src/core/subagents';
import { presentAgent } from '../../../src/extension/agents/agentPresentation';
import { presentSession, type SessionNode } from '../../../src/extension/history/historyNodes';
import { describeOutcome } from '../../../src/extension/runs/runResult';
import { header as sessionHeader, makeTempDir, tick, writeSession } from '../../support/sessionFixtures';
import { makeRuntime, reasons } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';

// How a turn ended is one reason per meaning: `budget` when a limit of the agent or the turn ended
// it (the agent may go on), `paused` when a hold of the run or the agent ended it (it waits for
// the hold's release).

const listAgents = { name: 'list_agents', arguments: {} };

describe('how a turn ended', () => {
  const track = disposeAfterEach();
  it('a limit of the turn ends it as budget, with no hold; a spent run budget ends it as paused, with the hold', async () => {
    const limited = makeRuntime({ version: 1, agents: { main: { turns: [[{ toolCalls: [listAgents] }, { text: 'never' }]] } } }, { limits: { maxStepsPerTurn: 1 } });
    track(limited.runtime);
    const one = limited.runtime.startRoot({ prompt: 'go', label: 'main' });
    await one.whenIdle();
    assert.deepEqual(reasons(one), ['budget']);
    assert.equal(one.lastTurnEnd?.hold, undefined);
    await limited.runtime.dispose();

    const spent = makeRuntime(
      { version: 1, agents: { main: { turns: [[{ toolCalls: [listAgents], usage: { inputTokens: 20, outputTokens: 0 } }, { text: 'never' }]] } } },
      { limits: { maxTokens: 10 } },
    );
    track(spent.runtime);
    const two = spent.runtime.startRoot({ prompt: 'go', label: 'main' });
    await two.whenIdle();
    assert.deepEqual(reasons(two), ['paused']);
    assert.equal(two.lastTurnEnd?.hold?.reason, 'budget');
    assert.match(two.lastTurnEnd?.message ?? '', /token budget of 10 is spent/);
  });

  describe('in a session file', () => {
    const track = disposeAfterEach();
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
      track(store);
      const loaded = await store.loadSession('held');
      assert.deepEqual(loaded.events, events);
      const listed = await store.listSessions();
      const entry = listed.sessions.find((s) => s.header.id === 'held');
      assert.equal(entry?.damage, undefined);
      assert.equal(entry?.summary.lastTurnEndReason, 'paused');
    });
  });

  describe('in words: describeTurnEnd reads each end once', () => {
    const track = disposeAfterEach();
    const cases: Array<[TurnEndFacts, string, string, string]> = [
      [{ reason: 'completed' }, 'completed', 'completed', 'ok'],
      [{ reason: 'aborted', cause: 'user' }, 'stopped', 'stopped', 'stopped'],
      [{ reason: 'aborted' }, 'stopped', 'stopped', 'stopped'],
      [{ reason: 'aborted', cause: 'parent' }, 'cancelled', 'cancelled', 'stopped'],
      [{ reason: 'aborted', cause: 'disposed' }, 'ended', 'ended', 'stopped'],
      [{ reason: 'aborted', cause: 'budget' }, 'paused', 'paused', 'warning'],
      [{ reason: 'budget', message: 'a turn may make at most 2 model calls' }, 'limit', 'hit a run limit', 'warning'],
      [{ reason: 'paused', message: "the run's token budget of 10 is spent" }, 'paused', 'paused', 'warning'],
      [{ reason: 'blocked' }, 'blocked', 'blocked', 'warning'],
      [{ reason: 'error', message: 'MODEL_TIMEOUT' }, 'failed', 'failed', 'error'],
      [{ reason: 'interrupted' }, 'interrupted', 'interrupted', 'interrupted'],
    ];
    for (const [end, outcome, text, tone] of cases) {
      it(`${end.reason}${end.cause ? ` (${end.cause})` : ''} is ${outcome}: "${text}"`, () => {
        const said = describeTurnEnd(end);
        assert.deepEqual([said.outcome, said.text, said.tone, said.detail], [outcome, text, tone, end.message]);
      });
    }

    it("a run's pause that cut an external agent's turn short is a pause in the report and the run's result, and History lists it blocked", () => {
      const cut: TurnEnd = { turn: 1, reason: 'aborted', cause: 'budget', finalText: '' };
      const paused: TurnEnd = { turn: 1, reason: 'paused', message: "the run's token budget of 10 is spent", finalText: '' };
      for (const end of [cut, paused]) {
        assert.equal(readReport(formatReport(reportOf('Kid', 'kid-1', end, false)))?.outcome, 'budget', end.reason);
        const result = { agentId: 'a', label: 'A', reason: end.reason, cause: end.cause, text: '', message: end.message, blocked: [] };
        assert.match(describeOutcome(result), /^was paused/, end.reason);
      }
      const history = (reason: TurnEndReason, cause?: 'budget') => {
        const node: SessionNode = { type: 'session', children: [], entry: { header: sessionHeader('s'), summary: { lastActivity: new Date().toISOString(), eventCount: 2, turnCount: 1, lastTurnEndReason: reason, lastTurnEndCause: cause }, file: 's.jsonl', live: false } };
        const shown = presentSession(node, false, Date.now());
        return [shown.description.split(' · ').at(-1), shown.icon];
      };
      // History names the state the session was left in: a hold of the run blocks it until its release.
      assert.deepEqual(history('paused'), ['blocked', 'warning']);
      assert.deepEqual(history('aborted', 'budget'), ['blocked', 'warning']);
      assert.deepEqual(history('budget'), ['hit a run limit', 'warning']);
      assert.deepEqual(history('aborted'), ['stopped', 'debug-stop']);
    });

    it("an idle agent's row warns for every end that asks for a person's look, as History does", async () => {
      const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
      track(runtime);
      const root = runtime.startRoot({ prompt: 'go', label: 'main' });
      await root.whenIdle();
      const iconAfter = (end: Omit<TurnEnd, 'turn' | 'finalText'>) => {
        root.lastTurnEnd = { turn: 1, finalText: '', ...end };
        return presentAgent({ agent: root, waiting: false, treeTokens: 0, descendants: 0, now: Date.now() }).icon;
      };
      assert.equal(iconAfter({ reason: 'completed' }), 'circle-outline');
      assert.equal(iconAfter({ reason: 'aborted', cause: 'user' }), 'circle-outline');
      assert.equal(iconAfter({ reason: 'error', message: 'broke' }), 'error');
      for (const reason of ['budget', 'paused', 'blocked'] as const) assert.equal(iconAfter({ reason }), 'warning', reason);
    });
  });
});
