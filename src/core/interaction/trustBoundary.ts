import * as z from 'zod';
import { ArborError } from '../errors';
import { once } from '../once';
import type { InteractionMode } from '../sessions/types';
import { resolveInteractionPolicy, type RunContext } from './policy';

/**
 * The run-context keys only Arbor itself may set. A public caller that could set them would
 * disable clarification, impersonate the GitHub channel, or turn a scheduled run back into an
 * interactive one. The snake_case spellings are refused as well, so a caller cannot hope that
 * some layer maps them.
 */
export const INTERNAL_RUN_KEYS = Object.freeze(['interactionMode', 'nonInteractive', 'disableClarification', 'channelName'] as const);
export type InternalRunKey = (typeof INTERNAL_RUN_KEYS)[number];

export const INTERNAL_KEY_SPELLINGS: Readonly<Record<string, InternalRunKey>> = Object.freeze({
  interactionMode: 'interactionMode',
  interaction_mode: 'interactionMode',
  nonInteractive: 'nonInteractive',
  non_interactive: 'nonInteractive',
  disableClarification: 'disableClarification',
  disable_clarification: 'disableClarification',
  channelName: 'channelName',
  channel_name: 'channelName',
});

/** Containers where callers of other systems put run context; searched for internal keys too. */
const CONTEXT_CONTAINERS = ['context', 'runContext', 'configurable', 'config', 'options'] as const;

export const MAX_PUBLIC_PROMPT_LENGTH = 100_000;
export const MAX_PUBLIC_LABEL_LENGTH = 200;

/**
 * What a public caller may ask for. Only these keys survive parsing; everything else, the
 * internal keys included, is dropped, so nothing a public caller sends reaches a RunContext.
 */
export const publicRunRequestSchema = once(() => z.object({
  prompt: z.string().min(1).max(MAX_PUBLIC_PROMPT_LENGTH).regex(/\S/, 'must not be blank'),
  label: z.string().min(1).max(MAX_PUBLIC_LABEL_LENGTH).regex(/\S/, 'must not be blank').optional(),
}));

export type PublicRunRequest = z.output<ReturnType<typeof publicRunRequestSchema>>;

/**
 * The public entry points and how each treats internal keys:
 * - `api` (the extension's exported API) and `command` (command arguments from other
 *   extensions) reject: their callers are programs that must learn at once that the key is
 *   not theirs, rather than get a run that behaves differently than they believe.
 * - `webview` rejects: Arbor's own webview never sends these keys, so their presence is a bug
 *   or an injection worth surfacing.
 * - `uri` strips with a warning: links travel through browsers and chats, a link with an extra
 *   parameter should still open the prompt for the human to see, and stripping neutralizes it.
 */
export type PublicEntryPoint = 'api' | 'command' | 'webview' | 'uri';
export const PUBLIC_ENTRY_INTERNAL_KEYS: Readonly<Record<PublicEntryPoint, 'reject' | 'strip'>> = Object.freeze({
  api: 'reject',
  command: 'reject',
  webview: 'reject',
  uri: 'strip',
});

export interface ParseOptions {
  /** Told which internal keys were removed (for the output channel). */
  onStripped?: (keys: readonly InternalRunKey[]) => void;
}

/** Lenient variant: removes internal keys, reports them, and parses the rest. */
export function parsePublicRunRequest(input: unknown, options: ParseOptions = {}): PublicRunRequest {
  const found = findInternalKeys(input);
  if (found.length > 0) options.onStripped?.(found);
  return parseShape(input);
}

/** Strict variant: any internal key rejects the whole request with INTERNAL_KEY_REJECTED. */
export function parsePublicRunRequestStrict(input: unknown): PublicRunRequest {
  const found = findInternalKeys(input);
  if (found.length > 0) {
    throw new ArborError(
      'INTERNAL_KEY_REJECTED',
      `A public run request cannot set ${found.join(', ')}; remove ${found.length === 1 ? 'it' : 'them'} and send the prompt alone.`,
      { keys: found },
    );
  }
  return parseShape(input);
}

/** Parses a request the way its entry point must (see PUBLIC_ENTRY_INTERNAL_KEYS). */
export function parsePublicRunRequestFrom(entry: PublicEntryPoint, input: unknown, options: ParseOptions = {}): PublicRunRequest {
  return PUBLIC_ENTRY_INTERNAL_KEYS[entry] === 'reject' ? parsePublicRunRequestStrict(input) : parsePublicRunRequest(input, options);
}

function parseShape(input: unknown): PublicRunRequest {
  const parsed = publicRunRequestSchema().safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${whereOf(i.path)}: ${i.message}`).join('; ');
    throw new ArborError('INPUT_INVALID', `The run request is invalid (${problems}).`);
  }
  return parsed.data;
}

/** Where a problem of a run request is: one of its fields, or the request as a whole. */
function whereOf(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(request)';
  return path.map(String).join('.');
}

function findInternalKeys(input: unknown): InternalRunKey[] {
  if (!isRecord(input)) return [];
  const found = new Set<InternalRunKey>();
  const scan = (obj: Record<string, unknown>) => {
    for (const key of Object.keys(obj)) {
      const internal = Object.prototype.hasOwnProperty.call(INTERNAL_KEY_SPELLINGS, key) ? INTERNAL_KEY_SPELLINGS[key] : undefined;
      if (internal) found.add(internal);
    }
  };
  scan(input);
  for (const container of CONTEXT_CONTAINERS) {
    const inner = input[container];
    if (isRecord(inner)) scan(inner);
  }
  return INTERNAL_RUN_KEYS.filter((key) => found.has(key));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keys that describe how this process started the run; a resumed run must not inherit them. */
const RUNTIME_ONLY_KEYS = ['nonInteractive', 'disableClarification', 'channelName'] as const;

export type PersistableRunContext<T extends RunContext> = Omit<T, (typeof RUNTIME_ONLY_KEYS)[number] | 'interactionMode'> & {
  interactionMode: InteractionMode;
};

/**
 * What of a run context may be written to session state: the runtime-only hints are dropped
 * and the mode they resolved to is kept as an explicit `interactionMode`, so a scheduled run
 * resumes scheduled rather than falling back to interactive. Throws POLICY_INVALID like
 * resolveInteractionPolicy.
 */
export function persistableRunContext<T extends RunContext>(ctx: T): PersistableRunContext<T> {
  const mode = resolveInteractionPolicy(ctx).mode;
  const copy = { ...ctx } as Record<string, unknown>;
  for (const key of RUNTIME_ONLY_KEYS) delete copy[key];
  copy.interactionMode = mode;
  return copy as PersistableRunContext<T>;
}
