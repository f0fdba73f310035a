import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { Stream } from 'openai/streaming';
import * as z from 'zod';
import { ArborError } from '../errors';
import { DEFAULT_RETRY_POLICY, retryDelayMs, sleep, type RetryPolicy } from './modelRetry';
import { classifyModelError, type ModelEndpoint } from './openAiErrors';
import { toOpenAiMessages, toOpenAiTools } from './openAiMessages';
import { ToolCallAssembler } from './toolCallAssembler';
import type { ModelChunk, ModelProvider, ModelRequest } from './types';

/**
 * The settings a user gives for an OpenAI-compatible endpoint (Ollama, LM Studio, vLLM,
 * OpenAI, ...). `baseUrl` is the API root that `/chat/completions` is appended to, such as
 * `http://localhost:11434/v1`.
 */
export const openAiCompatibleSettingsSchema = z.object({
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'The base URL must be an http:// or https:// URL, such as http://localhost:11434/v1.' })
    .transform((url) => url.replace(/\/+$/, '')),
  model: z.string().trim().min(1, 'Name the model to use, such as llama3.1 or gpt-4o-mini.'),
  /** Shown in the model picker; defaults to "<model> (<host>)". */
  label: z.string().trim().min(1).optional(),
});

export type OpenAiCompatibleSettings = z.output<typeof openAiCompatibleSettingsSchema>;
export type OpenAiCompatibleSettingsInput = z.input<typeof openAiCompatibleSettingsSchema>;

/** Validates settings from configuration; INPUT_INVALID says which setting is wrong. */
export function parseOpenAiCompatibleSettings(input: unknown): OpenAiCompatibleSettings {
  const parsed = openAiCompatibleSettingsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || 'settings';
  throw new ArborError('INPUT_INVALID', `Invalid model setting '${field}': ${issue?.message ?? 'unknown problem'}`, { field });
}

export interface OpenAiCompatibleOptions {
  /**
   * Reads the API key for each request, so a key set or changed later (SecretStorage) is used
   * without recreating the provider. Local servers usually need none.
   */
  apiKey?: () => string | undefined | Promise<string | undefined>;
  retry?: Partial<RetryPolicy>;
  /** How long to wait for the response to start (ms); a model that is loading can take a while. */
  timeoutMs?: number;
  /** Ask for token usage in the stream (`stream_options.include_usage`); default true. */
  includeUsage?: boolean;
}

const DEFAULT_TIMEOUT_MS = 180_000;
/** Sent when no key is set: local servers ignore it, hosted ones answer 401 (MODEL_AUTH). */
const NO_KEY = 'no-api-key-set';

export class OpenAiCompatibleProvider implements ModelProvider {
  readonly id: string;
  readonly label: string;
  readonly settings: OpenAiCompatibleSettings;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly includeUsage: boolean;
  private readonly readApiKey: () => string | undefined | Promise<string | undefined>;
  private client: { key: string; sdk: OpenAI } | undefined;

  constructor(settings: OpenAiCompatibleSettingsInput, options: OpenAiCompatibleOptions = {}) {
    this.settings = parseOpenAiCompatibleSettings(settings);
    const host = new URL(this.settings.baseUrl).host;
    this.id = `openai-compatible:${this.settings.model}@${this.settings.baseUrl}`;
    this.label = this.settings.label ?? `${this.settings.model} (${host})`;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.includeUsage = options.includeUsage ?? true;
    this.readApiKey = options.apiKey ?? (() => undefined);
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const { signal } = request;
    signal.throwIfAborted();
    const body: ChatCompletionCreateParamsStreaming = {
      model: this.settings.model,
      messages: toOpenAiMessages(request.system, request.messages),
      stream: true,
      ...(this.includeUsage ? { stream_options: { include_usage: true } } : {}),
      ...(request.tools.length > 0 ? { tools: toOpenAiTools(request.tools) } : {}),
    };

    const { stream, endpoint } = await this.open(body, signal);
    const toolCalls = new ToolCallAssembler();
    let usage: { inputTokens: number; outputTokens: number } | undefined;
    try {
      for await (const chunk of stream) {
        if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
        for (const choice of chunk.choices ?? []) {
          if (choice.index !== 0 && choice.index !== undefined) continue;
          const delta: Partial<ChatCompletionChunk.Choice.Delta> = choice.delta ?? {};
          if (typeof delta.content === 'string' && delta.content !== '') yield { type: 'text', text: delta.content };
          if (typeof delta.refusal === 'string' && delta.refusal !== '') yield { type: 'text', text: delta.refusal };
          for (const d of delta.tool_calls ?? []) toolCalls.add(d);
          if (choice.finish_reason) for (const call of toolCalls.complete()) yield { type: 'tool_call', call };
        }
      }
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      throw classifyModelError(e, endpoint).error;
    }
    // The SDK ends the iteration quietly when its request is aborted.
    if (signal.aborted) throw signal.reason;
    for (const call of toolCalls.complete()) yield { type: 'tool_call', call };
    if (usage) yield { type: 'usage', ...usage };
  }

  /** Sends the request, retrying failures that happen before any output arrives. */
  private async open(body: ChatCompletionCreateParamsStreaming, signal: AbortSignal): Promise<{ stream: Stream<ChatCompletionChunk>; endpoint: ModelEndpoint }> {
    for (let attempt = 0; ; attempt++) {
      let endpoint: ModelEndpoint = { baseUrl: this.settings.baseUrl, model: this.settings.model };
      try {
        const key = (await this.readApiKey()) || undefined;
        endpoint = { ...endpoint, apiKey: key };
        const stream = await this.sdk(key ?? NO_KEY).chat.completions.create(body, { signal, maxRetries: 0, timeout: this.timeoutMs });
        return { stream, endpoint };
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        const failure = classifyModelError(e, endpoint);
        const tooLong = failure.retryAfterMs !== undefined && failure.retryAfterMs > this.retry.maxRetryAfterMs;
        if (!failure.retryable || tooLong || attempt >= this.retry.maxRetries) {
          throw attempt === 0 ? failure.error : new ArborError(failure.error.code, failure.error.message, { ...failure.error.details, attempts: attempt + 1 });
        }
        await sleep(Math.min(retryDelayMs(this.retry, attempt, failure.retryAfterMs), this.retry.maxRetryAfterMs), signal);
      }
    }
  }

  private sdk(key: string): OpenAI {
    if (this.client?.key !== key) {
      this.client = {
        key,
        sdk: new OpenAI({
          apiKey: key,
          baseURL: this.settings.baseUrl,
          // Nothing from the environment: the settings and the key given are the whole configuration.
          organization: null,
          project: null,
          webhookSecret: null,
          maxRetries: 0,
          logLevel: 'off',
        }),
      };
    }
    return this.client.sdk;
  }
}
