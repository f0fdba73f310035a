import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JsonlSessionStore, pendingHumanWait, summarizeSession, type SessionEvent } from '../../../src/core/sessions';
import { emptyScanState, foldEvent, summaryOf } from '../../../src/core/sessions/sessionScan';
import { historyNodes, presentSession, type SessionNode } from '../../../src/extension/history/historyNodes';
import { saveSessionIndexNow } from '../../support/forged';
import { header, makeTempDir, tick, writeSession } from '../../support/sessionFixtures';

const call = { id: 'call-1', name: 'ask_user_question', arguments: '{}' };
const question = (extra: Partial<Extract<SessionEvent, { type: 'question' }>> = {}): SessionEvent => ({
  type: 'question',
  at: tick(),
  questions: [{ id: 'q', question: 'Which one?', options: [{ label: 'A' }, { label: 'B' }] }],
  toolCallId: call.id,
  ...extra,
});
const turn = (n: number): SessionEvent => ({ type: 'turn_start', at: tick(), turn: n });
const asked = (n = 1): SessionEvent[] => [{ type: 'user_message', at: tick(), text: 'go', from: 'user' }, turn(n), { type: 'tool_call', at: tick(), call }, question()];
const end = (reason: Extract<SessionEvent, { type: 'turn_end' }>['reason'], cause?: 'disposed' | 'user'): SessionEvent => ({ type: 'turn_end', at: tick(), turn: 1, reason, cause });

/** What the index's fold says, as History lists a past session. */
const folded = (events: readonly SessionEvent[]) => {
  const state = emptyScanState();
  for (const e of events) foldEvent(state, e);
  return summaryOf(header('s'), state, true).waitingForYou;
};
/** What resuming the session would ask again. */
const resumeAsks = (events: readonly SessionEvent[]) => {
  const wait = pendingHumanWait(events);
  return wait ? (wait.intent === 'approval' ? 'approval' : 'answer') : undefined;
};

describe('History marks a session "waiting for you" from its summary, as resuming it would ask again', () => {
  const cases: Array<[string, SessionEvent[], 'answer' | 'approval' | undefined]> = [
    ['a question open when the file ends (the window closed mid-turn)', asked(), 'answer'],
    ['a question the shutdown withdrew, its turn aborted by the shutdown', [...asked(), { type: 'answer', at: tick(), error: 'ASK_ABORTED' }, end('aborted', 'disposed')], 'answer'],
    ['a question whose turn was closed as interrupted on load', [...asked(), end('interrupted')], 'answer'],
    ['an approval left open', [...asked().slice(0, 3), question({ intent: 'approval' })], 'approval'],
    ['a question that was answered', [...asked(), { type: 'answer', at: tick(), answers: [{ id: 'q', selected: ['A'] }] }], undefined],
    ['a question whose call has its result', [...asked(), { type: 'tool_result', at: tick(), toolCallId: call.id, name: call.name, content: 'x' }], undefined],
    ['a question whose turn the user stopped', [...asked(), end('aborted', 'user')], undefined],
    ['a question whose turn ended by itself', [...asked(), end('completed')], undefined],
    ['a question naming no tool call', [...asked().slice(0, 3), question({ toolCallId: undefined })], undefined],
    ['a question of an earlier turn, the last turn asking nothing', [...asked(), end('interrupted'), turn(2), end('completed')], undefined],
    ['a question asked again by a resumed turn (its call made in the turn before), cut short by another reload', [...asked(), end('interrupted'), turn(2), question(), { type: 'answer', at: tick(), error: 'ASK_ABORTED' }, end('aborted', 'disposed')], 'answer'],
    ['a question asked again by a resumed turn, whose call got its result', [...asked(), end('interrupted'), turn(2), question(), { type: 'tool_result', at: tick(), toolCallId: call.id, name: call.name, content: 'x' }], undefined],
  ];
  for (const [what, events, expected] of cases) {
    it(`${what}: ${expected ?? 'not waiting'}`, () => {
      assert.equal(resumeAsks(events), expected, 'pendingHumanWait (what Resume asks again)');
      assert.equal(folded(events), expected, 'the scan state the session index keeps');
      assert.equal(summarizeSession(header('s'), events).waitingForYou, expected, "a live log's summary");
    });
  }

  describe('through the store', () => {
    let dir: string;
    let cleanup: () => void;
    beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-waiting-')));
    afterEach(() => cleanup());

    it('the catalog says it, the index keeps it, and the History row shows "waiting for you" with Resume offered', async () => {
      await writeSession(dir, 'asked', asked());
      await writeSession(dir, 'answered', [...asked(), { type: 'answer', at: tick(), answers: [{ id: 'q', selected: ['A'] }] }, end('completed')]);
      const store = new JsonlSessionStore(dir);
      const catalog = await store.listSessions();
      await saveSessionIndexNow(store);
      const summary = (id: string) => catalog.sessions.find((s) => s.header.id === id)?.summary;
      assert.equal(summary('asked')?.waitingForYou, 'answer');
      assert.equal(summary('answered')?.waitingForYou, undefined);
      const index = JSON.parse(fs.readFileSync(path.join(dir, 'session-index.json'), 'utf8')) as { entries: Record<string, { state: { waiting?: unknown } }> };
      assert.ok(Object.values(index.entries).some((e) => e.state.waiting !== undefined), 'the index keeps it: History does not read the file again to know');
      const again = await new JsonlSessionStore(dir).listSessions();
      assert.equal(again.sessions.find((s) => s.header.id === 'asked')?.summary.waitingForYou, 'answer', 'read back from the index');

      const node = historyNodes(catalog).find((n): n is SessionNode => n.type === 'session' && n.entry.header.id === 'asked')!;
      const shown = presentSession(node, false, Date.now());
      assert.match(shown.description, /· waiting for you$/);
      assert.equal(shown.icon, 'question');
      assert.match(shown.tooltip, /Resume asks it again/);
      assert.equal(shown.contextValue, 'session:past:root', 'Resume is offered');
      assert.doesNotMatch(presentSession(node, true, Date.now()).description, /waiting for you/, 'a live session shows its live state instead');
    });

    it('an index written before it knew open questions is rebuilt from the files', async () => {
      await writeSession(dir, 'asked', asked());
      const store = new JsonlSessionStore(dir);
      await store.listSessions();
      await saveSessionIndexNow(store);
      const file = path.join(dir, 'session-index.json');
      const index = JSON.parse(fs.readFileSync(file, 'utf8')) as { version: number; entries: Record<string, { state: Record<string, unknown> }> };
      for (const e of Object.values(index.entries)) delete e.state.waiting;
      fs.writeFileSync(file, JSON.stringify({ ...index, version: 1 }));
      const catalog = await new JsonlSessionStore(dir).listSessions();
      assert.equal(catalog.sessions.find((s) => s.header.id === 'asked')?.summary.waitingForYou, 'answer');
    });
  });
});
