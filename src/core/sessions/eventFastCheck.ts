import { isLatestIsoNow } from '../clock';
import { isoTimestamp } from './schema';
import type { SessionEvent } from './types';

/**
 * A quicker check of the session events agents append most, in front of `sessionEventSchema`.
 * It accepts an event only when it is a plain object of one of the common types whose every
 * key is one the schema knows and every value is exactly what the schema requires, and then
 * returns the same copy the schema would (same keys, same order). Anything else (an unknown
 * key, a class instance, a wrong value, a rarer event type) returns undefined, and the writer
 * asks the schema, which decides and words the error. It never accepts what the schema
 * rejects; a property test holds it to that.
 */

type Kind = 'string' | 'count' | 'boolean' | 'iso' | 'counts' | 'toolCall' | ReadonlySet<string>;

interface Field {
  key: string;
  kind: Kind;
  optional: boolean;
}

const FROM = new Set(['user', 'parent', 'child', 'system']);
const REASON = new Set(['completed', 'aborted', 'blocked', 'error', 'budget', 'paused', 'interrupted']);
const CAUSE = new Set(['user', 'parent', 'disposed', 'budget']);
const AUTHORITY = new Set(['user', 'ancestor']);
const DECISION = new Set(['allow-once', 'allow-session', 'allow-branch', 'allow-workspace', 'allow-always', 'allow-rule', 'deny']);
const RULE_SCOPE = new Set(['workspace', 'user', 'setting']);

type Copy = (event: Record<string, unknown>) => SessionEvent | undefined;

function spec(fields: Record<string, Kind | [Kind, 'optional']>, copy?: Copy): { fields: Field[]; keys: Set<string>; copy?: Copy } {
  const list: Field[] = [];
  for (const [key, kind] of Object.entries(fields)) {
    list.push(Array.isArray(kind) ? { key, kind: kind[0], optional: true } : { key, kind, optional: false });
  }
  return { fields: list, keys: new Set(['type', ...Object.keys(fields)]), copy };
}

/** The fields of each type after `type`, in the schema's order. */
const SPECS = new Map<string, { fields: Field[]; keys: Set<string>; copy?: Copy }>([
  ['user_message', spec({ at: 'iso', text: 'string', from: FROM, queuedId: ['count', 'optional'] }, userMessage)],
  ['queued', spec({ at: 'iso', id: 'count', text: 'string', from: FROM, atNextStep: ['boolean', 'optional'] }, queued)],
  ['queue_dropped', spec({ at: 'iso', ids: 'counts' })],
  ['assistant_text', spec({ at: 'iso', text: 'string' }, assistantText)],
  ['tool_call', spec({ at: 'iso', call: 'toolCall' }, toolCall)],
  ['tool_result', spec({ at: 'iso', toolCallId: 'string', name: 'string', content: 'string', isError: ['boolean', 'optional'] }, toolResult)],
  ['turn_start', spec({ at: 'iso', turn: 'count' }, turnStart)],
  ['turn_end', spec({ at: 'iso', turn: 'count', reason: REASON, cause: [CAUSE, 'optional'], message: ['string', 'optional'] }, turnEnd)],
  ['interrupt', spec({ at: 'iso', authority: AUTHORITY, by: ['string', 'optional'] })],
  [
    'approval',
    spec({
      at: 'iso',
      action: 'string',
      detail: ['string', 'optional'],
      decision: DECISION,
      reason: 'string',
      rule: ['string', 'optional'],
      ruleScope: [RULE_SCOPE, 'optional'],
    }),
  ],
  ['usage', spec({ at: 'iso', inputTokens: 'count', outputTokens: 'count' }, usage)],
]);

const TOOL_CALL_KEYS = new Set(['id', 'name', 'arguments']);
/** Do not accept a value: the schema decides. */
const NO = Symbol('no');

