import * as assert from 'node:assert/strict';
import type { ChatMessage } from '../../../src/core/models/types';
import {
  JsonlSessionStore,
  MISSING_TOOL_RESULT,
  SESSION_FORMAT_VERSION,
  conversationFromEvents,
  resumedSessionHeader,
  type SessionEvent,
} from '../../../src/core/sessions';
import { everyEventType, header, makeTempDir, tick } from '../../support/sessionFixtures';

const at = (): string => tick();

describe('durable sessions: conversation for resume', () => {
  it('rebuilds user messages, assistant text with its tool calls, and tool results', () => {
    const events: SessionEvent[] = [
      { type: 'turn_start', at: at(), turn: 1 },
      { type: 'user_message', at: at(), text: 'List the files, then read a.ts', from: 'user' },
      { type: 'usage', at: at(), inputTokens: 10, outputTokens: 2 },
      { type: 'assistant_text', at: at(), text: 'Let me ' },
      { type: 'assistant_text', at: at(), text: 'look.' },
      { type: 'tool_call', at: at(), call: { id: 'c1', name: 'list_files', arguments: '{}' } },
      { type: 'tool_call', at: at(), call: { id: 'c2', name: 'read_file', arguments: '{"path":"a.ts"}' } },
      { type: 'approval', at: at(), action: 'read', decision: 'allow-once', reason: 'ok' },
      { type: 'tool_result', at: at(), toolCallId: 'c1', name: 'list_files', content: 'a.ts\nb.ts' },
      { type: 'tool_result', at: at(), toolCallId: 'c2', name: 'read_file', content: 'EACCES', isError: true },
      { type: 'tool_call', at: at(), call: { id: 'c3', name: 'read_file', arguments: '{"path":"b.ts"}' } },
      { type: 'tool_result', at: at(), toolCallId: 'c3', name: 'read_file', content: 'export {}' },
      { type: 'assistant_text', at: at(), text: 'b.ts is empty.' },
      { type: 'turn_end', at: at(), turn: 1, reason: 'completed' },
      { type: 'turn_start', at: at(), turn: 2 },
      { type: 'user_message', at: at(), text: 'Report from child: done', from: 'child' },
      { type: 'assistant_text', at: at(), text: 'Noted.' },
      { type: 'turn_end', at: at(), turn: 2, reason: 'completed' },
    ];
    const expected: ChatMessage[] = [
      { role: 'user', content: 'List the files, then read a.ts' },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [
          { id: 'c1', name: 'list_files', arguments: '{}' },
          { id: 'c2', name: 'read_file', arguments: '{"path":"a.ts"}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', name: 'list_files', content: 'a.ts\nb.ts' },
      { role: 'tool', toolCallId: 'c2', name: 'read_file', content: 'EACCES', isError: true },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c3', name: 'read_file', arguments: '{"path":"b.ts"}' }] },
      { role: 'tool', toolCallId: 'c3', name: 'read_file', content: 'export {}' },
      { role: 'assistant', content: 'b.ts is empty.' },
      { role: 'user', content: 'Report from child: done' },
      { role: 'assistant', content: 'Noted.' },
    ];
    assert.deepEqual(conversationFromEvents(events), expected);
  });

  it('answers a tool call the stopped turn left without a result, so a model API accepts the history', () => {
    const events: SessionEvent[] = [
      { type: 'turn_start', at: at(), turn: 1 },
      { type: 'user_message', at: at(), text: 'run both', from: 'user' },
      { type: 'tool_call', at: at(), call: { id: 'c1', name: 'build', arguments: '{}' } },
      { type: 'tool_call', at: at(), call: { id: 'c2', name: 'test', arguments: '{}' } },
      { type: 'tool_result', at: at(), toolCallId: 'c1', name: 'build', content: 'ok' },
      { type: 'interrupt', at: at(), authority: 'user' },
      { type: 'turn_end', at: at(), turn: 1, reason: 'aborted', cause: 'user' },
      { type: 'turn_start', at: at(), turn: 2 },
      { type: 'user_message', at: at(), text: 'skip the tests', from: 'user' },
      { type: 'tool_call', at: at(), call: { id: 'c3', name: 'deploy', arguments: '{}' } },
    ];
    assert.deepEqual(conversationFromEvents(events), [
      { role: 'user', content: 'run both' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'build', arguments: '{}' }, { id: 'c2', name: 'test', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c1', name: 'build', content: 'ok' },
      { role: 'tool', toolCallId: 'c2', name: 'test', content: MISSING_TOOL_RESULT, isError: true },
      { role: 'user', content: 'skip the tests' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c3', name: 'deploy', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c3', name: 'deploy', content: MISSING_TOOL_RESULT, isError: true },
    ]);
  });

  it('drops a tool result whose call is not in the log, and empty assistant text', () => {
    const events: SessionEvent[] = [
      { type: 'user_message', at: at(), text: 'hi', from: 'user' },
      { type: 'tool_result', at: at(), toolCallId: 'ghost', name: 'x', content: 'orphan' },
      { type: 'assistant_text', at: at(), text: '' },
      { type: 'user_message', at: at(), text: 'again', from: 'user' },
    ];
    assert.deepEqual(conversationFromEvents(events), [
      { role: 'user', content: 'hi' },
      { role: 'user', content: 'again' },
    ]);
  });

  it('gives every tool message a preceding assistant call with the same id, for a full log', () => {
    const conversation = conversationFromEvents(everyEventType());
    const called = new Set<string>();
    for (const m of conversation) {
      if (m.role === 'assistant') for (const c of m.toolCalls ?? []) called.add(c.id);
      if (m.role === 'tool') assert.ok(called.has(m.toolCallId), m.toolCallId);
    }
    assert.equal(conversation[0].role, 'user');
  });

  it('reopens a stored session as a new root: repaired events in, continuing header out', async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      const store = new JsonlSessionStore(dir);
      const old = store.create(header('child-1', { parentSession: 'root-1', delegationDepth: 1, kind: 'continuable' }));
      old.append({ type: 'turn_start', at: at(), turn: 1 });
      old.append({ type: 'user_message', at: at(), text: 'task', from: 'parent' });
      old.append({ type: 'tool_call', at: at(), call: { id: 'c1', name: 'build', arguments: '{}' } });
      await store.dispose(); // the process dies mid-tool

      const loaded = await new JsonlSessionStore(dir).loadSession('child-1');
      assert.deepEqual(conversationFromEvents(loaded.events), [
        { role: 'user', content: 'task' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'build', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'c1', name: 'build', content: MISSING_TOOL_RESULT, isError: true },
      ]);
      const next = resumedSessionHeader(loaded.header, { id: 'resumed-1', createdAt: '2026-02-01T00:00:00.000Z' });
      assert.deepEqual(next, {
        ...loaded.header,
        version: SESSION_FORMAT_VERSION,
        id: 'resumed-1',
        createdAt: '2026-02-01T00:00:00.000Z',
        resumedFrom: 'child-1',
      });
    } finally {
      cleanup();
    }
  });
});
