/**
 * Sending one chat completion request (part of the OpenAI-compatible provider,
 * openAiCompatible.ts): until a response starts, with retries and backoff within the retry
 * deadline; each failure before any output is classified (openAiErrors.ts) as retryable or not.
 */
import { ArborError } from '../errors';
import { retryDelayMs, sleep, type RetryPolicy } from './modelRetry';
import { classifyConnectionError, classifyHttpFailure, type ClassifiedModelError, type ModelEndpoint } from './openAiErrors';
import { seconds } from './openAiStream';

/** Sent when no key is set: local servers ignore it, hosted ones answer 401 (MODEL_AUTH). */
const NO_KEY = 'no-api-key-set';
/** Error bodies are read up to this size: enough for any server's message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Where a request goes and how long it may take (see OpenAiCompatibleOptions). */
export interface RequestConfig {
  baseUrl: string;
  model: string;
  apiKey: () => string | undefined | Promise<string | undefined>;
  retry: RetryPolicy;
  timeoutMs: number;
  retryTimeoutMs: number;
}

/** A response that started (2xx); `release` ends its connection. */
export interface OpenedStream {
  response: Response;
  endpoint: ModelEndpoint;
  release: () => void;
}

/**
 * Sends the request until a 2xx response arrives, retrying failures that happen before any
 * output, with backoff, within the retry deadline. Each attempt has its own timer and abort
 * link, both undone before the next attempt or the return, so every path settles once.
 */
export async function openStream(body: string, signal: AbortSignal, config: RequestConfig): Promise<OpenedStream> {
  const started = Date.now();
  const deadline = started + config.retryTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    let endpoint: ModelEndpoint = { baseUrl: config.baseUrl, model: config.model };
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    // Each attempt waits at most the response timeout, and never past the retry deadline.
    const wait = Math.max(0, Math.min(config.timeoutMs, deadline - Date.now()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, wait);
    let failure: ClassifiedModelError;
    try {
      const key = (await config.apiKey()) || undefined;
      endpoint = { ...endpoint, apiKey: key };
      signal.throwIfAborted();
      const response = await fetch(`${config.baseUrl}/chat/completions`, {
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
      failure = timedOut ? timeoutFailure(endpoint, wait) : classifyConnectionError(e, endpoint, false);
    } finally {
      clearTimeout(timer);
    }
    signal.removeEventListener('abort', onAbort);
    controller.abort();
    const attempts = attempt + 1;
    const delay = failure.retryable ? Math.min(retryDelayMs(config.retry, attempt, failure.retryAfterMs), config.retry.maxRetryAfterMs) : 0;
    const tooLong = failure.retryAfterMs !== undefined && failure.retryAfterMs > config.retry.maxRetryAfterMs;
    const outOfTime = Date.now() + delay >= deadline;
    if (!failure.retryable || tooLong || attempt >= config.retry.maxRetries || outOfTime) {
      if (attempts === 1) throw failure.error;
      const note = outOfTime && failure.retryable && !tooLong ? ` Gave up after ${attempts} attempts in ${seconds(Date.now() - started)} (the retry timeout, arbor.model.openaiCompatible.retryTimeoutSeconds).` : '';
      throw new ArborError(failure.error.code, failure.error.message + note, { ...failure.error.details, attempts });
    }
    await sleep(delay, signal);
  }
}

function timeoutFailure(endpoint: ModelEndpoint, waitedMs: number): ClassifiedModelError {
  return {
    retryable: true,
    error: new ArborError(
      'MODEL_TIMEOUT',
      `The model server at ${endpoint.baseUrl} did not start answering within ${seconds(waitedMs)} (the response timeout, arbor.model.openaiCompatible.responseTimeoutSeconds).`,
      { baseUrl: endpoint.baseUrl, model: endpoint.model, timeoutMs: waitedMs },
    ),
  };
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
