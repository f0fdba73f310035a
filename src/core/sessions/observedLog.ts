import { asArborError, type ArborError } from '../errors';
import type { SessionEvent, SessionLog } from './types';

/**
 * A session log that reports each append, so every event an agent writes (tools included,
 * through `ctx.agent.log`) reaches the views. It adds nothing to the log itself. What hears the
 * appends is a subclass's `appended`, not a closure: one is made per agent, and a closure with
 * its context would cost every agent as much again as the log object.
 */
export abstract class ObservedLog implements SessionLog {
  constructor(readonly inner: SessionLog) {}
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
  whenFlushed(done: (error: ArborError | undefined) => void): void {
    if (this.inner.whenFlushed) this.inner.whenFlushed(done);
    else this.inner.flush().then(() => done(undefined), (e: unknown) => done(asArborError(e, 'SESSION_WRITE_FAILED')));
  }
  protected abstract appended(event: SessionEvent): void;
}

/** The underlying log of a (possibly observed) log, for reuse by a resumed agent. */
export function unwrapLog(log: SessionLog): SessionLog {
  return log instanceof ObservedLog ? log.inner : log;
}
