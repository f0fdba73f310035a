import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JsonlSessionStore, summarizeSession, type SessionEvent, type SessionSummary } from '../../../src/core/sessions';
import { emptyScanState, foldEvent, summaryOf } from '../../../src/core/sessions/sessionScan';
import { historyNodes, presentSession, type SessionNode } from '../../../src/extension/history/historyNodes';
import { historyStateOf } from '../../../src/extension/history/sessionState';
import { saveSessionIndexNow } from '../../support/forged';
import { header, makeTempDir, tick, writeSession } from '../../support/sessionFixtures';

// History says the state each past session was left in, from the summary the session index keeps:
// "stopped, 1 queued", "interrupted", "waiting for you", "completed", "failed", "blocked".

type TurnEndEvent = Extract<SessionEvent, { type: 'turn_end' }>;
const say = (text: string, from: 'user' | 'parent' | 'child' = 'user', queuedId?: number): SessionEvent =>
  queuedId === undefined ? { type: 'user_message', at: tick(), text, from } : { type: 'user_message', at: tick(), text, from, queuedId };
const start = (turn = 1): SessionEvent => ({ type: 'turn_start', at: tick(), turn });
const end = (reason: TurnEndEvent['reason'], extra: Partial<Pick<TurnEndEvent, 'cause' | 'message' | 'turn'>> = {}): SessionEvent => ({ type: 'turn_end', at: tick(), turn: 1, reason, ...extra });
const queued = (id: number, from: 'user' | 'parent' | 'child' = 'child'): SessionEvent => ({ type: 'queued', at: tick(), id, text: `message ${id}`, from });
const call = { id: 'call-1', name: 'ask_user_question', arguments: '{}' };
const asked = (intent?: 'approval'): SessionEvent[] => [
  { type: 'tool_call', at: tick(), call },
  { type: 'question', at: tick(), questions: [{ id: 'q', question: 'Which one?', options: [{ label: 'A' }] }], toolCallId: call.id, ...(intent ? { intent } : {}) },
];
const ran = (reason: TurnEndEvent['reason'], extra: Partial<Pick<TurnEndEvent, 'cause' | 'message'>> = {}): SessionEvent[] => [say('go'), start(), { type: 'assistant_text', at: tick(), text: 'working' }, end(reason, extra)];

/** The lead of the demo after Stop All: its turn had completed, then its stopped Watcher's report queued. */
const demoLead = (): SessionEvent[] => [...ran('completed'), queued(1)];

/** What the session index's fold says for a past session, as History lists it. */
function pastSummary(events: readonly SessionEvent[]): SessionSummary {
  const state = emptyScanState();
  for (const e of events) foldEvent(state, e);
  return summaryOf(header('s'), state, true);
}

/** The row's state (the last part of its description), and the sentence its tooltip says about it. */
function row(summary: SessionSummary): { state: string; detail: string; tooltip: string } {
  const node: SessionNode = { type: 'session', children: [], entry: { header: header('s'), summary, file: 's.jsonl', live: false } };
  const shown = presentSession(node, false, Date.now());
  return { state: shown.description.split(' · ').at(-1) ?? '', detail: historyStateOf(summary).detail, tooltip: shown.tooltip };
}

