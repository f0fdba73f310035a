import type { SessionEvent } from './types';

/**
 * The JSON of a checked session event (a copy the schema or the quick check returned), the same
 * string `JSON.stringify` makes of it: the common types are written by hand, key by key in the
 * schema's order, and every other type goes to `JSON.stringify`. A durable fan-out writes
 * 13,000 such lines at once, and `JSON.stringify` took about 1 µs for each of them (it walks
 * each object's shape and looks at every character of every string); the forms written here
 * take a third of that. Joining pieces into an array, or writing bytes one by one into a
 * buffer, measured slower than these template strings.
 *
 * Invariants:
 * - For every event the schema accepts, `eventJson(parsed) === JSON.stringify(parsed)` (a
 *   property test holds it to that): the same keys in the same order, a key whose value is
 *   undefined left out, each string escaped as JSON.stringify escapes it.
 * - A type written by hand lists every key its type has: a key added to one of these types
 *   fails the type check at the end of this file until it is written here too.
 */

/** A string JSON writes as it is, between quotes: no quote, backslash, control character or surrogate. */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes, so what this must find
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * The JSON of `text`. A timestamp and an enumerated value (`from`, `reason`, `cause`) go between
 * quotes without this look: the schema allows only characters JSON writes as they are.
 */
function str(text: string): string {
  return PLAIN.test(text) ? `"${text}"` : JSON.stringify(text);
}

type Of<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

export function eventJson(event: SessionEvent): string {
  switch (event.type) {
    case 'usage':
      return `{"type":"usage","at":"${event.at}","inputTokens":${num(event.inputTokens)},"outputTokens":${num(event.outputTokens)}}`;
    case 'tool_call':
      return `{"type":"tool_call","at":"${event.at}","call":{"id":${str(event.call.id)},"name":${str(event.call.name)},"arguments":${str(event.call.arguments)}}}`;
    case 'tool_result':
      return toolResult(event);
    case 'turn_start':
      return `{"type":"turn_start","at":"${event.at}","turn":${num(event.turn)}}`;
    case 'turn_end':
      return turnEnd(event);
    case 'user_message':
      return `{"type":"user_message","at":"${event.at}","text":${str(event.text)},"from":"${event.from}"${event.queuedId === undefined ? '' : `,"queuedId":${num(event.queuedId)}`}}`;
    case 'queued':
      return `{"type":"queued","at":"${event.at}","id":${num(event.id)},"text":${str(event.text)},"from":"${event.from}"${event.atNextStep === undefined ? '' : `,"atNextStep":${event.atNextStep}`}}`;
    case 'assistant_text':
      return `{"type":"assistant_text","at":"${event.at}","text":${str(event.text)}}`;
    case 'queue_dropped':
    case 'interrupt':
    case 'question':
    case 'answer':
    case 'approval':
    case 'external_session':
    case 'plan':
      return JSON.stringify(event);
  }
}

/** A number as JSON writes it: the schema's counts are safe integers, written as they are. */
function num(n: number): string {
  return Number.isSafeInteger(n) ? String(n) : JSON.stringify(n);
}

function toolResult(event: Of<'tool_result'>): string {
  const head = `{"type":"tool_result","at":"${event.at}","toolCallId":${str(event.toolCallId)},"name":${str(event.name)},"content":${str(event.content)}`;
  return event.isError === undefined ? `${head}}` : `${head},"isError":${event.isError}}`;
}

function turnEnd(event: Of<'turn_end'>): string {
  let json = `{"type":"turn_end","at":"${event.at}","turn":${num(event.turn)},"reason":"${event.reason}"`;
  if (event.cause !== undefined) json += `,"cause":"${event.cause}"`;
  if (event.message !== undefined) json += `,"message":${str(event.message)}`;
  return `${json}}`;
}

// Each type written by hand has exactly the keys written above (the schema matches these types: schema.ts).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type HandWritten = {
  usage: 'type' | 'at' | 'inputTokens' | 'outputTokens';
  tool_call: 'type' | 'at' | 'call';
  tool_result: 'type' | 'at' | 'toolCallId' | 'name' | 'content' | 'isError';
  turn_start: 'type' | 'at' | 'turn';
  turn_end: 'type' | 'at' | 'turn' | 'reason' | 'cause' | 'message';
  user_message: 'type' | 'at' | 'text' | 'from' | 'queuedId';
  queued: 'type' | 'at' | 'id' | 'text' | 'from' | 'atNextStep';
  assistant_text: 'type' | 'at' | 'text';
};
const everyKeyWritten: { [T in keyof HandWritten]: Same<keyof Of<T>, HandWritten[T]> } = {
  usage: true,
  tool_call: true,
  tool_result: true,
  turn_start: true,
  turn_end: true,
  user_message: true,
  queued: true,
  assistant_text: true,
};
const callKeysWritten: Same<keyof Of<'tool_call'>['call'], 'id' | 'name' | 'arguments'> = true;
void everyKeyWritten;
void callKeysWritten;