/** Timestamps come in runs of the same string (one per millisecond): the last one accepted. */
let lastIso = '';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Whether every enumerable key of `value` is one of `keys`. */
function onlyKeys(value: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const key in value) if (!keys.has(key)) return false;
  return true;
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function checked(kind: Kind, value: unknown): unknown {
  if (typeof kind !== 'string') return typeof value === 'string' && kind.has(value) ? value : NO;
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? value : NO;
    case 'count':
      return isCount(value) ? value : NO;
    case 'boolean':
      return typeof value === 'boolean' ? value : NO;
    case 'iso':
      if (typeof value !== 'string') return NO;
      if (value === lastIso) return value;
      // The clock's own latest string is well formed; any other is parsed by the schema.
      if (!isLatestIsoNow(value) && !isoTimestamp().safeParse(value).success) return NO;
      lastIso = value;
      return value;
    case 'counts': {
      if (!Array.isArray(value)) return NO;
      const out: number[] = [];
      for (let i = 0; i < value.length; i++) {
        const n: unknown = value[i];
        if (!isCount(n)) return NO;
        out.push(n as number);
      }
      return out;
    }
    case 'toolCall': {
      if (!isPlainObject(value) || !onlyKeys(value, TOOL_CALL_KEYS)) return NO;
      const { id, name, arguments: args } = value;
      if (typeof id !== 'string' || typeof name !== 'string' || typeof args !== 'string') return NO;
      return { id, name, arguments: args };
    }
  }
}

/**
 * The copy `sessionEventSchema.parse(event)` would return, when the quick check can tell the
 * event is valid; undefined when the schema must decide.
 */
export function fastCheckedEvent(event: unknown): SessionEvent | undefined {
  if (!isPlainObject(event)) return undefined;
  const type = event.type;
  if (typeof type !== 'string') return undefined;
  const s = SPECS.get(type);
  if (!s || !onlyKeys(event, s.keys)) return undefined;
  // The events of every turn are each checked and copied by a function of its own: one object
  // literal of a fixed shape each, where the field list builds each copy key by key (a large
  // fan-out appends 13,000 of them in one burst).
  return s.copy ? s.copy(event) : byFields(event, type, s.fields);
}

/** The rarer types: checked and copied field by field, as each is listed in SPECS. */
function byFields(event: Record<string, unknown>, type: string, fields: readonly Field[]): SessionEvent | undefined {
  const out: Record<string, unknown> = { type };
  for (const field of fields) {
    const value = event[field.key];
    if (value === undefined) {
      if (!field.optional) return undefined;
      // The schema keeps a key given as undefined, and adds none that was absent.
      if (field.key in event) out[field.key] = undefined;
      continue;
    }
    const ok = checked(field.kind, value);
    if (ok === NO) return undefined;
    out[field.key] = ok;
  }
  return out as SessionEvent;
}

function iso(value: unknown): string | typeof NO {
  return checked('iso', value) as string | typeof NO;
}

/** An optional value's check: absent or undefined passes (the copy then has it only if the event had the key). */
const optionalOk = (value: unknown, ok: boolean): boolean => value === undefined || ok;

function usage(e: Record<string, unknown>): SessionEvent | undefined {
  const at = iso(e.at);
  const { inputTokens, outputTokens } = e;
  if (at === NO || !isCount(inputTokens) || !isCount(outputTokens)) return undefined;
  return { type: 'usage', at, inputTokens: inputTokens as number, outputTokens: outputTokens as number };
}

function toolCall(e: Record<string, unknown>): SessionEvent | undefined {
  const at = iso(e.at);
  const call = e.call === undefined ? NO : checked('toolCall', e.call);
  if (at === NO || call === NO) return undefined;
  return { type: 'tool_call', at, call: call as { id: string; name: string; arguments: string } };
}

function toolResult(e: Record<string, unknown>): SessionEvent | undefined {
  const at = iso(e.at);
  const { toolCallId, name, content, isError } = e;
  if (at === NO || typeof toolCallId !== 'string' || typeof name !== 'string' || typeof content !== 'string' || !optionalOk(isError, typeof isError === 'boolean')) return undefined;
  const out: SessionEvent = { type: 'tool_result', at, toolCallId, name, content };
  if (isError !== undefined || 'isError' in e) out.isError = isError as boolean | undefined;
  return out;
}

