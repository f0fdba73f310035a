import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JsonlSessionStore, SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader } from '../../src/core/sessions';

/** A fresh folder under the OS temp dir, and its removal. */
export function makeTempDir(prefix = 'arbor-sessions-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // Retried: a store or runtime shut down a moment ago may still be finishing a write in it.
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }) };
}

let clock = Date.parse('2026-01-02T03:04:05.000Z');
/** Increasing ISO timestamps, one second apart. */
export function tick(): string {
  clock += 1000;
  return new Date(clock).toISOString();
}

export function header(id: string, extra: Partial<SessionHeader> = {}): SessionHeader {
  return {
    type: 'header',
    version: SESSION_FORMAT_VERSION,
    id,
    createdAt: tick(),
    delegationDepth: 0,
    kind: 'root',
    label: `agent ${id}`,
    interactionMode: 'interactive',
    ...extra,
  };
}

/** The header of a one-shot subagent's session delegated by `root` (journaled when its store creates it). */
export function oneShotHeader(id: string): SessionHeader {
  return header(id, { kind: 'one-shot', parentSession: 'root', delegationDepth: 1 });
}

/** One event of every type, with every optional field used somewhere. */
export function everyEventType(): SessionEvent[] {
  return [
    { type: 'turn_start', at: tick(), turn: 1 },
    { type: 'user_message', at: tick(), text: 'Refactor the parser, then report back. 🌳', from: 'user' },
    { type: 'assistant_text', at: tick(), text: 'Looking at the parser first.' },
    { type: 'tool_call', at: tick(), call: { id: 'call_1', name: 'ask_user_question', arguments: '{"questions":[]}' } },
    {
      type: 'question',
      at: tick(),
      questions: [
        {
          id: 'q1',
          question: 'Which parser?',
          header: 'Parser',
          options: [{ label: 'JSON', description: 'the config one' }, { label: 'YAML' }],
          multiSelect: false,
        },
      ],
    },
    { type: 'answer', at: tick(), answers: [{ id: 'q1', selected: ['JSON'], custom: 'and keep the API' }] },
    { type: 'answer', at: tick(), error: 'ASK_CANCELLED' },
    { type: 'tool_result', at: tick(), toolCallId: 'call_1', name: 'ask_user_question', content: 'JSON', isError: false },
    { type: 'approval', at: tick(), action: 'write file', detail: 'src/parser.ts', decision: 'allow-once', reason: 'user allowed' },
    { type: 'usage', at: tick(), inputTokens: 1200, outputTokens: 85 },
    { type: 'interrupt', at: tick(), authority: 'user', by: 'parent-1' },
    { type: 'turn_end', at: tick(), turn: 1, reason: 'aborted', cause: 'user', message: 'stopped by the user' },
    { type: 'queued', at: tick(), id: 1, text: 'Continue.', from: 'parent' },
    { type: 'queued', at: tick(), id: 2, text: 'Report from a child', from: 'child', atNextStep: true },
    { type: 'queue_dropped', at: tick(), ids: [2] },
    { type: 'turn_start', at: tick(), turn: 2 },
    { type: 'user_message', at: tick(), text: 'Continue.', from: 'parent', queuedId: 1 },
    { type: 'tool_call', at: tick(), call: { id: 'call_2', name: 'read_file', arguments: '{"path":"a.ts"}' } },
    { type: 'tool_result', at: tick(), toolCallId: 'call_2', name: 'read_file', content: 'ENOENT', isError: true },
    { type: 'assistant_text', at: tick(), text: 'Done.' },
    { type: 'turn_end', at: tick(), turn: 2, reason: 'completed' },
  ];
}

/** Writes a whole session to `dir` through a store of its own, closed after; returns its file. */
export async function writeSession(dir: string, id: string, events: SessionEvent[]): Promise<string> {
  const store = new JsonlSessionStore(dir);
  const log = store.create(header(id));
  for (const e of events) log.append(e);
  await store.dispose();
  return log.file;
}
