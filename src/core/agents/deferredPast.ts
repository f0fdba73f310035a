import type { ChatMessage } from '../models/types';
import type { TurnEnd } from './turnLoop';

/** What a restored agent's past is read into: its turns (agentTurns.ts). */
export interface PastTarget<A> {
  messages: ChatMessage[];
  readonly running: unknown;
  readonly agent: A & { lastTurnEnd: TurnEnd | undefined };
  readonly host: { agentChanged(agent: A, change: { readonly type: 'status' }): void };
}

/**
 * The log of a restored agent whose past is still on disk (restore/deferredLog.ts): the tree was
 * built from its live-state record, and the log is read when the agent needs it, before its next
 * turn or when its conversation is opened. `readInto` reads it once into the agent's turns (its
 * conversation, its queued messages' texts, its last turn end) and resolves when that is done;
 * it returns undefined once the log is read. A read that fails rejects, and may be tried again.
 */
export interface DeferredPast {
  readInto<A>(turns: PastTarget<A>): Promise<void> | undefined;
}