function turnStart(e: Record<string, unknown>): SessionEvent | undefined {
  const at = iso(e.at);
  const { turn } = e;
  if (at === NO || !isCount(turn)) return undefined;
  return { type: 'turn_start', at, turn: turn as number };
}

function userMessage(e: Record<string, unknown>): SessionEvent | undefined {
  const at = iso(e.at);
  const { text, from, queuedId } = e;
  if (at === NO || typeof text !== 'string' || typeof from !== 'string' || !FROM.has(from) || !optionalOk(queuedId, isCount(queuedId))) return undefined;
  const out = { type: 'user_message', at, text, from } as Extract<SessionEvent, { type: 'user_message' }>;
  if (queuedId !== undefined || 'queuedId' in e) out.queuedId = queuedId as number | undefined;
  return out;
}

function queued(e: Record<string, unknown>): SessionEvent | undefined {
  const at = iso(e.at);
  const { id, text, from, atNextStep } = e;
  if (at === NO || !isCount(id) || typeof text !== 'string' || typeof from !== 'string' || !FROM.has(from) || !optionalOk(atNextStep, typeof atNextStep === 'boolean')) return undefined;
  const out = { type: 'queued', at, id, text, from } as Extract<SessionEvent, { type: 'queued' }>;
  if (atNextStep !== undefined || 'atNextStep' in e) out.atNextStep = atNextStep as boolean | undefined;
  return out;
}

function assistantText(e: Record<string, unknown>): SessionEvent | undefined {
  const at = iso(e.at);
  const { text } = e;
  if (at === NO || typeof text !== 'string') return undefined;
  return { type: 'assistant_text', at, text };
}

function turnEnd(e: Record<string, unknown>): SessionEvent | undefined {
  const at = iso(e.at);
  const { turn, reason, cause, message } = e;
  if (at === NO || !isCount(turn) || typeof reason !== 'string' || !REASON.has(reason)) return undefined;
  if (!optionalOk(cause, typeof cause === 'string' && CAUSE.has(cause)) || !optionalOk(message, typeof message === 'string')) return undefined;
  const out = { type: 'turn_end', at, turn, reason } as Extract<SessionEvent, { type: 'turn_end' }>;
  if (cause !== undefined || 'cause' in e) out.cause = cause as Extract<SessionEvent, { type: 'turn_end' }>['cause'];
  if (message !== undefined || 'message' in e) out.message = message as string | undefined;
  return out;
}

const HEADER_KINDS = new Set(['root', 'one-shot', 'continuable']);
const HEADER_MODES = new Set(['interactive', 'scheduled', 'webhook', 'autonomous']);
/** Header keys and what each requires: a non-empty string, any string, or one of a set. */
const HEADER_OPTIONAL: Record<string, 'nonEmpty' | 'string'> = { parentSession: 'nonEmpty', workspace: 'string', resumedFrom: 'nonEmpty', external: 'nonEmpty' };
const HEADER_KEYS = new Set(['type', 'version', 'id', 'createdAt', 'delegationDepth', 'kind', 'label', 'interactionMode', ...Object.keys(HEADER_OPTIONAL)]);

/**
 * Whether `sessionHeaderSchema` accepts `header`, when a quick look can tell (a plain object
 * with only the schema's keys, each exactly as the schema requires, as the runtime makes every
 * header); false when the schema must decide. It never says true of what the schema rejects.
 */
export function isValidHeaderAtAGlance(header: unknown): boolean {
  if (!isPlainObject(header) || !onlyKeys(header, HEADER_KEYS)) return false;
  const { type, version, id, createdAt, delegationDepth, kind, label, interactionMode } = header;
  if (type !== 'header' || !isCount(version) || version === 0 || typeof id !== 'string' || id.length === 0) return false;
  if (checked('iso', createdAt) === NO || !isCount(delegationDepth) || typeof label !== 'string') return false;
  if (typeof kind !== 'string' || !HEADER_KINDS.has(kind) || typeof interactionMode !== 'string' || !HEADER_MODES.has(interactionMode)) return false;
  for (const key in HEADER_OPTIONAL) {
    const value = header[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || (HEADER_OPTIONAL[key] === 'nonEmpty' && value.length === 0)) return false;
  }
  return true;
}
