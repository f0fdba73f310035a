import type { SessionEvent, SessionLog } from './types';

/**
 * A session log that reports each append, so every event an agent writes (tools included,
 * through `ctx.agent.log`) reaches the views. It adds nothing to the log itself.
 */
export class ObservedLog implements SessionLog {
  constructor(
    readonly inner: SessionLog,
    private readonly appended: (event: SessionEvent) => void,
  ) {}
  get header(): SessionLog['header'] {
    return this.inner.header;
  }
  get events(): readonly SessionEvent[] {
    return this.inner.events;
  }
  append(event: SessionEvent): void {
    this.inner.append(event);
    this.appended(event);
  }
  flush(): Promise<void> {
    return this.inner.flush();
  }
}

/** The underlying log of a (possibly observed) log, for reuse by a resumed agent. */
export function unwrapLog(log: SessionLog): SessionLog {
  return log instanceof ObservedLog ? log.inner : log;
}
