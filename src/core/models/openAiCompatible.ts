import { ArborError } from '../errors';
import { DEFAULT_RETRY_POLICY } from './modelRetry';
import type { ModelEndpoint } from './openAiErrors';
import { toOpenAiMessages, toOpenAiTools } from './openAiMessages';
import { openStream, type RequestConfig } from './openAiRequest';
import { DEFAULT_OPENAI_CAPS, DEFAULT_OPENAI_TIMEOUTS, parseOpenAiCompatibleSettings, type OpenAiCompatibleOptions, type OpenAiCompatibleSettings, type OpenAiCompatibleSettingsInput } from './openAiSettings';
import { readEventStream, truncated, type StreamLimits } from './openAiStream';
import type { ModelChunk, ModelProvider, ModelRequest } from './types';

/**
 * The provider for an OpenAI-compatible endpoint (Ollama, LM Studio, vLLM, OpenAI, ...): one
 * streamed chat completion per model call. Sending it, with retries and backoff until a response
 * starts, is openAiRequest.ts; reading its event stream under the idle timeout and the caps is
 * openAiStream.ts; each owns its timers and lets its connection go on every path. This module is
 * a part loaded the first time an OpenAI-compatible model is chosen (src/core/parts.ts), so the
 * others pay nothing for it at start.
 */
export class OpenAiCompatibleProvider implements ModelProvider {
  readonly id: string;
  readonly label: string;
  readonly settings: OpenAiCompatibleSettings;
  private readonly request: RequestConfig;
  private readonly limits: StreamLimits;
  private readonly includeUsage: boolean;

  constructor(settings: OpenAiCompatibleSettingsInput, options: OpenAiCompatibleOptions = {}) {
    this.settings = parseOpenAiCompatibleSettings(settings);
    const host = new URL(this.settings.baseUrl).host;
    this.id = `openai-compatible:${this.settings.model}@${this.settings.baseUrl}`;
    this.label = this.settings.label ?? `${this.settings.model} (${host})`;
    this.request = {
      baseUrl: this.settings.baseUrl,
      model: this.settings.model,
      apiKey: options.apiKey ?? (() => undefined),
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      timeoutMs: options.timeoutMs ?? DEFAULT_OPENAI_TIMEOUTS.timeoutMs,
      retryTimeoutMs: options.retryTimeoutMs ?? DEFAULT_OPENAI_TIMEOUTS.retryTimeoutMs,
    };
    this.limits = {
      idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_OPENAI_TIMEOUTS.idleTimeoutMs,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_OPENAI_CAPS.maxResponseBytes,
      maxEventChars: options.maxEventChars ?? DEFAULT_OPENAI_CAPS.maxEventChars,
    };
    this.includeUsage = options.includeUsage ?? true;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const { signal } = request;
    signal.throwIfAborted();
    const body: Record<string, unknown> = {
      model: this.settings.model,
      messages: toOpenAiMessages(request.system, request.messages),
      stream: true,
      ...(this.includeUsage ? { stream_options: { include_usage: true } } : {}),
      ...(request.tools.length > 0 ? { tools: toOpenAiTools(request.tools) } : {}),
    };
    const { response, endpoint, release } = await openStream(JSON.stringify(body), signal, this.request);
    try {
      checkEventStream(response, endpoint);
      yield* readEventStream(response, endpoint, signal, this.limits);
    } finally {
      // Ends the connection whatever happened: finished, failed, aborted or abandoned by the reader.
      release();
    }
  }
}

/** A 2xx answer that is not an event stream is a wrong URL or something in the way, said as such. */
function checkEventStream(response: Response, endpoint: ModelEndpoint): void {
  const type = response.headers.get('content-type') ?? '';
  if (/^\s*text\/event-stream\b/i.test(type)) return;
  throw new ArborError(
    'MODEL_BAD_OUTPUT',
    `The model server at ${endpoint.baseUrl} answered with ${type ? `'${truncated(type)}'` : 'no content type'} instead of an event stream (text/event-stream): check the base URL, and whether a proxy or a login page is in the way.`,
    { baseUrl: endpoint.baseUrl, model: endpoint.model, contentType: type },
  );
}
