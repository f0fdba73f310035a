import { ArborError, errnoOf, messageOf } from '../errors';
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

/** A response the server answered with a status other than 2xx, its body read up to a bound. */
export interface HttpFailure {
  status: number;
  headers: { get(name: string): string | null };
  body: string;
}

const MAX_SERVER_MESSAGE = 500;

/**
 * Maps a non-2xx answer to an ArborError with a stable code and a message that says what to
 * do. The API key never appears in it.
 */
export function classifyHttpFailure(failure: HttpFailure, endpoint: ModelEndpoint): ClassifiedModelError {
  const where = endpoint.baseUrl;
  const { status, headers } = failure;
  const serverMessage = redact(serverMessageOf(failure.body, status), endpoint.apiKey);
  const requestId = headers.get('x-request-id');
  const details = { baseUrl: where, model: endpoint.model, status, ...(requestId ? { requestId } : {}) };
  if (status === 401 || status === 403) {
    return {
      retryable: false,
      error: new ArborError('MODEL_AUTH', `The model server refused the request (HTTP ${status}): check the API key for ${where}; set it with the 'Arbor: Set API Key' command.`, details),
    };
  }
  if (status === 400 || status === 404 || status === 422) {
    const hint = status === 404 ? ` Check the base URL and that the model '${endpoint.model}' exists on the server.` : '';
    return {
      retryable: false,
      error: new ArborError('MODEL_BAD_REQUEST', `The model server rejected the request (HTTP ${status}): ${serverMessage}.${hint}`, details),
    };
  }
  const shouldRetryHeader = headers.get('x-should-retry');
  const transient = status === 408 || status === 409 || status === 429 || status >= 500;
  const retryable = shouldRetryHeader === 'true' || (shouldRetryHeader !== 'false' && transient);
  const retryAfterMs = retryAfterMsOf(headers);
  const message =
    status === 429
      ? `The model server at ${where} is rate limiting requests (HTTP 429): ${serverMessage}. Wait a moment and try again.`
      : `The model server at ${where} failed (HTTP ${status}): ${serverMessage}.`;
  const code = transient ? 'MODEL_UNAVAILABLE' : 'MODEL_ERROR';
  return { retryable, error: new ArborError(code, message, details), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/** Maps a failure of the connection (fetch rejected, or the body stream broke) to an ArborError. */
export function classifyConnectionError(e: unknown, endpoint: ModelEndpoint, midResponse: boolean): ClassifiedModelError {
  const where = endpoint.baseUrl;
  const details = { baseUrl: where, model: endpoint.model };
  if (e instanceof ArborError) return { retryable: false, error: e };
  const cause = e instanceof Error ? causeText(e) : '';
  if (midResponse) {
    return {
      retryable: false,
      error: new ArborError('MODEL_UNAVAILABLE', `The connection to the model server at ${where} closed in the middle of the response${cause ? ` (${cause})` : ''}.`, details),
    };
  }
  if (e instanceof TypeError) {
    return {
      retryable: true,
      error: new ArborError('MODEL_UNAVAILABLE', `Could not connect to the model server at ${where}${cause ? ` (${cause})` : ''}: is it running, and is the base URL right?`, details),
    };
  }
  const text = messageOf(e);
  return { retryable: false, error: new ArborError('MODEL_ERROR', `The model request to ${where} failed: ${redact(truncate(text), endpoint.apiKey)}.`, details) };
}

/** An error the server sent inside the event stream, after the response started. */
export function streamedError(value: unknown, endpoint: ModelEndpoint): ArborError {
  const message = messageIn(value) ?? 'no details';
  return new ArborError('MODEL_ERROR', `The model server at ${endpoint.baseUrl} reported an error mid-response: ${redact(truncate(message), endpoint.apiKey)}.`, {
    baseUrl: endpoint.baseUrl,
    model: endpoint.model,
  });
}

function serverMessageOf(body: string, status: number): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON: the body's own text is used below.
    parsed = undefined;
  }
  const fromJson = messageIn(parsed);
  if (fromJson) return truncate(fromJson);
  const text = body.trim();
  return text !== '' && !text.startsWith('<') ? truncate(text) : `status ${status}, no details`;
}

/** `{ error: { message } }`, `{ error: "..." }` or `{ message }`: the shapes servers use. */
function messageIn(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { error?: unknown; message?: unknown };
  if (typeof v.error === 'string' && v.error.trim() !== '') return v.error.trim();
  if (typeof v.error === 'object' && v.error !== null) {
    const inner = (v.error as { message?: unknown }).message;
    if (typeof inner === 'string' && inner.trim() !== '') return inner.trim();
  }
  if (typeof v.message === 'string' && v.message.trim() !== '') return v.message.trim();
  return undefined;
}

function causeText(e: Error): string {
  const cause = (e as { cause?: unknown }).cause;
  if (!(cause instanceof Error)) return '';
  const code = errnoOf(cause) ?? (cause as { cause?: { code?: string } }).cause?.code;
  return code ?? cause.message;
}

function truncate(text: string): string {
  return text.length <= MAX_SERVER_MESSAGE ? text : text.slice(0, MAX_SERVER_MESSAGE - 1) + '…';
}

export function redact(text: string, secret: string | undefined): string {
  return secret && secret.length >= 4 ? text.split(secret).join('***') : text;
}
