import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError, messageOf } from '../errors';
import { FilePool } from './filePool';
import { FlushScheduler } from './flushScheduler';
import { isValidHeaderAtAGlance } from './eventFastCheck';
import { sessionCatalogPart, sessionJournalPart } from '../parts';
import { JOURNAL_FOLDER } from './journalSeat';
import { allFlushed, JsonlSessionLog } from './jsonlSessionLog';
import { KnownSessionFiles } from './knownSessionFiles';
import { sessionHeaderSchema } from './schema';
import type { SessionJournal } from './sessionJournal';
import { SessionLock, WindowLock } from './sessionLock';
import type { LoadedSession, SessionCatalog, SessionCatalogEntry, SessionCatalogReader, SessionDiagnostic } from './sessionCatalog';
import { describeDamage, interruptedTurnEnd, openTurnOf } from './sessionFileParser';
import { replaceWithSalvage } from './salvage';
import { sessionFileName } from './sessionFileName';
import { SESSION_FORMAT_VERSION, type SessionHeader, type SessionLogFactory } from './types';
import { DEFAULT_WRITE_POLICY, type JsonlWritePolicy } from './writePolicy';

/** How long a one-shot session's batches may stay in the journal before its file is created (ms): the burst that made them is over by then. */
const JOURNAL_DELAY_MS = 100;

export interface JsonlSessionStoreOptions extends Partial<JsonlWritePolicy> {
  /**
   * Who this store writes for, as another window will name it when it finds a session locked
   * (for example "VS Code window for 'shop'"). Default: "Arbor in process <pid>".
   */
  owner?: string;
  /** Write failures that happen in the background, when no flush is waiting (log them). */
  onError?: (error: ArborError) => void;
}

/**
 * Durable sessions: one append-only JSONL file per session under `root` (the extension passes
 * its storage folder). Implements SessionLogFactory for the runtime: it creates and reopens the
 * logs and, at the end, writes or lets go of all of them. Reading the folder back as a catalog
 * (list, index, load, diagnostics) is the catalog reader's, loaded at the first read (a part:
 * a window that only writes never loads it), with the logs open here read from memory.
 *
 * Invariants:
 * - One writer per session: within the process by the map of open (and opening) logs, across
 *   windows by the window lock, taken before a file is created or reopened.
 * - Loading never writes (see SessionCatalogReader). Only `reopenLog`, which takes the session
 *   over for writing, makes the load-time repairs durable (truncating the torn bytes, putting
 *   a salvaged copy in place of a damaged file, appending the interrupted turn's `turn_end`).
 * - The exit paths (`flushAllSync`, `closeAllSync`) write synchronously and never throw: they
 *   return the failures, and a log that could not be written keeps its lock.
 */
export class JsonlSessionStore implements SessionLogFactory {
  private readonly policy: JsonlWritePolicy;
  private readonly onError?: (error: ArborError) => void;
  /** Every file operation of this store's logs and reads, so a burst holds a bounded number of handles. */
  private readonly pool = new FilePool();
  /** One timer for the delayed writes of all its logs. */
  private readonly scheduler: FlushScheduler;
  /** This store's lock file: the sessions it writes, so that no other window writes them. */
  private readonly locks: WindowLock;
  /** Logs open for writing, by session id. */
  private readonly open = new Map<string, JsonlSessionLog>();
  /** Ids being reopened right now (the file is read before the log exists). */
  private readonly opening = new Set<string>();
  /** The session files known to be in the folder, so that creating a session costs no look at the disk. */
  private readonly known: KnownSessionFiles;
  /** The folder read back: list, index, load, diagnostics (made at the first read). */
  private catalogReader: SessionCatalogReader | undefined;
  /** Where new one-shot sessions' batches go before they have files (sessionJournal.ts), made at the first. */
  private journal: SessionJournal | undefined;
  /** The journals of crashed windows written out into their sessions' files; the folder is read after it. */
  private readonly recovered: Promise<void>;
  private disposed = false;
  private readonly owner: string;
  /** The folder and a separator: a file's path is this and its name, without path.join at each create. */
  private readonly prefix: string;

  constructor(
    readonly root: string,
    options: JsonlSessionStoreOptions = {},
  ) {
    this.policy = {
      flushDelayMs: options.flushDelayMs ?? DEFAULT_WRITE_POLICY.flushDelayMs,
      maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_WRITE_POLICY.maxBufferedBytes,
      fsync: options.fsync ?? DEFAULT_WRITE_POLICY.fsync,
      fsyncAtFlush: options.fsyncAtFlush ?? DEFAULT_WRITE_POLICY.fsyncAtFlush,
    };
    this.scheduler = new FlushScheduler(this.policy.flushDelayMs);
    this.prefix = path.join(root, '-').slice(0, -1);
    this.onError = options.onError;
    this.locks = new WindowLock(root, { description: options.owner ?? `Arbor in process ${process.pid}` });
    this.known = new KnownSessionFiles(root);
    this.owner = options.owner ?? `Arbor in process ${process.pid}`;
    this.recovered = this.recoverJournals().catch((e: unknown) =>
      this.onError?.(new ArborError('SESSION_UNREADABLE', `The sessions a closed window left in its journal could not all be written out: ${messageOf(e)}`, { root })),
    );
    this.known.readSoon();
  }

