import type { ChatMessage } from '../models/types';
import type { TurnEnd } from './turnLoop';

/** What reading a restored agent's log gives back: its conversation, and what the record could not hold. */
export interface ReadPast {
  readonly conversation: ChatMessage[];
  /** Queued ids the record named that the log no longer has: they leave the queue. */
  readonly unread: ReadonlySet<number>;
  readonly lastTurnEnd?: TurnEnd;
}

/**
 * A restored agent's past that is still on disk (restore/deferredLog.ts): the tree was built
 * from its live-state record, and its log is read when the agent needs it, before its next turn
 * or when its conversation is opened. `load` reads it once; a failed read may be tried again.
 */
export interface DeferredPast {
  load(): Promise<ReadPast>;
}
