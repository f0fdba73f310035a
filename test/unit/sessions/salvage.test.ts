import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConversationModel } from '../../../src/core/conversation/conversationModel';
import { JsonlSessionStore, salvagedSessionWarning, type SessionEvent } from '../../../src/core/sessions';
import { renderTranscript } from '../../../src/extension/conversation/transcriptRenderer';
import { historyNodes, presentSession, type SessionNode } from '../../../src/extension/history/historyNodes';
import { everyEventType, header, makeTempDir, tick, writeSession as writeSessionIn } from '../../support/sessionFixtures';
import { disposeAfterEach } from '../../support/disposeAfterEach';

/* One damaged line costs only what follows it; flipped bytes are caught by the line checksums. */
describe('durable sessions: salvaging a damaged file', () => {
  const track = disposeAfterEach();
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir('arbor-salvage-')));
  afterEach(() => cleanup());

  const writeSession = (id: string, events: SessionEvent[]): Promise<string> => writeSessionIn(dir, id, events);

  /** Replaces line `n` (1-based) of `file` with `f(line)`. */
  function editLine(file: string, n: number, f: (line: string) => string): void {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[n - 1] = f(lines[n - 1]);
    fs.writeFileSync(file, lines.join('\n'));
  }

  it('loads every event before a damaged line and says what was left out', async () => {
    const events = everyEventType();
    const file = await writeSession('s-mid', events);
    editLine(file, 6, () => '{"type":"assistant_text","at":'); // line 6 holds events[4]
    const loaded = await new JsonlSessionStore(dir).loadSession('s-mid');
    assert.deepEqual(loaded.events.slice(0, 4), events.slice(0, 4));
    assert.equal(loaded.repairs.damage?.line, 6);
    assert.equal(loaded.repairs.damage?.droppedLines, events.length - 4);
    assert.equal(loaded.repairs.interruptedTurn, 1, 'the turn the damage cut is closed as interrupted');
  });

  it('detects a byte flipped inside a text, which is still valid JSON, by the line checksum', async () => {
    const events: SessionEvent[] = [
      { type: 'user_message', at: tick(), text: 'Transfer 100 EUR to Alice', from: 'user' },
      { type: 'assistant_text', at: tick(), text: 'Done.' },
    ];
    const file = await writeSession('s-flip', events);
    editLine(file, 2, (line) => line.replace('100 EUR', '900 EUR'));
    const loaded = await new JsonlSessionStore(dir).loadSession('s-flip');
    assert.deepEqual(loaded.events, [], 'the altered message is not loaded as if it were true');
    assert.match(loaded.repairs.damage?.reason ?? '', /checksum/);
  });

  it('shows a damaged session in History with a warning naming what was dropped', async () => {
    const events = everyEventType();
    const file = await writeSession('s-hist', events);
    editLine(file, 10, () => '\u0000\u0000garbage');
    const catalog = await new JsonlSessionStore(dir).listSessions();
    assert.deepEqual(catalog.diagnostics, []);
    const entry = catalog.sessions.find((s) => s.header.id === 's-hist');
    assert.ok(entry);
    assert.equal(entry.summary.eventCount, 8 + 1, 'eight events and the end of the turn the damage cut');
    const node = historyNodes(catalog).find((n): n is SessionNode => n.type === 'session' && n.entry.header.id === 's-hist');
    assert.ok(node);
    const shown = presentSession(node, false, Date.now());
    assert.equal(shown.icon, 'warning');
    assert.match(shown.description, /damaged at line 10, partly shown/);
    assert.match(shown.tooltip, /Line 10 is damaged \\\(it is not JSON\\\).*the 12 after it/);
    assert.equal(shown.contextValue, 'session:past:root', 'Resume stays offered');
  });

  it("says what was dropped at the top of a salvaged session's transcript and conversation view", async () => {
    const events = everyEventType();
    const file = await writeSession('s-view', events);
    editLine(file, 10, () => 'not json at all');
    const loaded = await new JsonlSessionStore(dir).loadSession('s-view');
    assert.ok(loaded.repairs.damage);
    const warning = salvagedSessionWarning(loaded.repairs.damage);
    assert.match(warning, /^Line 10 is damaged \(it is not JSON\).*the 12 after it.*Resume continues from the undamaged part/);

    const transcript = renderTranscript(loaded.header, loaded.events, undefined, warning);
    const firstTurn = transcript.indexOf('## Turn 1');
    const shownAt = transcript.indexOf(`> **Warning:** ${warning}`);
    assert.ok(shownAt > 0 && shownAt < firstTurn, 'the warning comes before the conversation');

    const conversation = new ConversationModel(loaded.events, warning);
    assert.deepEqual(conversation.items[0], { kind: 'notice', text: warning });
    assert.deepEqual(new ConversationModel(loaded.events).items.slice(0, 2), conversation.items.slice(1, 3), 'the rest of the conversation is unchanged');
  });

  it('resumes from the salvaged part, keeps the damaged file aside, and later loads see no damage', async () => {
    const events = everyEventType();
    const file = await writeSession('s-resume', events);
    editLine(file, 14, () => 'not json at all');
    const notices: string[] = [];
    const store = new JsonlSessionStore(dir, { onError: (e) => notices.push(e.message) });
    track(store);
    const log = await store.reopenLog('s-resume');
    assert.equal(log.events.length, 12, 'the events before the damage');
    log.append({ type: 'user_message', at: tick(), text: 'after the resume', from: 'user' });
    await store.dispose();

    const loaded = await new JsonlSessionStore(dir).loadSession('s-resume');
    assert.equal(loaded.repairs.damage, undefined);
    assert.deepEqual(loaded.events.slice(0, 12), events.slice(0, 12));
    assert.equal((loaded.events.at(-1) as { text?: string }).text, 'after the resume');
    const kept = fs.readdirSync(dir).filter((n) => n.startsWith('s-resume.jsonl.damaged-'));
    assert.equal(kept.length, 1);
    assert.ok(fs.readFileSync(path.join(dir, kept[0]), 'utf8').includes('not json at all'));
    assert.match(notices.join('\n'), /resumed from its undamaged part/);
  });

  it('still reads lines written without checksums, as earlier versions wrote them', async () => {
    const events = everyEventType();
    const lines = [JSON.stringify(header('s-old')), ...events.map((e) => JSON.stringify(e))];
    fs.writeFileSync(path.join(dir, 's-old.jsonl'), lines.join('\n') + '\n');
    const loaded = await new JsonlSessionStore(dir).loadSession('s-old');
    assert.deepEqual(loaded.events, events);
    assert.equal(loaded.repairs.damage, undefined);
  });
});