  private get catalog(): SessionCatalogReader {
    return (this.catalogReader ??= new (sessionCatalogPart().SessionCatalogReader)(this.root, this.pool, this.open, this.known));
  }
  /** Absolute path of the file that holds session `id`. */
  fileOf(id: string): string {
    return this.prefix + sessionFileName(id);
  }

  /**
   * Starts a new session. The file is created exclusively (O_EXCL) with the first write, after
   * taking the session's lock: two stores can never write one file, and the store that finds
   * the file created by someone else fails its writes with SESSION_EXISTS (reported on its
   * agent) instead of writing into it. Creating a file costs milliseconds on some disks, so it
   * happens off the path that starts an agent. Throws SESSION_EXISTS at once when the id has an
   * open log here or a file this store knows of (the folder is read once, in the background
   * when the store is made, or at the first create if that comes first), INPUT_INVALID for a
   * header that does not match the schema.
   */
  create(header: SessionHeader): JsonlSessionLog {
    this.assertUsable();
    if (!isValidHeaderAtAGlance(header)) {
      const parsed = sessionHeaderSchema().safeParse(header);
      if (!parsed.success) throw new ArborError('INPUT_INVALID', `Invalid session header: ${parsed.error.issues[0]?.message ?? 'unknown problem'}.`);
    }
    if (header.version !== SESSION_FORMAT_VERSION) {
      throw new ArborError('INPUT_INVALID', `A new session must use format version ${SESSION_FORMAT_VERSION}, not ${header.version}.`);
    }
    const name = sessionFileName(header.id);
    if (this.open.has(header.id) || this.opening.has(header.id) || this.known.has(name)) {
      throw new ArborError('SESSION_EXISTS', `Session ${header.id} already exists; resume it with reopenLog or choose a new id.`, { id: header.id });
    }
    this.known.add(name);
    return this.track(
      new JsonlSessionLog({
        file: this.prefix + name,
        header,
        policy: this.policy,
        pool: this.pool,
        scheduler: this.scheduler,
        lock: new SessionLock(this.locks, header.id, true),
        // A one-shot subagent's session costs no file and no lock entry before its first batch is on disk.
        journal: header.kind === 'one-shot' ? (this.journal ??= new (sessionJournalPart().SessionJournal)(this.root, this.owner, Math.min(this.policy.flushDelayMs, JOURNAL_DELAY_MS))) : undefined,
        onError: this.onError,
        onClose: this.release,
      }),
    );
  }

  /**
   * Opens an existing session for appending (resuming the same session id), after making the
   * load-time repairs durable: the torn tail is cut off and an interrupted turn gets its
   * `turn_end` written. Throws SESSION_IN_USE if the session is already open here, or the
   * errors of `loadSession`.
   */
  async reopenLog(id: string): Promise<JsonlSessionLog> {
    this.assertUsable();
    if (this.open.has(id) || this.opening.has(id)) {
      throw new ArborError('SESSION_IN_USE', `Session ${id} is already open for writing.`, { id });
    }
    this.opening.add(id);
    await this.recovered;
    const file = this.fileOf(id);
    const lock = new SessionLock(this.locks, id);
    let log: JsonlSessionLog | undefined;
    try {
      // SESSION_IN_USE when another window writes it; a crashed window's lock is taken over.
      await lock.acquire();
      const parsed = await sessionCatalogPart().readSessionFile(file, id, this.pool);
      let bytes = parsed.completeBytes;
      if (parsed.damage) {
        // Continue from the salvaged part: new events must not land after the damage, where no
        // load would reach them. The damaged file is kept beside it, never listed.
        bytes = await this.pool.run(() => replaceWithSalvage(file, parsed));
        this.onError?.(
          new ArborError('SESSION_CORRUPT', `Session ${id} was resumed from its undamaged part. ${describeDamage(parsed.damage)} The damaged file was kept as ${path.basename(file)}.damaged-*.`, {
            id,
            file,
            line: parsed.damage.line,
          }),
        );
      } else if (parsed.tornTailBytes > 0) {
        await fs.promises.truncate(file, parsed.completeBytes);
      }
      const stat = await fs.promises.stat(file, { bigint: true });
      log = new JsonlSessionLog({
        file,
        header: parsed.header,
        policy: this.policy,
        pool: this.pool,
        scheduler: this.scheduler,
        lock,
        existing: { events: parsed.events, bytes, identity: { dev: stat.dev, ino: stat.ino } },
        onError: this.onError,
        onClose: this.release,
      });
      const turn = openTurnOf(parsed.events);
      if (turn !== undefined) {
        log.append(interruptedTurnEnd(parsed.events, turn));
        await log.flush();
      }
      this.assertUsable();
      return this.track(log);
    } catch (e) {
      if (!log || !this.open.has(id)) lock.releaseSync();
      throw e;
    } finally {
      this.opening.delete(id);
    }
  }

