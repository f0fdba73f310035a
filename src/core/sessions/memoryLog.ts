import { anchorShape, STAND_IN } from '../shapeAnchor';
import type { SessionEvent, SessionHeader, SessionLog, SessionLogFactory } from './types';

/**
 * A session log that lives only as long as the process: the default, and the unit-test double.
 * There is nothing to write; a flush (an agent's turn end) keeps a short log at its size, since
 * an array grown by push keeps room for 17 events, most of what a short log is.
 */
export class MemorySessionLog implements SessionLog {
  private list: SessionEvent[] = [];
  constructor(readonly header: SessionHeader) {}
  get events(): readonly SessionEvent[] {
    return this.list;
  }
  append(event: SessionEvent): void {
    this.list.push(event);
  }
  flush(): Promise<void> {
    if (this.list.length <= SHORT_LOG) this.list = this.list.slice();
    return Promise.resolve();
  }
}

/** An in-memory log's shape outlives the last agent that had one (shapeAnchor.ts). */
anchorShape(new MemorySessionLog(STAND_IN));

export const memorySessionLogs: SessionLogFactory = { create: (header) => new MemorySessionLog(header) };

/** Logs up to this long are kept at their size at a flush. */
const SHORT_LOG = 16;
