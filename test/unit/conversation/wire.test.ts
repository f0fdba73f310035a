import assert from 'node:assert/strict';
import {
  MAX_SEND_LENGTH,
  conversationViewStateSchema,
  hostToWebviewSchema,
  parseWebviewMessage,
  type ConversationState,
  type HostToWebviewMessage,
} from '../../../src/core/conversation';

function rejected(raw: unknown): string {
  const parsed = parseWebviewMessage(raw);
  assert.equal(parsed.ok, false, `accepted ${JSON.stringify(raw)}`);
  if (parsed.ok) throw new Error('unreachable');
  assert.equal(parsed.error.type, 'error');
  assert.equal(parsed.error.code, 'INPUT_INVALID');
  return parsed.error.message;
}

describe('conversation wire: webview -> host', () => {
  it('accepts ready, stop and a send with text', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'ready' }), { ok: true, message: { type: 'ready' } });
    assert.deepEqual(parseWebviewMessage({ type: 'stop' }), { ok: true, message: { type: 'stop' } });
    assert.deepEqual(parseWebviewMessage({ type: 'send', text: 'Carry on' }), { ok: true, message: { type: 'send', text: 'Carry on' } });
  });

  it('keeps the text of a send exactly as typed (newlines, surrounding spaces, markup)', () => {
    const text = '  <b>two</b>\nlines & "quotes"  ';
    assert.deepEqual(parseWebviewMessage({ type: 'send', text }), { ok: true, message: { type: 'send', text } });
  });

  it('rejects unknown keys on every message, naming them: a view cannot choose how a run interacts', () => {
    assert.match(rejected({ type: 'send', text: 'hi', interactionMode: 'autonomous' }), /unknown key interactionMode/);
    assert.match(rejected({ type: 'stop', agentId: 'someone-else' }), /unknown key agentId/);
    assert.match(rejected({ type: 'ready', nonInteractive: true, channelName: 'github' }), /unknown keys nonInteractive, channelName/);
  });

  it('rejects an own __proto__ key like any other unknown key', () => {
    assert.match(rejected(JSON.parse('{"type":"stop","__proto__":{"polluted":true}}')), /unknown key __proto__/);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('rejects a send without usable text', () => {
    assert.match(rejected({ type: 'send' }), /text/);
    assert.match(rejected({ type: 'send', text: '' }), /text: must not be empty/);
    assert.match(rejected({ type: 'send', text: ' \n\t ' }), /text: must not be blank/);
    assert.match(rejected({ type: 'send', text: 42 }), /text/);
    assert.match(rejected({ type: 'send', text: ['hi'] }), /text/);
  });

  it('bounds the text of a send', () => {
    assert.equal(parseWebviewMessage({ type: 'send', text: 'x'.repeat(MAX_SEND_LENGTH) }).ok, true);
    assert.match(rejected({ type: 'send', text: 'x'.repeat(MAX_SEND_LENGTH + 1) }), /text/);
  });

  it('rejects unknown message types and anything that is not a message object', () => {
    for (const raw of [{ type: 'end' }, { type: 'SEND', text: 'x' }, {}, null, undefined, 'stop', 7, [{ type: 'stop' }]]) rejected(raw);
  });

  it('says nothing was changed, so the view can tell the user', () => {
    assert.match(rejected({ type: 'stop', extra: 1 }), /nothing was changed/);
  });
});

describe('conversation wire: host -> webview', () => {
  const state: ConversationState = {
    phase: 'running',
    text: 'running',
    turnStartedAt: 1,
    pending: 1,
    queued: [{ from: 'user', text: 'next' }],
    canSend: true,
    canStop: true,
    hint: 'A message you send waits in its queue.',
    tokens: 10,
  };

  it('describes snapshots, item updates, state and errors', () => {
    const messages: HostToWebviewMessage[] = [
      {
        type: 'snapshot',
        agent: { id: 'kid-1', label: 'Kid', kind: 'continuable' },
        state,
        items: [
          { kind: 'turn', turn: 1 },
          { kind: 'message', from: 'parent', text: 'work' },
          { kind: 'tool', callId: 'c1', name: 'list_agents', arguments: '{}', result: { text: '[]', isError: false } },
          { kind: 'turn_end', turn: 1, reason: 'aborted', text: 'Turn 1 ended: aborted (stopped by you)' },
        ],
      },
      { type: 'items', start: 3, items: [{ kind: 'assistant', text: 'ok' }] },
      { type: 'state', state: { ...state, phase: 'ended', text: 'ended', canSend: false, canStop: false } },
      { type: 'error', code: 'INPUT_INVALID', message: 'no' },
    ];
    for (const message of messages) assert.equal(hostToWebviewSchema().safeParse(message).success, true, JSON.stringify(message));
  });

  it('holds the host to its own contract: no stray keys, no unknown error codes', () => {
    assert.equal(hostToWebviewSchema().safeParse({ type: 'state', state: { ...state, html: '<b>' } }).success, false);
    assert.equal(hostToWebviewSchema().safeParse({ type: 'error', code: 'WHATEVER', message: 'x' }).success, false);
    assert.equal(hostToWebviewSchema().safeParse({ type: 'items', start: -1, items: [] }).success, false);
  });
});

describe('conversation wire: the state a view keeps across a reload', () => {
  it("accepts an agent id with or without a draft", () => {
    assert.ok(conversationViewStateSchema().safeParse({ agentId: 'lead-1' }).success);
    assert.ok(conversationViewStateSchema().safeParse({ agentId: 'lead-1', draft: 'half a thought' }).success);
  });

  it('refuses what cannot name a session: nothing, an empty or non-string id, an oversized draft', () => {
    for (const raw of [undefined, null, 'lead-1', {}, { agentId: '' }, { agentId: 7 }, { agentId: 'x'.repeat(1_001) }, { agentId: 'a', draft: 'x'.repeat(MAX_SEND_LENGTH + 1) }]) {
      assert.equal(conversationViewStateSchema().safeParse(raw).success, false, JSON.stringify(raw)?.slice(0, 60));
    }
  });
});
