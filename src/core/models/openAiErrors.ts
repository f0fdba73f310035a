import OpenAI from 'openai';
import { ArborError } from '../errors';
import { retryAfterMsOf } from './modelRetry';

/** What a failed request means for the caller: the typed error, and whether to try again. */
export interface ClassifiedModelError {
  error: ArborError;
  retryable: boolean;
  retryAfterMs?: number;
}

export interface ModelEndpoint {
  baseUrl: string;
  model: string;
  /** Only to redact it from server messages that echo it; never put into an error. */
  apiKey?: string;
}

const MAX_SERVER_MESSAGE = 500;

/**
 * Maps a failure of the openai SDK (or of the connection under it) to an ArborError with a
 * stable code and a message that says what to do. The API key never appears in it.
 */
export function classifyModelError(e: unknown, endpoint: ModelEndpoint): ClassifiedModelError {
  const where = endpoint.baseUrl;
  const details = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ baseUrl: where, model: endpoint.model, ...extra });

  if (e instanceof OpenAI.APIConnectionTimeoutError) {
    return { retryable: true, error: new ArborError('MODEL_UNAVAILABLE', `The model server at ${where} did not answer in time.`, details()) };
  }
  if (e instanceof OpenAI.APIConnectionError) {
    const cause = causeText(e);
    return {
      retryable: true,
      error: new ArborError('MODEL_UNAVAILABLE', `Could not connect to the model server at ${where}${cause ? ` (${cause})` : ''}: is it running, and is the base URL right?`, details()),
    };
  }
  if (e instanceof OpenAI.APIError && typeof e.status === 'number') {
    const status = e.status;
    const serverMessage = redact(serverMessageOf(e), endpoint.apiKey);
    const extra = details({ status, ...(e.requestID ? { requestId: e.requestID } : {}) });
    if (status === 401 || status === 403) {
      return {
        retryable: false,
        error: new ArborError('MODEL_AUTH', `The model server refused the request (HTTP ${status}): check the API key for ${where}; set it with the 'Arbor: Set API Key' command.`, extra),
      };
    }
    if (status === 400 || status === 404 || status === 422) {
      const hint = status === 404 ? ` Check the base URL and that the model '${endpoint.model}' exists on the server.` : '';
      return {
        retryable: false,
        error: new ArborError('MODEL_BAD_REQUEST', `The model server rejected the request (HTTP ${status}): ${serverMessage}.${hint}`, extra),
      };
    }
    const shouldRetryHeader = e.headers?.get('x-should-retry');
    const transient = status === 408 || status === 409 || status === 429 || status >= 500;
    const retryable = shouldRetryHeader === 'true' || (shouldRetryHeader !== 'false' && transient);
    const retryAfterMs = retryAfterMsOf(e.headers ?? undefined);
    const message =
      status === 429
        ? `The model server at ${where} is rate limiting requests (HTTP 429): ${serverMessage}. Wait a moment and try again.`
        : `The model server at ${where} failed (HTTP ${status}): ${serverMessage}.`;
    const code = transient ? 'MODEL_UNAVAILABLE' : 'MODEL_ERROR';
    return { retryable, error: new ArborError(code, message, extra), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
  if (e instanceof OpenAI.APIError) {
    // An error the server sent inside the event stream, after the response started.
    return { retryable: false, error: new ArborError('MODEL_ERROR', `The model server at ${where} reported an error mid-response: ${redact(serverMessageOf(e), endpoint.apiKey)}.`, details()) };
  }
  if (e instanceof TypeError && /terminated|socket|closed/i.test(`${e.message} ${causeText(e)}`)) {
    return { retryable: false, error: new ArborError('MODEL_UNAVAILABLE', `The connection to the model server at ${where} closed in the middle of the response.`, details()) };
  }
  const text = e instanceof Error ? e.message : String(e);
  return { retryable: false, error: new ArborError('MODEL_ERROR', `The model request to ${where} failed: ${redact(truncate(text), endpoint.apiKey)}.`, details()) };
}

function serverMessageOf(e: InstanceType<typeof OpenAI.APIError>): string {
  const body = e.error as { message?: unknown } | undefined;
  if (body && typeof body.message === 'string' && body.message.trim() !== '') return truncate(body.message.trim());
  // The SDK's own message is "<status> <text>"; drop the status it repeats.
  return truncate(e.message.replace(/^\d{3}\s+/, '').trim() || 'no details');
}

function causeText(e: Error): string {
  const cause = (e as { cause?: unknown }).cause;
  if (!(cause instanceof Error)) return '';
  const code = (cause as NodeJS.ErrnoException).code ?? ((cause as { cause?: { code?: string } }).cause?.code);
  return code ?? cause.message;
}

function truncate(text: string): string {
  return text.length <= MAX_SERVER_MESSAGE ? text : text.slice(0, MAX_SERVER_MESSAGE - 1) + '…';
}

function redact(text: string, secret: string | undefined): string {
  return secret && secret.length >= 4 ? text.split(secret).join('***') : text;
}
