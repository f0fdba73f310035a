import type { SessionEvent, SessionHeader, SessionLog, SessionLogFactory } from './types';

/** A session log that lives only as long as the process: the default, and the unit-test double. */
export class MemorySessionLog implements SessionLog {
  private readonly list: SessionEvent[] = [];
  constructor(readonly header: SessionHeader) {}
  get events(): readonly SessionEvent[] {
    return this.list;
  }
  append(event: SessionEvent): void {
    this.list.push(event);
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
}

export const memorySessionLogs: SessionLogFactory = { create: (header) => new MemorySessionLog(header) };
