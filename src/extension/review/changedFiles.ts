import * as vscode from 'vscode';
import type { ChangeSets } from '../../core/workspace';
import type { ChangedFileNode } from './changedFileNode';

/**
 * What the tree needs to know of each change set, synchronously: the files, without their
 * contents (which may be large and stay on disk). Loaded on first sight of a session and again
 * whenever the record announces a change; `onDidChange` then names the session.
 */
export class ChangedFilesIndex implements vscode.Disposable {
  private readonly known = new Map<string, readonly ChangedFileNode[]>();
  private readonly loading = new Set<string>();
  /** Sessions whose record changed while they were loading: loaded once more after. */
  private readonly stale = new Set<string>();
  private readonly changed = new vscode.EventEmitter<string>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: { dispose(): void };

  constructor(
    private readonly changes: ChangeSets,
    private readonly onError: (sessionId: string, err: unknown) => void,
  ) {
    this.subscription = changes.onDidChange((sessionId) => this.load(sessionId));
  }

  /** The session's changed files as last loaded; undefined until loaded (a load is then under way). */
  filesOf(sessionId: string): readonly ChangedFileNode[] | undefined {
    const files = this.known.get(sessionId);
    if (!files) this.load(sessionId);
    return files;
  }

  /** Loads the session's record now (a command about to act on it wants the current list). */
  async refresh(sessionId: string): Promise<readonly ChangedFileNode[]> {
    const files = (await this.changes.list(sessionId)).map((f): ChangedFileNode => ({ type: 'changed-file', sessionId, path: f.path, created: f.original === null }));
    const before = this.known.get(sessionId);
    this.known.set(sessionId, files);
    // A first load that finds no files changes nothing a row shows: no repaint for it.
    if (before ? !sameFiles(before, files) : files.length > 0) this.changed.fire(sessionId);
    return files;
  }

  private load(sessionId: string): void {
    if (this.loading.has(sessionId)) {
      this.stale.add(sessionId);
      return;
    }
    this.loading.add(sessionId);
    void this.refresh(sessionId)
      .catch((err: unknown) => {
        this.known.set(sessionId, []);
        this.onError(sessionId, err);
      })
      .finally(() => {
        this.loading.delete(sessionId);
        if (this.stale.delete(sessionId)) this.load(sessionId);
      });
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

function sameFiles(a: readonly ChangedFileNode[], b: readonly ChangedFileNode[]): boolean {
  return a.length === b.length && a.every((f, i) => f.path === b[i].path && f.created === b[i].created);
}
