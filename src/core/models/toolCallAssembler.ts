import type { ToolCall } from './types';

/** One streamed fragment of a tool call, as OpenAI-compatible servers send them. */
export interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/**
 * Puts tool calls back together from streamed deltas. The first delta of a call carries its
 * index, id and name; later deltas of the same index carry pieces of the JSON arguments.
 * A call is complete when its choice finishes (or the stream ends): only then is `complete()`
 * called, because servers may stream several calls' fragments interleaved.
 */
export class ToolCallAssembler {
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();
  private lastIndex = -1;
  private generated = 0;

  constructor(private readonly newId: (n: number) => string = (n) => `call_${Date.now().toString(36)}_${n}`) {}

  get pending(): boolean {
    return this.calls.size > 0;
  }

  add(delta: ToolCallDelta): void {
    // A server that leaves out `index` sends each call whole, or starts a new one with an id.
    const index = delta.index ?? (delta.id !== undefined || this.lastIndex < 0 ? this.lastIndex + 1 : this.lastIndex);
    this.lastIndex = Math.max(this.lastIndex, index);
    let call = this.calls.get(index);
    if (!call) {
      call = { id: '', name: '', arguments: '' };
      this.calls.set(index, call);
    }
    if (delta.id) call.id = delta.id;
    if (delta.function?.name) call.name = delta.function.name;
    if (delta.function?.arguments) call.arguments += delta.function.arguments;
  }

  /** The assembled calls in index order; the assembler is empty afterwards. */
  complete(): ToolCall[] {
    const out = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ id: c.id || this.newId(++this.generated), name: c.name, arguments: c.arguments.trim() === '' ? '{}' : c.arguments }));
    this.calls.clear();
    return out;
  }
}
