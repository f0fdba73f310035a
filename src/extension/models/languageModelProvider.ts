import * as vscode from 'vscode';
import { ArborError, untilAborted } from '../../core';
import type { ChatMessage, ModelChunk, ModelProvider, ModelRequest } from '../../core/models';

/**
 * A ModelProvider over the VS Code Language Model API (`vscode.lm`): the chat models other
 * extensions contribute, such as Copilot's. The stable API has no system role, so the system
 * prompt goes first as a user message. Token usage is not reported by the API; it is
 * estimated with `model.countTokens` after the response (set `estimateUsage: false` to skip
 * those extra calls).
 */

/** A chat model as the model picker shows it. */
export interface LanguageModelInfo {
  id: string;
  name: string;
  vendor: string;
  family: string;
  version: string;
  maxInputTokens: number;
}

/** The chat models available now (optionally narrowed by a selector), for a picker. */
export async function listLanguageModels(selector: vscode.LanguageModelChatSelector = {}): Promise<LanguageModelInfo[]> {
  const models = await vscode.lm.selectChatModels(selector);
  return models.map((m) => ({ id: m.id, name: m.name, vendor: m.vendor, family: m.family, version: m.version, maxInputTokens: m.maxInputTokens }));
}

export interface LanguageModelProviderOptions {
  /** Shown by VS Code when it asks the user to allow Arbor to use the model. */
  justification?: string;
  /** Estimate usage with `countTokens` after each response; default true. */
  estimateUsage?: boolean;
  label?: string;
}

const DEFAULT_JUSTIFICATION = 'Arbor runs the agents you start with this model.';

export class LanguageModelProvider implements ModelProvider {
  readonly id: string;
  readonly label: string;
  private readonly justification: string;
  private readonly estimateUsage: boolean;

  constructor(
    private readonly selector: vscode.LanguageModelChatSelector,
    options: LanguageModelProviderOptions = {},
  ) {
    this.id = `vscode-lm:${selector.vendor ?? '*'}/${selector.id ?? selector.family ?? '*'}`;
    this.label = options.label ?? `${selector.family ?? selector.id ?? 'any model'} (${selector.vendor ?? 'VS Code'})`;
    this.justification = options.justification ?? DEFAULT_JUSTIFICATION;
    this.estimateUsage = options.estimateUsage ?? true;
  }

  /** A provider for one model picked from `listLanguageModels`. */
  static forModel(model: LanguageModelInfo, options: LanguageModelProviderOptions = {}): LanguageModelProvider {
    return new LanguageModelProvider({ vendor: model.vendor, id: model.id }, { label: `${model.name} (${model.vendor})`, ...options });
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const { signal } = request;
    signal.throwIfAborted();
    const cancellation = new vscode.CancellationTokenSource();
    const onAbort = (): void => cancellation.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const model = await untilAborted(this.selectModel(), signal);
      const messages = toLanguageModelMessages(request.system, request.messages);
      const tools: vscode.LanguageModelChatTool[] = request.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters }));
      const options: vscode.LanguageModelChatRequestOptions = { justification: this.justification, ...(tools.length > 0 ? { tools } : {}) };

      let response: vscode.LanguageModelChatResponse;
      try {
        response = await untilAborted(Promise.resolve(model.sendRequest(messages, options, cancellation.token)), signal);
      } catch (e) {
        throw toModelError(e, model, signal);
      }

      let output = '';
      const parts = response.stream[Symbol.asyncIterator]();
      for (;;) {
        let next: IteratorResult<unknown>;
        try {
          // Raced with the signal: a vendor that is slow to honour cancellation cannot hold the turn.
          next = await untilAborted(parts.next(), signal);
        } catch (e) {
          void parts.return?.();
          throw toModelError(e, model, signal);
        }
        if (next.done) break;
        const part = next.value;
        if (part instanceof vscode.LanguageModelTextPart) {
          output += part.value;
          yield { type: 'text', text: part.value };
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          const args = JSON.stringify(part.input ?? {});
          output += args;
          yield { type: 'tool_call', call: { id: part.callId, name: part.name, arguments: args } };
        }
      }
      signal.throwIfAborted();
      if (this.estimateUsage) {
        const usage = await estimateUsage(model, messages, output, cancellation.token);
        signal.throwIfAborted();
        if (usage) yield { type: 'usage', ...usage };
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      cancellation.dispose();
    }
  }

  private async selectModel(): Promise<vscode.LanguageModelChat> {
    const [model] = await vscode.lm.selectChatModels(this.selector);
    if (!model) {
      throw new ArborError('MODEL_UNAVAILABLE', `No chat model matches ${this.label}: install or sign in to the extension that provides it, or pick another model.`, {
        selector: { ...this.selector },
      });
    }
    return model;
  }
}

