import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { ArborError } from '../errors';
import { SESSION_FILE_EXTENSION, sessionFileName } from '../sessions/sessionFileName';
import type { WorkspacePath, WorkspacePort } from './port';

/**
 * What each agent changed: per session, every file it wrote and that file's content before the
 * agent's first change to it (`null` when the agent created the file). The record is written
 * before the file is, so a crash between the two leaves an entry whose restore is a no-op rather
 * than a change nobody can undo; it lives beside the session, so it survives a reload.
 *
 * Review, Keep and Undo read it: `list` gives the changed files with their original content,
 * `restore` puts one file back and drops it from the record, `keep` drops it without touching it.
 */
export interface ChangedFile {
  /** Workspace-relative path, as the tools name it. */
  path: string;
  /** The content before the agent's first change; `null` when the agent created the file. */
  original: string | null;
  /** When the agent first changed it (ISO time). */
  firstChangedAt: string;
}

const changeSetFileSchema = z.object({
  version: z.literal(1),
  files: z.array(z.object({ path: z.string().min(1), original: z.string().nullable(), firstChangedAt: z.string() })),
});

/** Where change sets are kept: in memory, or as one JSON file per session. */
export interface ChangeSetStorage {
  load(sessionId: string): Promise<ChangedFile[]>;
  save(sessionId: string, files: readonly ChangedFile[]): Promise<void>;
}

export class MemoryChangeSetStorage implements ChangeSetStorage {
  private readonly sets = new Map<string, ChangedFile[]>();
  load(sessionId: string): Promise<ChangedFile[]> {
    return Promise.resolve((this.sets.get(sessionId) ?? []).map((f) => ({ ...f })));
  }
  save(sessionId: string, files: readonly ChangedFile[]): Promise<void> {
    this.sets.set(sessionId, files.map((f) => ({ ...f })));
    return Promise.resolve();
  }
}

/**
 * `<folder>/<session file stem>.changes.json`: each change set beside its session, named like
 * its session file (so any id makes a safe name) but never listed as a session.
 */
export class FileChangeSetStorage implements ChangeSetStorage {
  constructor(readonly folder: string) {}

  fileOf(sessionId: string): string {
    const stem = sessionFileName(sessionId).slice(0, -SESSION_FILE_EXTENSION.length);
    return path.join(this.folder, `${stem}.changes.json`);
  }

  async load(sessionId: string): Promise<ChangedFile[]> {
    let raw: string;
    try {
      raw = await fs.promises.readFile(this.fileOf(sessionId), 'utf8');
    } catch {
      return [];
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      json = undefined;
    }
    const parsed = changeSetFileSchema.safeParse(json);
    if (!parsed.success) {
      throw new ArborError('CHANGES_UNREADABLE', `The record of files changed by session ${sessionId} is damaged (${this.fileOf(sessionId)}).`, { sessionId });
    }
    return parsed.data.files;
  }

  async save(sessionId: string, files: readonly ChangedFile[]): Promise<void> {
    const file = this.fileOf(sessionId);
    await fs.promises.mkdir(this.folder, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    await fs.promises.writeFile(temporary, JSON.stringify({ version: 1, files }), 'utf8');
    await fs.promises.rename(temporary, file);
  }
}

export class ChangeSets {
  /** Per session, the tail of its queued record updates: updates of one session never interleave. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly storage: ChangeSetStorage,
    private readonly workspace: () => WorkspacePort | undefined,
  ) {}

  /**
   * Records `before` as the original content of `file` unless the session already changed it.
   * Resolves true when this call added the entry (so a failed write can `forget` it).
   */
  recordBefore(sessionId: string, file: WorkspacePath, before: string | null, now = new Date()): Promise<boolean> {
    return this.update(sessionId, (files) => {
      if (files.some((f) => f.path === file.relative)) return false;
      files.push({ path: file.relative, original: before, firstChangedAt: now.toISOString() });
      return true;
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

  /** Keeps the session's change to a file: the entry goes, the file stays as it is. */
  keep(sessionId: string, relativePath: string): Promise<void> {
    return this.forget(sessionId, relativePath);
  }

  /**
   * Puts a file back as it was before the session first changed it (deletes it if the session
   * created it) and drops it from the record. FILE_NOT_FOUND when the session did not change it.
   */
  restore(sessionId: string, relativePath: string): Promise<void> {
    return this.update(sessionId, async (files) => {
      const at = files.findIndex((f) => f.path === relativePath);
      if (at < 0) throw new ArborError('FILE_NOT_FOUND', `Session ${sessionId} did not change "${relativePath}".`, { path: relativePath });
      const workspace = this.workspace();
      if (!workspace) throw new ArborError('WORKSPACE_NONE', 'No workspace folder is open, so the file cannot be restored.');
      const target = await workspace.resolve(relativePath);
      const original = files[at].original;
      if (original === null) await workspace.deleteFile(target);
      else await workspace.writeText(target, original);
      files.splice(at, 1);
    });
  }

  private update<T>(sessionId: string, change: (files: ChangedFile[]) => T | Promise<T>, write = true): Promise<T> {
    const previous = this.queues.get(sessionId) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const files = await this.storage.load(sessionId);
        const before = JSON.stringify(files);
        const result = await change(files);
        if (write && JSON.stringify(files) !== before) await this.storage.save(sessionId, files);
        return result;
      });
    this.queues.set(sessionId, next);
    void next.finally(() => {
      if (this.queues.get(sessionId) === next) this.queues.delete(sessionId);
    }).catch(() => undefined);
    return next;
  }
}
