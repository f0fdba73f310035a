/**
 * The session events the sessions benchmarks write: bench/sessions.bench.ts and the `sessions`
 * workload of bench:compare (bench/workloads/sessions.ts) append the same mix, so their figures
 * speak of the same files.
 */
import type { SessionEvent, SessionHeader } from '../../src/core/sessions';

export const EVENTS_PER_TURN = 20;

export function headerFor(id: string, version: number): SessionHeader {
  return { type: 'header', version, id, createdAt: new Date().toISOString(), delegationDepth: 0, kind: 'root', label: id, interactionMode: 'interactive' };
}

/** A realistic mix: turn boundaries, text, tool calls with 1 KB results, usage. */
export function eventAt(i: number): SessionEvent {
  const at = new Date(1_767_000_000_000 + i * 1000).toISOString();
  const turn = Math.floor(i / EVENTS_PER_TURN) + 1;
  switch (i % EVENTS_PER_TURN) {
    case 0:
      return { type: 'turn_start', at, turn };
    case 1:
      return { type: 'user_message', at, text: 'Please look at the failing test in src/parser and fix it.', from: 'user' };
    case EVENTS_PER_TURN - 2:
      return { type: 'usage', at, inputTokens: 12_345, outputTokens: 678 };
    case EVENTS_PER_TURN - 1:
      return { type: 'turn_end', at, turn, reason: 'completed' };
    default:
      switch (i % 3) {
        case 0:
          return { type: 'assistant_text', at, text: 'I will read the file and check the tokenizer state. '.repeat(4) };
        case 1:
          return { type: 'tool_call', at, call: { id: `call_${i}`, name: 'read_file', arguments: '{"path":"src/parser/tokenizer.ts"}' } };
        default:
          return { type: 'tool_result', at, toolCallId: `call_${i - 1}`, name: 'read_file', content: 'export const x = 1;\n'.repeat(50) };
      }
  }
}
