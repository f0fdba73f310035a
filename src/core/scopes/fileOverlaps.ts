import { Emitter, type Disposable } from '../events';
import type { OnProblem } from '../problems';

/**
 * Files two live agents both hold: one changed a file that the other had changed (a change
 * record not yet kept or undone) or that lies in the other's declared scope, because the human
 * let it ("Let it", "Stop the other"). Both agents' nodes show the file with a ⚠ while the
 * overlap lasts. It ends when a change record it rests on goes (Keep or Undo of either agent's
 * change to the file) or when either agent is no longer live.
 */
export interface FileOverlap {
  /** The workspace-relative path. */
  readonly path: string;
  /** The agent that changed the file second, and its label. */
  readonly writer: string;
  readonly writerLabel: string;
  /** The agent that held it first, its label, and how it held it. */
  readonly other: string;
  readonly otherLabel: string;
  readonly otherHeld: 'changed' | 'scope';
}

export class FileOverlaps {
  private list: FileOverlap[] = [];
  private readonly changed: Emitter<readonly string[]>;
  /** Fires the session ids whose overlaps changed. */
  readonly onDidChange: (listener: (sessionIds: readonly string[]) => void) => Disposable;

  constructor(onProblem?: OnProblem) {
    this.changed = new Emitter<readonly string[]>(onProblem);
    this.onDidChange = this.changed.on;
  }

  add(overlap: FileOverlap): void {
    if (this.list.some((o) => o.path === overlap.path && o.writer === overlap.writer && o.other === overlap.other)) return;
    this.list = [...this.list, overlap];
    this.changed.fire([overlap.writer, overlap.other]);
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
    this.changed.fire([...new Set(gone.flatMap((o) => [o.writer, o.other]))]);
  }
}
