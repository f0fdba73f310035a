import assert from 'node:assert/strict';
import {
  ConversationModel,
  MAX_ITEM_TEXT,
  buildConversation,
  conversationState,
  hostToWebviewSchema,
  type ConversationItem,
  type ConversationStateInput,
} from '../../../src/core/conversation';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { childByLabel, makeRuntime } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const at = '2026-01-01T00:00:00.000Z';

/** One stopped turn with a tool call, then a resumed one with a question. */
const events: SessionEvent[] = [
  { type: 'queued', at, id: 1, text: 'work', from: 'parent' },
  { type: 'turn_start', at, turn: 1 },
  { type: 'user_message', at, text: 'work', from: 'parent', queuedId: 1 },
  { type: 'assistant_text', at, text: 'Looking.' },
  { type: 'tool_call', at, call: { id: 'c1', name: 'list_agents', arguments: '{"scope":"children"}' } },
  { type: 'queued', at, id: 2, text: 'also this', from: 'user' },
  { type: 'tool_result', at, toolCallId: 'c1', name: 'list_agents', content: '[]' },
  { type: 'usage', at, inputTokens: 10, outputTokens: 5 },
  { type: 'interrupt', at, authority: 'user' },
  { type: 'turn_end', at, turn: 1, reason: 'aborted', cause: 'user' },
  { type: 'queued', at, id: 3, text: 'and then this', from: 'user' },
  { type: 'turn_start', at, turn: 2 },
  { type: 'user_message', at, text: 'also this', from: 'user', queuedId: 2 },
  { type: 'question', at, questions: [{ id: 'q', question: 'Which?', header: 'Pick', options: [{ label: 'A' }, { label: 'B' }] }] },
  { type: 'answer', at, answers: [{ id: 'q', selected: ['A'], custom: 'more' }] },
  { type: 'turn_end', at, turn: 2, reason: 'completed' },
];

/** What the view does with an `items` change: replace its items from `start` on. */
function applyChange(mirror: ConversationItem[], change: { start: number; items: ConversationItem[] } | undefined): void {
  if (change) mirror.splice(change.start, mirror.length - change.start, ...change.items);
}

