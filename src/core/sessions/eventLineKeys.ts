import type { SessionEvent } from './types';

/**
 * The bytes of the keys of the session lines eventLines.ts writes by hand, each with what goes
 * before it, and the check that those types have no key it does not write.
 */

export const encoded = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, 'latin1'));
export const TRUE = encoded('true');
export const FALSE = encoded('false');
export const K = {
  usage: encoded('{"type":"usage","at":'),
  inputTokens: encoded(',"inputTokens":'),
  outputTokens: encoded(',"outputTokens":'),
  toolCall: encoded('{"type":"tool_call","at":'),
  call: encoded(',"call":{"id":'),
  name: encoded(',"name":'),
  arguments: encoded(',"arguments":'),
  toolResult: encoded('{"type":"tool_result","at":'),
  toolCallId: encoded(',"toolCallId":'),
  content: encoded(',"content":'),
  isError: encoded(',"isError":'),
  turnStart: encoded('{"type":"turn_start","at":'),
  turn: encoded(',"turn":'),
  turnEnd: encoded('{"type":"turn_end","at":'),
  reason: encoded(',"reason":'),
  cause: encoded(',"cause":'),
  message: encoded(',"message":'),
  userMessage: encoded('{"type":"user_message","at":'),
  text: encoded(',"text":'),
  from: encoded(',"from":'),
  queuedId: encoded(',"queuedId":'),
  queued: encoded('{"type":"queued","at":'),
  id: encoded(',"id":'),
  atNextStep: encoded(',"atNextStep":'),
  assistantText: encoded('{"type":"assistant_text","at":'),
};

// Each type eventLines.ts writes by hand has exactly the keys above (the schema matches these types: schema.ts).
type Of<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;
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
