import type { FileOverlap } from './writeScope';

/**
 * The overlaps now (see FileOverlap): one ends when a change record it rests on goes (Keep or
 * Undo of either agent's change to the file) or when either agent is no longer live.
 */
export class FileOverlaps {
  private list: FileOverlap[] = [];

  /** `changed` hears the session ids whose overlaps changed. */
  constructor(private readonly changed: (sessionIds: readonly string[]) => void) {}

  add(overlap: FileOverlap): void {
    if (this.list.some((o) => o.path === overlap.path && o.writer === overlap.writer && o.other === overlap.other)) return;
    this.list = [...this.list, overlap];
    this.changed([overlap.writer, overlap.other]);
  }

  /** The overlaps an agent (session id) is in, as writer or as the other. */
  of(sessionId: string): FileOverlap[] {
    return this.list.filter((o) => o.writer === sessionId || o.other === sessionId);
  }

  /** A session's change record changed: overlaps resting on a change of its that is gone end. */
  recordChanged(sessionId: string, held: ReadonlySet<string>): void {
    this.drop((o) => !held.has(o.path) && (o.writer === sessionId || (o.other === sessionId && o.otherHeld === 'changed')));
  }

  /** An agent is no longer live: its overlaps end. */
  agentLeft(sessionId: string): void {
    this.drop((o) => o.writer === sessionId || o.other === sessionId);
  }

  private drop(ends: (o: FileOverlap) => boolean): void {
    const gone = this.list.filter(ends);
    if (gone.length === 0) return;
    this.list = this.list.filter((o) => !ends(o));
    this.changed([...new Set(gone.flatMap((o) => [o.writer, o.other]))]);
  }
}
