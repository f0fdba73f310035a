/**
 * What a user sets for the OpenAI-compatible provider, read where the settings are read (the
 * model commands, the model choice); the provider itself (openAiCompatible.ts) is a part loaded
 * when that model is first chosen.
 */
import * as z from 'zod';
import { ArborError } from '../errors';
import { once } from '../once';
import type { RetryPolicy } from './modelRetry';

/**
 * The settings a user gives for an OpenAI-compatible endpoint (Ollama, LM Studio, vLLM,
 * OpenAI, ...). `baseUrl` is the API root that `/chat/completions` is appended to, such as
 * `http://localhost:11434/v1`.
 */
export const openAiCompatibleSettingsSchema = once(() => z.object({
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'The base URL must be an http:// or https:// URL, such as http://localhost:11434/v1.' })
    .transform((url) => url.replace(/\/+$/, '')),
  model: z.string().trim().min(1, 'Name the model to use, such as llama3.1 or gpt-4o-mini.'),
  /** Shown in the model picker; defaults to "<model> (<host>)". */
  label: z.string().trim().min(1).optional(),
}));

export type OpenAiCompatibleSettings = z.output<ReturnType<typeof openAiCompatibleSettingsSchema>>;
export type OpenAiCompatibleSettingsInput = z.input<ReturnType<typeof openAiCompatibleSettingsSchema>>;

/** Validates settings from configuration; INPUT_INVALID says which setting is wrong. */
export function parseOpenAiCompatibleSettings(input: unknown): OpenAiCompatibleSettings {
  const parsed = openAiCompatibleSettingsSchema().safeParse(input);
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
