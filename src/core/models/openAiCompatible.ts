// Why this file stays whole: one streamed request is one state machine (connect, retry with
// backoff, read SSE events under byte and idle limits, assemble tool calls, classify failures),
// and its timers and abort paths must be read together to see that every path settles once.
// The pieces without that shared state already live beside it (openAiErrors, openAiMessages,
// toolCallAssembler, modelRetry).
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import * as z from 'zod';
import { ArborError } from '../errors';
import { lazySchema } from '../lazySchema';
import { DEFAULT_RETRY_POLICY, retryDelayMs, sleep, type RetryPolicy } from './modelRetry';
import { classifyConnectionError, classifyHttpFailure, redact, streamedError, type ClassifiedModelError, type ModelEndpoint } from './openAiErrors';
import { toOpenAiMessages, toOpenAiTools } from './openAiMessages';
import { SseLineMeter } from './sseLineMeter';
import { ToolCallAssembler } from './toolCallAssembler';
import type { ModelChunk, ModelProvider, ModelRequest } from './types';

/**
 * The settings a user gives for an OpenAI-compatible endpoint (Ollama, LM Studio, vLLM,
 * OpenAI, ...). `baseUrl` is the API root that `/chat/completions` is appended to, such as
 * `http://localhost:11434/v1`.
 */
export const openAiCompatibleSettingsSchema = lazySchema(() => z.object({
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'The base URL must be an http:// or https:// URL, such as http://localhost:11434/v1.' })
    .transform((url) => url.replace(/\/+$/, '')),
  model: z.string().trim().min(1, 'Name the model to use, such as llama3.1 or gpt-4o-mini.'),
  /** Shown in the model picker; defaults to "<model> (<host>)". */
  label: z.string().trim().min(1).optional(),
}));

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
  /**
   * How long one attempt waits for the response to start (status and headers, ms); a model
   * that is loading can take a while. Default 120 s.
   */
  timeoutMs?: number;
  /**
   * Once the response has started, the longest wait for its next event (ms); keep-alive
   * comments do not count. Default 90 s.
   */
  idleTimeoutMs?: number;
  /** The whole time spent getting a response to start, every retry and backoff included (ms). Default 300 s. */
  retryTimeoutMs?: number;
  /** The most bytes one response may have; past it the turn ends with MODEL_TOO_LARGE. Default 32 MiB. */
  maxResponseBytes?: number;
  /** The most characters one line or event of the stream may have (MODEL_TOO_LARGE). Default 4 Mi. */
  maxEventChars?: number;
  /** Ask for token usage in the stream (`stream_options.include_usage`); default true. */
  includeUsage?: boolean;
}

/** The defaults of the timeouts (ms); the settings `arbor.model.openaiCompatible.*TimeoutSeconds` override them. */
export const DEFAULT_OPENAI_TIMEOUTS = { timeoutMs: 120_000, idleTimeoutMs: 90_000, retryTimeoutMs: 300_000 } as const;
/**
 * The caps on what one response may make Arbor hold: a server that streams without end, or
 * sends one endless line, ends the turn with MODEL_TOO_LARGE instead of filling the memory.
 */
