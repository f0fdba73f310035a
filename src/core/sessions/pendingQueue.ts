import type { SessionEvent } from './types';

export interface PendingMessage {
  id: number;
  text: string;
  from: 'user' | 'parent' | 'child' | 'system';
  atNextStep: boolean;
}

/**
 * The messages a session had queued but no turn had claimed when its log ended, in arrival
 * order, and the last queue id used. A reopened agent gets them back (parked), so a reload or a
 * crash loses no queued work; messages dropped on purpose stay dropped.
 */
export function pendingQueueFromEvents(events: readonly SessionEvent[]): { pending: PendingMessage[]; lastId: number } {
  const pending = new Map<number, PendingMessage>();
  let lastId = 0;
  for (const event of events) {
    if (event.type === 'queued') {
      pending.set(event.id, { id: event.id, text: event.text, from: event.from, atNextStep: event.atNextStep === true });
      lastId = Math.max(lastId, event.id);
    } else if (event.type === 'user_message' && event.queuedId !== undefined) {
      pending.delete(event.queuedId);
    } else if (event.type === 'queue_dropped') {
      for (const id of event.ids) pending.delete(id);
    }
  }
  return { pending: [...pending.values()], lastId };
}
