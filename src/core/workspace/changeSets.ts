import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { ArborError } from '../errors';
import { SESSION_FILE_EXTENSION, sessionFileName } from '../sessions/sessionFileName';
import { warnProcess, type OnProblem } from '../problems';
import { Emitter, type Disposable } from '../events';
import { once } from '../once';
import type { WorkspacePath, WorkspacePort } from './port';

/**
 * What each agent changed: per session, every file it wrote, that file's content before the
 * agent's first change to it (`null` when the agent created the file) and the content the agent
 * last left in it. The record is written before the file is, so a crash between the two leaves
 * an entry whose restore is a no-op rather than a change nobody can undo; it lives beside the
 * session (`<session id>.changes.json` in the sessions folder), so it survives a reload and a
 * resumed session keeps its record.
 *
 * Review, Keep and Undo read it: `list` gives the changed files with their original content,
 * `restore` puts one file back and drops it from the record, `keep` drops it without touching it.
 * Undo never loses someone else's work: `restore` refuses (CHANGED_SINCE) when the file no
 * longer holds what the agent last wrote, and writes only on exactly that content.
 */
export interface ChangedFile {
  /** Workspace-relative path, as the tools name it. */
  path: string;
  /** The content before the agent's first change; `null` when the agent created the file. */
  original: string | null;
  /** The content the agent last left in the file (the original until its write is done). */
  written: string | null;
  /** When the agent first changed it (ISO time). */
  firstChangedAt: string;
}

const changeSetFileSchema = once(() => z.object({
  version: z.literal(1),
  files: z.array(
    z.object({ path: z.string().min(1), original: z.string().nullable(), written: z.string().nullable(), firstChangedAt: z.string() }),
  ),
}));

/** Where change sets are kept: in memory, or as one JSON file per session. */
export interface ChangeSetStorage {
  load(sessionId: string): Promise<ChangedFile[]>;
  /** Saving an empty list removes the session's record. */
  save(sessionId: string, files: readonly ChangedFile[]): Promise<void>;
  /** The sessions that have a record. */
  sessions(): Promise<string[]>;
}

export class MemoryChangeSetStorage implements ChangeSetStorage {
  private readonly sets = new Map<string, ChangedFile[]>();
  load(sessionId: string): Promise<ChangedFile[]> {
    return Promise.resolve((this.sets.get(sessionId) ?? []).map((f) => ({ ...f })));
  }
  save(sessionId: string, files: readonly ChangedFile[]): Promise<void> {
    if (files.length === 0) this.sets.delete(sessionId);
    else this.sets.set(sessionId, files.map((f) => ({ ...f })));
    return Promise.resolve();
  }
  sessions(): Promise<string[]> {
    return Promise.resolve([...this.sets.keys()]);
  }
}

const CHANGES_SUFFIX = '.changes.json';

/**
 * `<folder>/<session file stem>.changes.json`: each change set beside its session, named like
 * its session file (so any id makes a safe name) but never listed as a session.
 */
export class FileChangeSetStorage implements ChangeSetStorage {
  constructor(readonly folder: string) {}

  fileOf(sessionId: string): string {
    const stem = sessionFileName(sessionId).slice(0, -SESSION_FILE_EXTENSION.length);
    return path.join(this.folder, `${stem}${CHANGES_SUFFIX}`);
  }

  async load(sessionId: string): Promise<ChangedFile[]> {
    let raw: string;
    try {
      raw = await fs.promises.readFile(this.fileOf(sessionId), 'utf8');
    } catch {
      // No record: the session has changed no file.
      return [];
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      // Not JSON: refused below as a damaged record.
      json = undefined;
    }
    const parsed = changeSetFileSchema().safeParse(json);
    if (!parsed.success) {
      throw new ArborError(
        'CHANGES_UNREADABLE',
        `The record of files changed by session ${sessionId} is damaged (${this.fileOf(sessionId)}). Review the files by hand (source control shows what changed), then delete that record.`,
        { sessionId },
      );
    }
    return parsed.data.files;
  }

  async save(sessionId: string, files: readonly ChangedFile[]): Promise<void> {
    const file = this.fileOf(sessionId);
    if (files.length === 0) {
      await fs.promises.rm(file, { force: true });
      return;
    }
    await fs.promises.mkdir(this.folder, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    await fs.promises.writeFile(temporary, JSON.stringify({ version: 1, files }), 'utf8');
    await fs.promises.rename(temporary, file);
  }

  async sessions(): Promise<string[]> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.folder);
    } catch {
      // No folder yet: no session has a record.
      return [];
    }
    const ids: string[] = [];
    for (const name of names) {
      // A hashed name (an id too long for a file name, see sessionFileName) cannot be decoded.
      if (!name.endsWith(CHANGES_SUFFIX) || name.includes('~')) continue;
      try {
        ids.push(decodeURIComponent(name.slice(0, -CHANGES_SUFFIX.length)));
      } catch {
        // Not a name this storage wrote.
      }
    }
    return ids;
  }
}

export class ChangeSets {
  /** Per session, the tail of its queued record updates: updates of one session never interleave. */
  private readonly queues = new Map<string, Promise<unknown>>();

  private readonly changed = new Emitter<string>((problem, err) => this.onProblem(problem, err));
  /** Fires a session id after its record changed (an entry added, updated, kept or undone). */
  readonly onDidChange: (listener: (sessionId: string) => void) => Disposable = this.changed.on;

  constructor(
    private readonly storage: ChangeSetStorage,
    private readonly workspace: () => WorkspacePort | undefined,
    /** Hears a listener of onDidChange that throws. */
    private readonly onProblem: OnProblem = warnProcess,
  ) {}