export const DEFAULT_OPENAI_CAPS = { maxResponseBytes: 32 * 1024 * 1024, maxEventChars: 4 * 1024 * 1024 } as const;
/** Sent when no key is set: local servers ignore it, hosted ones answer 401 (MODEL_AUTH). */
const NO_KEY = 'no-api-key-set';
/** Error bodies are read up to this size: enough for any server's message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** One streamed chunk of a chat completion, as far as Arbor reads it; anything else is ignored. */
const wireChunkSchema = lazySchema(() => z.object({
  choices: z
    .array(
      z.object({
        index: z.number().int().nullish(),
        delta: z
          .object({
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().int().nonnegative().nullish(),
                  id: z.string().nullish(),
                  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative().nullish(),
      completion_tokens: z.number().int().nonnegative().nullish(),
    })
    .nullish(),
}));

type RequestBody = Record<string, unknown>;

export class OpenAiCompatibleProvider implements ModelProvider {
  readonly id: string;
  readonly label: string;
  readonly settings: OpenAiCompatibleSettings;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly idleTimeoutMs: number;
  private readonly retryTimeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly maxEventChars: number;
  private readonly includeUsage: boolean;
  private readonly readApiKey: () => string | undefined | Promise<string | undefined>;

  constructor(settings: OpenAiCompatibleSettingsInput, options: OpenAiCompatibleOptions = {}) {
    this.settings = parseOpenAiCompatibleSettings(settings);
    const host = new URL(this.settings.baseUrl).host;
    this.id = `openai-compatible:${this.settings.model}@${this.settings.baseUrl}`;
    this.label = this.settings.label ?? `${this.settings.model} (${host})`;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_OPENAI_TIMEOUTS.timeoutMs;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_OPENAI_TIMEOUTS.idleTimeoutMs;
    this.retryTimeoutMs = options.retryTimeoutMs ?? DEFAULT_OPENAI_TIMEOUTS.retryTimeoutMs;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_OPENAI_CAPS.maxResponseBytes;
    this.maxEventChars = options.maxEventChars ?? DEFAULT_OPENAI_CAPS.maxEventChars;
    this.includeUsage = options.includeUsage ?? true;
    this.readApiKey = options.apiKey ?? (() => undefined);
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const { signal } = request;
    signal.throwIfAborted();
    const body: RequestBody = {
      model: this.settings.model,
      messages: toOpenAiMessages(request.system, request.messages),
      stream: true,
      ...(this.includeUsage ? { stream_options: { include_usage: true } } : {}),
      ...(request.tools.length > 0 ? { tools: toOpenAiTools(request.tools) } : {}),
    };
    const { response, endpoint, release } = await this.open(JSON.stringify(body), signal);
    try {
      const type = response.headers.get('content-type') ?? '';
      if (!/^\s*text\/event-stream\b/i.test(type)) {
        throw new ArborError(
          'MODEL_BAD_OUTPUT',
          `The model server at ${endpoint.baseUrl} answered with ${type ? `'${truncated(type)}'` : 'no content type'} instead of an event stream (text/event-stream): check the base URL, and whether a proxy or a login page is in the way.`,
          { baseUrl: endpoint.baseUrl, model: endpoint.model, contentType: type },
        );
      }
      yield* this.read(response, endpoint, signal);
    } finally {
      // Ends the connection whatever happened: finished, failed, aborted or abandoned by the reader.
      release();
    }
  }

  /** Parses the event stream into chunks. */
  private async *read(response: Response, endpoint: ModelEndpoint, signal: AbortSignal): AsyncGenerator<ModelChunk> {
    if (!response.body) {
      throw new ArborError('MODEL_UNAVAILABLE', `The model server at ${endpoint.baseUrl} answered without a body.`, { baseUrl: endpoint.baseUrl, model: endpoint.model });
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const events: EventSourceMessage[] = [];
    let comments = 0;
    let oversized = false;
    // The parser buffers at most one line or event; past the cap it stops and reports it. What
    // completes within one read it does not measure: the meter measures each line, and each
    // event's data is measured here.
    const lines = new SseLineMeter(this.maxEventChars);
    const parser = createParser({
      onEvent: (event) => {
        if (event.data.length > this.maxEventChars) oversized = true;
        else events.push(event);
      },
      onComment: () => comments++,
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') oversized = true;
      },
      maxBufferSize: this.maxEventChars,
    });
    let received = 0;
    const tooLarge = (what: string, limit: string): ArborError =>
      new ArborError('MODEL_TOO_LARGE', `The model server at ${endpoint.baseUrl} sent ${what} larger than ${limit}; the response was cut off there.`, {
        baseUrl: endpoint.baseUrl,
        model: endpoint.model,
      });
    const toolCalls = new ToolCallAssembler();
    let usage: { inputTokens: number; outputTokens: number } | undefined;
    let sawDone = false;
    let eventsSeen = 0;
    // One timer for the whole response, pushed back by each event: a server that stalls, or
    // sends only keep-alive comments, cannot hold the turn.
    let idle = false;
    const watchdog = setTimeout(() => {
      idle = true;
      // A stream that cannot be cancelled is broken already: the idle error below says what happened.
      void reader.cancel().catch(() => undefined);
    }, this.idleTimeoutMs);
    const idleError = (): ArborError => {
      const quiet = seconds(this.idleTimeoutMs);
      const what =
        eventsSeen === 0
          ? comments > 0
            ? `sent only keep-alive comments for ${quiet} after its response headers`
            : `sent its response headers, then nothing for ${quiet}`
          : `stopped sending in the middle of the response: ${comments > 0 ? 'only keep-alive comments' : 'nothing'} for ${quiet}`;
      return new ArborError('MODEL_TIMEOUT', `The model server at ${endpoint.baseUrl} ${what} (the idle timeout, arbor.model.openaiCompatible.idleTimeoutSeconds).`, {
        baseUrl: endpoint.baseUrl,
        model: endpoint.model,
        idleTimeoutMs: this.idleTimeoutMs,
      });
    };
    try {
      while (!sawDone) {
        let part: ReadableStreamReadResult<Uint8Array>;
        try {
          part = await reader.read();
        } catch (e) {
          if (signal.aborted) throw signal.reason;
          if (idle) throw idleError();
          throw classifyConnectionError(e, endpoint, true).error;
        }
        if (idle) throw idleError();
        if (part.done) break;
        received += part.value.byteLength;
        if (received > this.maxResponseBytes) throw tooLarge('a response', size(this.maxResponseBytes, 'bytes'));
        const text = decoder.decode(part.value, { stream: true });
        if (!lines.fits(text)) oversized = true;
        else parser.feed(text);
        if (oversized) throw tooLarge('one line or event', size(this.maxEventChars, 'characters'));
        if (events.length > 0) {
          eventsSeen += events.length;
          watchdog.refresh();
        }
        for (const event of events) {
          if (event.data === '[DONE]') {
            sawDone = true;
            break;
          }
          const chunk = this.parseEvent(event, endpoint);
          if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
          for (const choice of chunk.choices ?? []) {
            if (choice.index !== 0 && choice.index !== undefined && choice.index !== null) continue;
            const delta = choice.delta;
            if (delta?.content) yield { type: 'text', text: delta.content };
            if (delta?.refusal) yield { type: 'text', text: delta.refusal };
            for (const d of delta?.tool_calls ?? []) toolCalls.add(d);
            if (choice.finish_reason) for (const call of toolCalls.complete()) yield { type: 'tool_call', call };
          }
        }
        events.length = 0;
      }
    } finally {
      clearTimeout(watchdog);
      // Only lets the connection go: the stream's own end or failure was handled above.
      void reader.cancel().catch(() => undefined);
    }
    if (signal.aborted) throw signal.reason;
    if (eventsSeen === 0) {
      throw new ArborError('MODEL_UNAVAILABLE', `The model server at ${endpoint.baseUrl} closed its event stream without sending anything.`, {
        baseUrl: endpoint.baseUrl,
        model: endpoint.model,
      });
    }
    for (const call of toolCalls.complete()) yield { type: 'tool_call', call };
    if (usage) yield { type: 'usage', ...usage };
  }

  private parseEvent(event: EventSourceMessage, endpoint: ModelEndpoint): z.output<typeof wireChunkSchema> {
    let value: unknown;
    try {
      value = JSON.parse(event.data);
    } catch {
      throw new ArborError('MODEL_BAD_OUTPUT', `The model server at ${endpoint.baseUrl} sent an event that is not JSON: ${truncated(redact(event.data, endpoint.apiKey))}`, {
        baseUrl: endpoint.baseUrl,
        model: endpoint.model,
      });
    }
    if (event.event === 'error' || (typeof value === 'object' && value !== null && 'error' in value && (value).error)) {
      throw streamedError(value, endpoint);
    }
    const parsed = wireChunkSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new ArborError(
      'MODEL_BAD_OUTPUT',
      `The model server at ${endpoint.baseUrl} sent a malformed chunk: '${issue?.path.join('.') ?? ''}' is invalid (${issue?.message ?? 'unknown problem'}).`,
      { baseUrl: endpoint.baseUrl, model: endpoint.model, field: issue?.path.join('.') },
    );
  }

  /**
   * Sends the request until a 2xx response arrives, retrying failures that happen before any
   * output. `release` ends the connection.
   */
  private async open(body: string, signal: AbortSignal): Promise<{ response: Response; endpoint: ModelEndpoint; release: () => void }> {
    const started = Date.now();
    const deadline = started + this.retryTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      let endpoint: ModelEndpoint = { baseUrl: this.settings.baseUrl, model: this.settings.model };
      const controller = new AbortController();
      const onAbort = (): void => controller.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      // Each attempt waits at most the response timeout, and never past the retry deadline.
      const wait = Math.max(0, Math.min(this.timeoutMs, deadline - Date.now()));
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, wait);
      let failure: ClassifiedModelError;
      try {
        const key = (await this.readApiKey()) || undefined;
        endpoint = { ...endpoint, apiKey: key };
        signal.throwIfAborted();
        const response = await fetch(`${this.settings.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${key ?? NO_KEY}` },
          body,
          signal: controller.signal,
        });
        if (response.ok) {
          clearTimeout(timer);
          const release = (): void => {
            signal.removeEventListener('abort', onAbort);
            controller.abort();
          };
          return { response, endpoint, release };
        }
        failure = classifyHttpFailure({ status: response.status, headers: response.headers, body: await readText(response, MAX_ERROR_BODY_BYTES) }, endpoint);
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        failure = timedOut ? this.timeoutFailure(endpoint, wait) : classifyConnectionError(e, endpoint, false);
      } finally {
        clearTimeout(timer);
      }
      signal.removeEventListener('abort', onAbort);
      controller.abort();
      const attempts = attempt + 1;
      const delay = failure.retryable ? Math.min(retryDelayMs(this.retry, attempt, failure.retryAfterMs), this.retry.maxRetryAfterMs) : 0;
      const tooLong = failure.retryAfterMs !== undefined && failure.retryAfterMs > this.retry.maxRetryAfterMs;
      const outOfTime = Date.now() + delay >= deadline;
      if (!failure.retryable || tooLong || attempt >= this.retry.maxRetries || outOfTime) {
        if (attempts === 1) throw failure.error;
        const note = outOfTime && failure.retryable && !tooLong ? ` Gave up after ${attempts} attempts in ${seconds(Date.now() - started)} (the retry timeout, arbor.model.openaiCompatible.retryTimeoutSeconds).` : '';
        throw new ArborError(failure.error.code, failure.error.message + note, { ...failure.error.details, attempts });
      }
      await sleep(delay, signal);
    }
  }

  private timeoutFailure(endpoint: ModelEndpoint, waitedMs: number): ClassifiedModelError {
    return {
      retryable: true,
      error: new ArborError(
        'MODEL_TIMEOUT',
        `The model server at ${endpoint.baseUrl} did not start answering within ${seconds(waitedMs)} (the response timeout, arbor.model.openaiCompatible.responseTimeoutSeconds).`,
        { baseUrl: endpoint.baseUrl, model: endpoint.model, timeoutMs: waitedMs },
      ),
    };
  }
}

/** The body as text, up to `maxBytes`; the rest is not read. */
async function readText(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    // Only lets the connection go: the body read so far is the answer.
    void reader.cancel().catch(() => undefined);
  }
  return text;
}

function size(n: number, unit: 'bytes' | 'characters'): string {
  const mi = 1024 * 1024;
  if (n >= mi && n % (mi / 8) === 0) return `${n / mi} Mi ${unit}`;
  if (n >= 1024 && n % 128 === 0) return `${n / 1024} Ki ${unit}`;
  return `${n} ${unit}`;
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${+(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}

function truncated(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