describe('conversation model: session events -> view items', () => {
  const track = disposeAfterEach();
  it('turns a session into messages, assistant text, tool calls with their results, questions, answers and turn ends', () => {
    assert.deepEqual(buildConversation(events), [
      { kind: 'turn', turn: 1 },
      { kind: 'message', from: 'parent', text: 'work' },
      { kind: 'assistant', text: 'Looking.' },
      { kind: 'tool', callId: 'c1', name: 'list_agents', arguments: '{\n  "scope": "children"\n}', result: { text: '[]', isError: false } },
      { kind: 'notice', text: 'You asked it to stop.' },
      { kind: 'turn_end', turn: 1, reason: 'aborted', text: 'Turn 1 ended: aborted (stopped by you)' },
      { kind: 'turn', turn: 2 },
      { kind: 'message', from: 'user', text: 'also this' },
      { kind: 'question', questions: [{ header: 'Pick', question: 'Which?', options: ['A', 'B'] }] },
      { kind: 'answer', answers: [{ id: 'q', text: 'A, "more"' }] },
      { kind: 'turn_end', turn: 2, reason: 'completed', text: 'Turn 2 ended: completed' },
    ]);
  });

  it('lists the messages still queued, oldest first, and forgets claimed and dropped ones', () => {
    const model = new ConversationModel(events);
    assert.deepEqual(model.queued(), [{ from: 'user', text: 'and then this' }]);
    model.apply({ type: 'queued', at, id: 4, text: 'fourth', from: 'user' });
    assert.deepEqual(model.queued().map((q) => q.text), ['and then this', 'fourth']);
    assert.deepEqual(model.queued(1).map((q) => q.text), ['and then this']);
    model.apply({ type: 'queue_dropped', at, ids: [3, 4] });
    assert.deepEqual(model.queued(), []);
    assert.deepEqual(model.items.at(-1), { kind: 'notice', text: '2 queued messages were dropped.' });
  });

  it('reports only what changed: an appended event is one new item, a tool result updates its call in place', () => {
    const model = new ConversationModel();
    const mirror: ConversationItem[] = [];
    model.apply(events[1]);
    model.apply(events[2]);
    applyChange(mirror, model.takeChanges());
    assert.equal(model.takeChanges(), undefined, 'nothing changed since the last take');
    model.apply(events[4]); // tool call
    assert.deepEqual(model.takeChanges(), { start: 2, items: [model.items[2]] });
    model.apply(events[3]); // text after the call (order does not matter to the model)
    model.apply(events[6]); // the call's result
    const change = model.takeChanges()!;
    assert.equal(change.start, 2, 'the update starts at the tool call it completed');
    assert.equal(change.items.length, 2);
    model.apply(events[7]); // usage: nothing to show
    assert.equal(model.takeChanges(), undefined);
  });

  it('fed one event at a time, a view that applies each change ends up with the same items as a full build', () => {
    const model = new ConversationModel();
    const mirror: ConversationItem[] = [];
    for (const event of events) {
      model.apply(event);
      if (event.type !== 'queued') applyChange(mirror, model.takeChanges());
    }
    assert.deepEqual(mirror, buildConversation(events));
  });

  it('stays cheap for long conversations: after 10,000 events, one more event is a one-item update', () => {
    const model = new ConversationModel();
    for (let turn = 1; turn <= 2000; turn++) {
      model.apply({ type: 'turn_start', at, turn });
      model.apply({ type: 'user_message', at, text: `message ${turn}`, from: 'user' });
      model.apply({ type: 'tool_call', at, call: { id: `c${turn}`, name: 'run_command', arguments: '{"command":"ls"}' } });
      model.apply({ type: 'tool_result', at, toolCallId: `c${turn}`, name: 'run_command', content: 'a\nb' });
      model.apply({ type: 'turn_end', at, turn, reason: 'completed' });
    }
    assert.equal(model.items.length, 8000);
    model.takeChanges();
    model.apply({ type: 'turn_start', at, turn: 2001 });
    const change = model.takeChanges()!;
    assert.equal(change.start, 8000);
    assert.equal(change.items.length, 1);
  });

  it('clips very long texts and says where to read all of it', () => {
    const [item] = buildConversation([{ type: 'assistant_text', at, text: 'y'.repeat(MAX_ITEM_TEXT + 5) }]);
    assert.equal(item.kind, 'assistant');
    if (item.kind !== 'assistant') return;
    assert.ok(item.text.startsWith('y'.repeat(MAX_ITEM_TEXT)));
    assert.match(item.text, /5 more characters; Open Transcript shows all of it/);
  });

  it('shows a result whose call is not in the log on its own, and an error result as an error', () => {
    assert.deepEqual(buildConversation([{ type: 'tool_result', at, toolCallId: 'x', name: 'run_command', content: 'denied', isError: true }]), [
      { kind: 'tool', callId: 'x', name: 'run_command', result: { text: 'denied', isError: true } },
    ]);
  });

  it('keeps agent text as data: markup stays text for the view to render with textContent', () => {
    const [item] = buildConversation([{ type: 'assistant_text', at, text: '<img src=x onerror=alert(1)>' }]);
    assert.deepEqual(item, { kind: 'assistant', text: '<img src=x onerror=alert(1)>' });
  });

  it('builds snapshots the host -> webview schema accepts', () => {
    const snapshot = {
      type: 'snapshot',
      agent: { id: 'a', label: 'A', kind: 'root' },
      state: conversationState({ ...running, queued: new ConversationModel(events).queued() }),
      items: buildConversation(events),
    };
    const parsed = hostToWebviewSchema().safeParse(snapshot);
    assert.equal(parsed.success, true, parsed.success ? '' : parsed.error.message);
  });

  it('follows a real runtime: a model fed from runtime events equals one built from the log', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        Boss: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Kid', prompt: 'work' } }] }, { hang: true }]] },
        Kid: { turns: [[{ toolCalls: [{ name: 'list_agents', arguments: {} }] }, { hang: true }]], afterLastTurn: 'echo' },
      },
    });
    track(runtime);
    const models = new Map<string, ConversationModel>();
    runtime.onEvent((e) => {
      if (e.type !== 'agent_changed' || e.change.type !== 'log') return;
      if (!models.has(e.agent.id)) models.set(e.agent.id, new ConversationModel(e.agent.log.events.slice(0, -1)));
      models.get(e.agent.id)!.apply(e.change.event);
    });
    runtime.startRoot({ prompt: 'go', label: 'Boss' });
    await whenState(runtime, () => runtime.agents.size === 2, 'Kid to start');
    const kid = childByLabel(runtime, 'Kid');
    await whenState(runtime, () => kid.log.events.some((e) => e.type === 'tool_result'), 'Kid to list agents');
    runtime.sendFromUser(kid, 'queued while running');
    runtime.stop(kid);
    await kid.whenIdle();
    runtime.sendFromUser(kid, 'resume');
    await whenState(runtime, () => kid.log.events.filter((e) => e.type === 'turn_end').length === 3, 'the parked and the new message to run');
    const live = models.get(kid.id)!;
    assert.deepEqual(live.items, buildConversation(kid.log.events));
    const ends = live.items.filter((i) => i.kind === 'turn_end').map((i) => (i.kind === 'turn_end' ? i.text : ''));
    assert.deepEqual(ends, ['Turn 1 ended: aborted (stopped by you)', 'Turn 2 ended: completed', 'Turn 3 ended: completed']);
  });
});