  /**
   * Records `before` as the original content of `file` unless the session already changed it.
   * Resolves true when this call added the entry (so a failed write can `forget` it).
   */
  recordBefore(sessionId: string, file: WorkspacePath, before: string | null, now = new Date()): Promise<boolean> {
    return this.update(sessionId, (files) => {
      if (files.some((f) => f.path === file.relative)) return false;
      files.push({ path: file.relative, original: before, written: before, firstChangedAt: now.toISOString() });
      return true;
    });
  }

  /**
   * Writes `after` over `before` (EDIT_STALE if the file changed meanwhile) with the session's
   * record around it: the original recorded before the write, taken back if the write fails,
   * what the write left recorded after it, so Undo can tell a later change by someone else.
   */
  async writeRecorded(sessionId: string, workspace: WorkspacePort, file: WorkspacePath, before: string | null, after: string): Promise<void> {
    const added = await this.recordBefore(sessionId, file, before);
    try {
      await workspace.writeText(file, after, { expected: before });
    } catch (err) {
      if (added) await this.forget(sessionId, file.relative);
      throw err;
    }
    await this.recordWritten(sessionId, file.relative, after);
  }

  /** Records what the session's write left in a file it has an entry for (after the write is done; null: it deleted the file). */
  recordWritten(sessionId: string, relativePath: string, text: string | null): Promise<void> {
    return this.update(sessionId, (files) => {
      const entry = files.find((f) => f.path === relativePath);
      if (entry) entry.written = text;
    });
  }

  /** Drops an entry `recordBefore` just added for a write that did not happen. */
  forget(sessionId: string, relativePath: string): Promise<void> {
    return this.update(sessionId, (files) => {
      const at = files.findIndex((f) => f.path === relativePath);
      if (at >= 0) files.splice(at, 1);
    });
  }

  /** The files a session changed, in the order it first changed them, with their original content. */
  list(sessionId: string): Promise<ChangedFile[]> {
    return this.update(sessionId, (files) => files.map((f) => ({ ...f })), false);
  }

  /** The sessions that have changed files on record (live or past). */
  async sessions(): Promise<string[]> {
    const ids = await this.storage.sessions();
    const withFiles: string[] = [];
    for (const id of ids) if ((await this.list(id).catch(() => [])).length > 0) withFiles.push(id);
    return withFiles;
  }

  /** Keeps the session's change to a file: the entry goes, the file stays as it is. */
  keep(sessionId: string, relativePath: string): Promise<void> {
    return this.forget(sessionId, relativePath);
  }

  /** Keeps every change of the session: its record goes, the files stay as they are. */
  keepAll(sessionId: string): Promise<void> {
    return this.update(sessionId, (files) => {
      files.splice(0);
    });
  }

  /**
   * Puts a file back as it was before the session first changed it (deletes it if the session
   * created it) and drops it from the record. FILE_NOT_FOUND when the session did not change it;
   * CHANGED_SINCE, changing nothing, when the file (an open editor's buffer first) no longer
   * holds what the session last wrote: someone else changed it since, and undoing would lose that.
   */
  restore(sessionId: string, relativePath: string): Promise<void> {
    return this.update(sessionId, async (files) => {
      const at = files.findIndex((f) => f.path === relativePath);
      if (at < 0) throw new ArborError('FILE_NOT_FOUND', `Session ${sessionId} did not change "${relativePath}", or its change was already kept or undone.`, { path: relativePath });
      const workspace = this.workspace();
      if (!workspace) throw new ArborError('WORKSPACE_NONE', 'No workspace folder is open, so the file cannot be restored. Open the folder the agent worked in, then undo again.');
      const target = await workspace.resolve(relativePath);
      const { original, written } = files[at];
      const current = await currentText(workspace, target);
      if (current !== written) {
        throw new ArborError(
          'CHANGED_SINCE',
          `"${relativePath}" changed since the agent last wrote it, so undoing would lose those changes. Compare them, then put the file back by hand or keep the agent's change.`,
          { sessionId, path: relativePath },
        );
      }
      if (original === null) {
        if (current !== null) await workspace.deleteFile(target);
      } else if (current !== original) {
        await workspace.writeText(target, original, { expected: current });
      }
      files.splice(at, 1);
    });
  }

  private update<T>(sessionId: string, change: (files: ChangedFile[]) => T | Promise<T>, write = true): Promise<T> {
    const previous = this.queues.get(sessionId) ?? Promise.resolve();
    const next = previous
      // The previous update's failure is its caller's: this one runs after it all the same.
      .catch(() => undefined)
      .then(async () => {
        const files = await this.storage.load(sessionId);
        const before = JSON.stringify(files);
        const result = await change(files);
        if (write && JSON.stringify(files) !== before) {
          await this.storage.save(sessionId, files);
          this.changed.fire(sessionId);
        }
        return result;
      });
    this.queues.set(sessionId, next);
    // `next` is the caller's, with its failure; this only drops the finished queue.
    void next.finally(() => {
      if (this.queues.get(sessionId) === next) this.queues.delete(sessionId);
    }).catch(() => undefined);
    return next;
  }
}

/** The file's text as the workspace sees it (an open buffer first); `null` when there is no such file; `undefined` when it is not text any more. */
async function currentText(workspace: WorkspacePort, file: WorkspacePath): Promise<string | null | undefined> {
  if (!(await workspace.exists(file))) return null;
  try {
    return (await workspace.readText(file)).text;
  } catch {
    // It is there but cannot be read as text (binary, too large): not text any more.
    return undefined;
  }
}
