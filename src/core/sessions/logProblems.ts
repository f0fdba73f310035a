import { ArborError, errnoOf, messageOf } from '../errors';

/**
 * What is wrong with one session log, as its agent shows it: the first event refused (that
 * event is lost for good, so it stays reported), and the last write failure until a write
 * succeeds again, which goes before it. Every problem also reaches the store's `onError`.
 */
export class LogProblems {
  private readonly listeners: ((problem: ArborError | undefined) => void)[] = [];
  private refused: ArborError | undefined;
  private writeFailure: ArborError | undefined;

  constructor(private readonly onError?: (error: ArborError) => void) {}

  /** The problem the owner should see now. */
  get current(): ArborError | undefined {
    return this.writeFailure ?? this.refused;
  }

  /** `listener(undefined)` means the write problem reported before is solved. Returns what stops the reports. */
  listen(listener: (problem: ArborError | undefined) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  refusedEvent(error: ArborError): void {
    this.refused ??= error;
    this.onError?.(error);
    this.notify(error);
  }

  writeFailed(error: ArborError): void {
    this.writeFailure = error;
    this.onError?.(error);
    this.notify(error);
  }

  /** Everything appended is written: a write failure reported before is solved. */
  allWritten(): void {
    if (!this.writeFailure) return;
    this.writeFailure = undefined;
    this.notify(this.refused);
  }

  /** Something the owner should know that is no problem of the log now (a file written again). */
  inform(error: ArborError): void {
    this.onError?.(error);
  }

  private notify(problem: ArborError | undefined): void {
    for (const listener of this.listeners) listener(problem);
  }
}

interface SchemaIssue {
  path: PropertyKey[];
  message: string;
}

export function refusedEventError(id: string, file: string, event: unknown, issue: SchemaIssue | undefined): ArborError {
  const type = typeof event === 'object' && event !== null && typeof (event as { type?: unknown }).type === 'string' ? (event as { type: string }).type : undefined;
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join('.')}` : '';
  return new ArborError(
    'SESSION_EVENT_INVALID',
    `Session ${id}: a ${type ?? 'malformed'} event was not saved because it does not match the session format${where} (${issue?.message ?? 'unknown problem'}). The rest of the session is saved and stays loadable; the transcript lacks this event.`,
    { id, file, eventType: type, path: issue?.path.map(String) },
  );
}

/** A write that failed, with how many lines wait and when they are tried again. */
export function writeFailedError(id: string, file: string, cause: unknown, unsaved: number, closed: boolean): ArborError {
  if (cause instanceof ArborError) return cause;
  const retry = closed
    ? 'Arbor keeps them in memory and tries again every few seconds for a minute, and once more when the window closes'
    : 'Arbor keeps them in memory and tries again at the next write and when the window closes';
  return new ArborError(
    'SESSION_WRITE_FAILED',
    `Could not write session ${id} to ${file}: ${messageOf(cause)}. ${unsaved} line(s) are not saved yet; ${retry}. Check that the disk has free space and the folder is writable.`,
    { id, file, errno: errnoOf(cause) },
  );
}

export function fileRestoredError(id: string, file: string, why: string): ArborError {
  return new ArborError(
    'SESSION_FILE_LOST',
    `The file of session ${id} (${file}) changed under Arbor while its agent ran: ${why}. Arbor wrote it again from the session in memory, so nothing is lost; keep other programs away from the session folder.`,
    { id, file },
  );
}