describe('History says the state each session was left in', () => {
  const cases: Array<[string, SessionEvent[], string, RegExp?]> = [
    ['a lead held by Stop All after its turn completed, a report queued behind it', demoLead(), 'stopped, 1 queued', /A queued message never ran: Resume brings it back/],
    ['a Watcher stopped mid-turn with a message from its lead in its queue', [say('watch'), start(), queued(1, 'parent'), end('aborted', { cause: 'user' }), { type: 'interrupt', at: tick(), authority: 'user' }], 'stopped, 1 queued'],
    ['two messages queued behind a Stop', [...ran('aborted', { cause: 'user' }), queued(1, 'user'), queued(2, 'user')], 'stopped, 2 queued', /2 queued messages never ran/],
    ['a queued message a later turn claimed', [...demoLead(), start(2), say('message 1', 'child', 1), end('completed', { turn: 2 })], 'completed'],
    ['a queued message dropped (End, or a Stop that clears the queue)', [...demoLead(), { type: 'queue_dropped', at: tick(), ids: [1] }], 'completed'],
    ['a Stop with nothing queued', ran('aborted', { cause: 'user' }), 'stopped'],
    ['a turn that never recorded its end (the process ended)', [say('go'), start(), { type: 'assistant_text', at: tick(), text: 'half' }], 'interrupted', /A turn was cut short while it ran \(the window closed, reloaded or crashed/],
    ['a turn the shutdown aborted (a reload mid-turn)', ran('aborted', { cause: 'disposed' }), 'interrupted'],
    ['a turn the shutdown aborted with a message queued', [say('go'), start(), queued(1, 'user'), end('aborted', { cause: 'disposed' })], 'interrupted, 1 queued'],
    ['a turn closed as interrupted when the file was repaired', ran('interrupted'), 'interrupted'],
    ['a question left open', [say('go'), start(), ...asked()], 'waiting for you', /Resume asks it again/],
    ['an approval left open by the shutdown', [say('go'), start(), ...asked('approval'), end('aborted', { cause: 'disposed' })], 'waiting for your approval'],
    ['a run budget spent', ran('paused', { message: "the run's token budget of 10 is spent" }), 'blocked', /Blocked: the run's token budget of 10 is spent/],
    ['a runaway guard that paused it', ran('paused', { message: 'a runaway guard paused it: the same call 5 times' }), 'blocked', /runaway guard/],
    ['a turn a budget cancelled', ran('aborted', { cause: 'budget' }), 'blocked'],
    ['an unattended run at its cap (BLOCKED)', ran('blocked', { message: 'the run hit its cap' }), 'blocked'],
    ['a budget pause that parked a queue', [say('go'), start(), queued(1, 'parent'), end('paused', { message: 'a run budget is spent' })], 'blocked, 1 queued'],
    ['an error', ran('error', { message: 'MODEL_TIMEOUT: no answer within 60 s' }), 'failed', /failed: MODEL_TIMEOUT/],
    ['a turn that completed', ran('completed'), 'completed'],
    ["a holder's cancel", ran('aborted', { cause: 'parent' }), 'cancelled'],
    ['a limit of the turn', ran('budget', { message: 'a turn may make at most 2 model calls' }), 'hit a run limit'],
    ['no turn at all', [queued(1, 'user'), { type: 'queue_dropped', at: tick(), ids: [1] }], 'no turns'],
  ];
  for (const [what, events, expected, tooltip] of cases) {
    it(`${what}: "${expected}"`, () => {
      const shown = row(pastSummary(events));
      assert.equal(shown.state, expected);
      if (tooltip) assert.match(shown.detail, tooltip);
    });
  }

  it('the tooltip says the state in a sentence', () => {
    assert.match(row(pastSummary(demoLead())).tooltip, /session, stopped, 1 queued\n[\s\S]*A queued message never ran: Resume brings it back, held until you send a message/);
  });

  it('a live log with a turn under way is not interrupted: the live summary keeps the running turn open', () => {
    const events = [...demoLead(), start(2), say('message 1', 'child', 1)];
    const live = summarizeSession(header('s'), events);
    assert.equal(live.lastTurnEndReason, 'completed');
    assert.equal(live.queued, undefined, 'the running turn claimed the queued message');
    assert.equal(historyStateOf(pastSummary(events)).state, 'interrupted', 'the same events in a past file');
  });

  it('a live log is summarized by the same fold as a file, its running turn left open', () => {
    for (const [what, events] of cases) {
      const state = emptyScanState();
      for (const e of events) foldEvent(state, e);
      assert.deepEqual(summarizeSession(header('s'), events), summaryOf(header('s'), state, false), what);
    }
  });

  describe('from the files', () => {
    let dir: string;
    let cleanup: () => void;
    beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-history-states-')));
    afterEach(() => cleanup());

    const listed = async (id: string, store = new JsonlSessionStore(dir)): Promise<string> => {
      const nodes = historyNodes(await store.listSessions());
      const node = nodes.find((n): n is SessionNode => n.type === 'session' && n.entry.header.id === id);
      assert.ok(node, `session ${id} is listed`);
      return row(node.entry.summary).state;
    };

    it('the demo lead stopped with a queued report is "stopped, 1 queued", not "completed", and the index remembers it', async () => {
      await writeSession(dir, 'lead', demoLead());
      const store = new JsonlSessionStore(dir);
      assert.equal(await listed('lead', store), 'stopped, 1 queued');
      await saveSessionIndexNow(store);
      assert.equal(await listed('lead'), 'stopped, 1 queued', 'read back from the index');
    });

    it('a file cut at any byte of its last lines says the state of the lines that reached the disk', async () => {
      const file = await writeSession(dir, 'cut', demoLead());
      const whole = fs.readFileSync(file);
      const ends: number[] = [];
      for (let i = 0; i < whole.length; i++) if (whole[i] === 0x0a) ends.push(i + 1);
      // Lines: header, user_message, turn_start, assistant_text, turn_end, queued.
      assert.equal(ends.length, 6);
      const expected = (size: number): string => (size >= ends[5] ? 'stopped, 1 queued' : size >= ends[4] ? 'completed' : 'interrupted');
      for (let size = ends[2]; size <= whole.length; size++) {
        fs.writeFileSync(file, whole.subarray(0, size));
        // A store of its own each time: no index, so the cut file is scanned afresh.
        fs.rmSync(path.join(dir, 'session-index.json'), { force: true });
        assert.equal(await listed('cut'), expected(size), `cut at byte ${size} of ${whole.length}`);
      }
    });

    it('a file that grows is continued from the index and says its new state', async () => {
      const file = await writeSession(dir, 'grows', ran('completed'));
      const store = new JsonlSessionStore(dir);
      assert.equal(await listed('grows', store), 'completed');
      await saveSessionIndexNow(store);
      const more = await writeSessionLines([queued(1)]);
      fs.appendFileSync(file, more);
      assert.equal(await listed('grows'), 'stopped, 1 queued');
    });

    it('an index written before it knew queued messages is rebuilt from the files', async () => {
      await writeSession(dir, 'lead', demoLead());
      const store = new JsonlSessionStore(dir);
      await store.listSessions();
      await saveSessionIndexNow(store);
      const file = path.join(dir, 'session-index.json');
      const index = JSON.parse(fs.readFileSync(file, 'utf8')) as { version: number; entries: Record<string, { state: Record<string, unknown> }> };
      for (const e of Object.values(index.entries)) delete e.state.queued;
      fs.writeFileSync(file, JSON.stringify({ ...index, version: 3 }));
      assert.equal(await listed('lead'), 'stopped, 1 queued');
    });

    /** The lines a log writes for `events`, as the store writes them (checksummed), without the header. */
    async function writeSessionLines(events: SessionEvent[]): Promise<Buffer> {
      const { dir: other, cleanup: done } = makeTempDir('arbor-history-lines-');
      try {
        const written = fs.readFileSync(await writeSession(other, 'lines', events));
        return written.subarray(written.indexOf(0x0a) + 1);
      } finally {
        done();
      }
    }
  });
});