const running: ConversationStateInput = {
  kind: 'continuable',
  live: true,
  status: 'running',
  stopping: false,
  waiting: false,
  pendingCount: 0,
  parked: false,
  turnStartedAt: 1000,
  parentOffline: false,
  queued: [],
  tokens: 0,
};

describe('conversation model: the state line and the actions', () => {
  it('a running continuable child: Send queues, Stop applies, the view counts the turn time itself', () => {
    const state = conversationState({ ...running, pendingCount: 1, queued: [{ from: 'user', text: 'next' }] });
    assert.equal(state.phase, 'running');
    assert.equal(state.text, 'running');
    assert.equal(state.canSend, true);
    assert.equal(state.canStop, true);
    assert.equal(state.turnStartedAt, 1000);
    assert.equal(state.pending, 1);
    assert.match(state.hint, /waits in its queue after the 1 already queued/);
  });

  it('stopping… until the turn end arrives: no second Stop, Send still queues', () => {
    const state = conversationState({ ...running, stopping: true, parked: true, pendingCount: 1 });
    assert.equal(state.phase, 'stopping');
    assert.equal(state.text, 'stopping…');
    assert.equal(state.canStop, false);
    assert.equal(state.canSend, true);
  });

  it('stopped with queued messages: Send resumes them in order, Stop no longer applies', () => {
    const state = conversationState({ ...running, status: 'idle', parked: true, pendingCount: 2, lastTurnEnd: { reason: 'aborted' } });
    assert.equal(state.phase, 'parked');
    assert.equal(state.text, 'stopped with 2 queued');
    assert.equal(state.canStop, false);
    assert.equal(state.canSend, true);
    assert.equal(state.turnStartedAt, undefined);
    assert.match(state.hint, /resumes its 2 queued messages in order, then yours/);
  });

  it('idle after a stop says stopped; idle otherwise says idle', () => {
    assert.equal(conversationState({ ...running, status: 'idle', lastTurnEnd: { reason: 'aborted' } }).text, 'stopped');
    assert.equal(conversationState({ ...running, status: 'idle', lastTurnEnd: { reason: 'completed' } }).text, 'idle');
  });

  it('a root waiting for an answer can still be stopped', () => {
    const state = conversationState({ ...running, kind: 'root', waiting: true });
    assert.equal(state.phase, 'waiting');
    assert.equal(state.canStop, true);
  });

  it('a continuable child whose parent agent is offline keeps Stop reachable', () => {
    const state = conversationState({ ...running, parentOffline: true });
    assert.equal(state.canStop, true);
    assert.equal(state.canSend, true);
    assert.match(state.hint, /parent agent has ended; Stop and Send still reach it/);
  });

  it('a one-shot subagent has no Send and no Stop, and the view says its holder owns it', () => {
    const state = conversationState({ ...running, kind: 'one-shot' });
    assert.equal(state.phase, 'running');
    assert.equal(state.canSend, false);
    assert.equal(state.canStop, false);
    assert.match(state.hint, /the agent waiting for its result owns it/);
  });

  it('an agent no longer live disables input and says so', () => {
    const state = conversationState({ ...running, kind: 'root', live: false, status: 'idle' });
    assert.equal(state.phase, 'ended');
    assert.equal(state.text, 'ended');
    assert.equal(state.canSend, false);
    assert.equal(state.canStop, false);
    assert.match(state.hint, /has ended/);
  });

  it('a settled continuable child says its parent can wake it, and that the view then follows it', () => {
    const state = conversationState({ ...running, live: false, status: 'idle' });
    assert.equal(state.phase, 'ended');
    assert.equal(state.canSend, false);
    assert.match(state.hint, /no longer live .*If its parent wakes it with a message, this view follows it/);
  });
});