  /** Session `id`'s lock in this store's window, to hold a session for a later reopenLog without reading it (restore/deferredLog.ts): the reopen takes it over. */
  lockOf(id: string): SessionLock { return new SessionLock(this.locks, id); }

  /**
   * The validated header and events of session `id`, with the load-time repairs applied in
   * memory. A session open in this store is read from memory. Throws SESSION_NOT_FOUND,
   * SESSION_CORRUPT, SESSION_VERSION or SESSION_UNREADABLE (an ArborError).
   */
  loadSession(id: string): Promise<LoadedSession> {
    return this.recovered.then(() => this.catalog.load(id));
  }

  /**
   * Every session in the folder with its summary, most recent first, plus a diagnostic for
   * each file that could not be read. Never throws: one bad file never hides the others.
   */
  listSessions(): Promise<SessionCatalog> {
    return this.recovered.then(() => this.catalog.list());
  }

  /**
   * The catalog entries of these sessions only, for a refresh after agents of this window
   * changed: open logs from memory, the others through the index (one stat each). Sessions
   * without a file are left out, unreadable ones come back as diagnostics.
   */
  sessionEntries(ids: Iterable<string>): Promise<{ sessions: SessionCatalogEntry[]; diagnostics: SessionDiagnostic[]; missing: string[] }> {
    return this.recovered.then(() => this.catalog.entries(ids));
  }

  /** Sessions whose header names `id` as their parent (durable lineage: history, not authority). */
  listChildren(id: string): Promise<SessionCatalogEntry[]> {
    return this.recovered.then(() => this.catalog.children(id));
  }

  /** The logs open for writing in this store. */
  openLogs(): JsonlSessionLog[] {
    return [...this.open.values()];
  }

  /** Resolves when every open log has written everything appended so far (allFlushed). */
  flushAll(): Promise<void> {
    return allFlushed(this.openLogs());
  }

  /**
   * Writes every open log before returning, for a process 'exit' handler or extension
   * deactivation. Never throws; returns the failures (one per log that could not be written).
   */
  flushAllSync(): ArborError[] {
    const errors: ArborError[] = [];
    for (const log of this.open.values()) {
      try {
        log.flushSync();
      } catch (e) {
        errors.push(e instanceof ArborError ? e : new ArborError('SESSION_WRITE_FAILED', messageOf(e)));
      }
    }
    this.journal?.closeSync();
    return errors;
  }

  /**
   * For extension deactivation: writes every open log synchronously and releases it with its
   * lock, so another window can resume the sessions at once. Never throws; returns the
   * failures (those logs keep their locks, which a later window takes over once this process
   * is gone). The store creates and reopens nothing afterwards.
   */
  closeAllSync(): ArborError[] {
    this.disposed = true;
    const errors: ArborError[] = [];
    // One write of the lock file for all the sessions let go.
    this.locks.batchSync(() => {
      for (const log of [...this.open.values()]) {
        try {
          log.closeSync();
        } catch (e) {
          errors.push(e instanceof ArborError ? e : new ArborError('SESSION_WRITE_FAILED', messageOf(e)));
        }
      }
    });
    this.journal?.closeSync();
    return errors;
  }

  /** Flushes and closes every open log; the store creates and reopens nothing afterwards. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.journal?.leaveAll();
    const results = await Promise.allSettled([...this.openLogs().map((log) => log.close()), this.recovered]);
    await this.journal?.retired();
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** A crashed window's journal is written out (its part loaded) only when the folder holds one. */
  private async recoverJournals(): Promise<void> {
    // No journal folder: nothing to write out (a folder that cannot be read fails the reads after).
    const names = await fs.promises.readdir(path.join(this.root, JOURNAL_FOLDER)).catch(() => []);
    if (names.length > 0) await sessionJournalPart().recoverJournals(this.root, this.locks, this.pool);
  }

  private track(log: JsonlSessionLog): JsonlSessionLog {
    this.open.set(log.header.id, log);
    return log;
  }

  private readonly release = (log: JsonlSessionLog): void => void (this.open.get(log.header.id) === log && this.open.delete(log.header.id));

  private assertUsable(): void {
    if (this.disposed) throw new ArborError('INTERNAL', 'The session store has been disposed.');
  }
}
