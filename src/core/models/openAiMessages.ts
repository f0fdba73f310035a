import type { ChatMessage, ToolSpec } from './types';

/** A message of the OpenAI chat completions request, as far as Arbor sends them. */
export type OpenAiMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAiToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAiTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The system prompt and conversation in the OpenAI chat format. */
export function toOpenAiMessages(system: string, messages: readonly ChatMessage[]): OpenAiMessage[] {
  const out: OpenAiMessage[] = [];
  if (system !== '') out.push({ role: 'system', content: system });
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'user':
        out.push({ role: m.role, content: m.content });
        break;
      case 'assistant':
        if (m.toolCalls && m.toolCalls.length > 0) {
          out.push({
            role: 'assistant',
            // Some servers reject an empty string next to tool calls; null is what the API documents.
            content: m.content === '' ? null : m.content,
            tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
          });
        } else {
          out.push({ role: 'assistant', content: m.content });
        }
        break;
      case 'tool':
        out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content });
        break;
    }
  }
  return out;
}

export function toOpenAiTools(tools: readonly ToolSpec[]): OpenAiTool[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}
