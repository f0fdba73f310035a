/**
 * The one interface every model backend implements: the scripted demo model, the
 * OpenAI-compatible HTTP endpoint, and (in src/extension) the VS Code Language Model API.
 */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError?: boolean };

/** A tool call as the model produced it; `arguments` is the raw JSON text, parsed by the runtime. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A tool as the model sees it: JSON Schema generated from the tool's zod schema. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  /** The agent's session id and label: the scripted model picks its script by label. */
  agentId: string;
  agentLabel: string;
  /** 1-based count of model calls this agent has made, across turns. */
  call: number;
  /** 1-based turn number of this agent. */
  turn: number;
  /** 1-based model call within the current turn. */
  step: number;
  system: string;
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  /** Aborted when the turn is cancelled; providers must stop the request promptly. */
  signal: AbortSignal;
}

export type ModelChunk =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'usage'; inputTokens: number; outputTokens: number };

export interface ModelProvider {
  readonly id: string;
  /** Human name, for the picker and the log. */
  readonly label: string;
  /**
   * Streams one model response. Throws (or ends the iteration with a throw) with an
   * ArborError (`MODEL_*`) on failure; when `signal` aborts it must reject promptly with
   * `signal.reason`.
   */
  stream(request: ModelRequest): AsyncIterable<ModelChunk>;
}