/** The conversation as Language Model API messages. Consecutive tool results share one user message. */
export function toLanguageModelMessages(system: string, messages: readonly ChatMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  if (system !== '') out.push(vscode.LanguageModelChatMessage.User(system));
  let toolResults: vscode.LanguageModelToolResultPart[] | undefined;
  for (const m of messages) {
    if (m.role !== 'tool') toolResults = undefined;
    switch (m.role) {
      case 'system':
      case 'user':
        out.push(vscode.LanguageModelChatMessage.User(m.content));
        break;
      case 'assistant': {
        const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = [];
        if (m.content !== '') parts.push(new vscode.LanguageModelTextPart(m.content));
        for (const c of m.toolCalls ?? []) parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, argumentsObject(c.arguments)));
        if (parts.length > 0) out.push(vscode.LanguageModelChatMessage.Assistant(parts));
        break;
      }
      case 'tool': {
        const part = new vscode.LanguageModelToolResultPart(m.toolCallId, [new vscode.LanguageModelTextPart(m.content)]);
        if (toolResults) {
          toolResults.push(part);
        } else {
          toolResults = [part];
          out.push(vscode.LanguageModelChatMessage.User(toolResults));
        }
        break;
      }
    }
  }
  return out;
}

/** Tool-call input must be an object; arguments the model sent malformed are passed as {}. */
function argumentsObject(text: string): object {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    // Malformed arguments: passed as {} (see above).
    return {};
  }
}

function toModelError(e: unknown, model: vscode.LanguageModelChat, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  if (e instanceof ArborError) return e;
  const details = { vendor: model.vendor, model: model.id };
  const reason = e instanceof Error && e.message ? `: ${e.message}` : '';
  if (e instanceof vscode.LanguageModelError) {
    if (e.code === vscode.LanguageModelError.NoPermissions.name) {
      return new ArborError('MODEL_AUTH', `Arbor may not use ${model.name}${reason}. Allow it when VS Code asks, or under Accounts > Manage Language Model Access.`, details);
    }
    if (e.code === vscode.LanguageModelError.Blocked.name) {
      return new ArborError('MODEL_UNAVAILABLE', `${model.name} refused the request${reason} (a quota or rate limit, or a blocked prompt). Try again later or pick another model.`, details);
    }
    if (e.code === vscode.LanguageModelError.NotFound.name) {
      return new ArborError('MODEL_BAD_REQUEST', `${model.name} is not available any more${reason}. Pick another model.`, details);
    }
  }
  return new ArborError('MODEL_ERROR', `${model.name} failed${reason || ' without a message'}.`, details);
}


async function estimateUsage(
  model: vscode.LanguageModelChat,
  messages: readonly vscode.LanguageModelChatMessage[],
  output: string,
  token: vscode.CancellationToken,
): Promise<{ inputTokens: number; outputTokens: number } | undefined> {
  try {
    const [input, out] = await Promise.all([
      Promise.all(messages.map((m) => model.countTokens(m, token))).then((counts) => counts.reduce((a, b) => a + b, 0)),
      output === '' ? Promise.resolve(0) : model.countTokens(output, token),
    ]);
    return { inputTokens: input, outputTokens: out };
  } catch {
    return undefined; // an estimate is not worth failing a turn for
  }
}
