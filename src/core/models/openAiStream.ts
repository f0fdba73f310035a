/**
 * Reading one streamed chat completion (part of the OpenAI-compatible provider, openAiCompatible.ts):
 * server-sent events parsed into chunks, tool calls assembled, under an idle timer pushed back by
 * each event and caps on the whole response and on one line or event, so that a server that
 * stalls or streams without end ends the turn with a typed error instead of holding it.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import * as z from 'zod';
import { ArborError } from '../errors';
import { once } from '../once';
import { classifyConnectionError, redact, streamedError, type ModelEndpoint } from './openAiErrors';
import { SseLineMeter } from './sseLineMeter';
import { ToolCallAssembler } from './toolCallAssembler';
import type { ModelChunk } from './types';

/** What one response may take: its idle timeout and its caps (see DEFAULT_OPENAI_CAPS). */
export interface StreamLimits {
  idleTimeoutMs: number;
  maxResponseBytes: number;
  maxEventChars: number;
}

/** One streamed chunk of a chat completion, as far as Arbor reads it; anything else is ignored. */
const wireChunkSchema = once(() => z.object({
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

/**
 * Parses a response's event stream into chunks, under `limits`: one timer for the whole response
 * (pushed back by each event) ends a stalled stream, and the byte and event caps end an endless
 * one, each with its own error; the reader is let go however the stream ends.
 */
export async function* readEventStream(response: Response, endpoint: ModelEndpoint, signal: AbortSignal, limits: StreamLimits): AsyncGenerator<ModelChunk> {
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
  const lines = new SseLineMeter(limits.maxEventChars);
  const parser = createParser({
    onEvent: (event) => {
      if (event.data.length > limits.maxEventChars) oversized = true;
      else events.push(event);
    },
    onComment: () => comments++,
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') oversized = true;
    },
    maxBufferSize: limits.maxEventChars,
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
  }, limits.idleTimeoutMs);
  const idleError = (): ArborError => {
    const quiet = seconds(limits.idleTimeoutMs);
    const what =
      eventsSeen === 0
        ? comments > 0
          ? `sent only keep-alive comments for ${quiet} after its response headers`
          : `sent its response headers, then nothing for ${quiet}`
        : `stopped sending in the middle of the response: ${comments > 0 ? 'only keep-alive comments' : 'nothing'} for ${quiet}`;
    return new ArborError('MODEL_TIMEOUT', `The model server at ${endpoint.baseUrl} ${what} (the idle timeout, arbor.model.openaiCompatible.idleTimeoutSeconds).`, {
      baseUrl: endpoint.baseUrl,
      model: endpoint.model,
      idleTimeoutMs: limits.idleTimeoutMs,
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
      if (received > limits.maxResponseBytes) throw tooLarge('a response', size(limits.maxResponseBytes, 'bytes'));
      const text = decoder.decode(part.value, { stream: true });
      if (!lines.fits(text)) oversized = true;
      else parser.feed(text);
      if (oversized) throw tooLarge('one line or event', size(limits.maxEventChars, 'characters'));
      if (events.length > 0) {
        eventsSeen += events.length;
        watchdog.refresh();
      }
      for (const event of events) {
        if (event.data === '[DONE]') {
          sawDone = true;
          break;
        }
        const chunk = parseEvent(event, endpoint);
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

function parseEvent(event: EventSourceMessage, endpoint: ModelEndpoint): z.output<ReturnType<typeof wireChunkSchema>> {
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
  const parsed = wireChunkSchema().safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ArborError(
    'MODEL_BAD_OUTPUT',
    `The model server at ${endpoint.baseUrl} sent a malformed chunk: '${issue?.path.join('.') ?? ''}' is invalid (${issue?.message ?? 'unknown problem'}).`,
    { baseUrl: endpoint.baseUrl, model: endpoint.model, field: issue?.path.join('.') },
  );
}

function size(n: number, unit: 'bytes' | 'characters'): string {
  const mi = 1024 * 1024;
  if (n >= mi && n % (mi / 8) === 0) return `${n / mi} Mi ${unit}`;
  if (n >= 1024 && n % 128 === 0) return `${n / 1024} Ki ${unit}`;
  return `${n} ${unit}`;
}

export function seconds(ms: number): string {
  return ms >= 1000 ? `${+(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}

export function truncated(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
