// Why this file stays whole: the store is the one owner of the session folder (create,
// reopen under a lock, load and salvage, list through the index); its methods share the open
// logs and the lock table, and the folder's rules are easiest to check in one place. Parsing,
// scanning, indexing, naming and locking already live in their own files beside it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError, type ArborErrorCode } from '../errors';
import { FilePool } from './filePool';
import { FlushScheduler } from './flushScheduler';
import { isValidHeaderAtAGlance } from './eventFastCheck';
import { JsonlSessionLog } from './jsonlSessionLog';
import { sessionFileBytes } from './logFileWrite';
import { DEFAULT_WRITE_POLICY, type JsonlWritePolicy } from './writePolicy';
import { childrenOf } from './lineage';
import { sessionHeaderSchema } from './schema';
import { SessionLock, WindowLock } from './sessionLock';
import { damageOf, describeDamage, interruptedTurnEnd, openTurnOf, parsedFrom, type ParsedSessionFile, type SessionDamage } from './sessionFileParser';
import { SessionIndex, type SessionIndexEntry } from './sessionIndex';
import { scanSessionFile, summaryOf } from './sessionScan';
import { SESSION_FILE_EXTENSION, sessionFileName, sessionIdFromFileName } from './sessionFileName';
import { summarizeSession, type SessionSummary } from './sessionSummary';
import { SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader, type SessionLogFactory } from './types';

export interface JsonlSessionStoreOptions extends Partial<JsonlWritePolicy> {
  /**
   * Who this store writes for, as another window will name it when it finds a session locked
   * (for example "VS Code window for 'shop'"). Default: "Arbor in process <pid>".
   */
  owner?: string;
  /** Write failures that happen in the background, when no flush is waiting (log them). */
  onError?: (error: ArborError) => void;
}

/** What loading repaired; the file itself is left as it was (see `reopenLog`). */
export interface SessionRepairs {
  /** Bytes after the last newline, ignored as a write the process did not finish. */
  tornTailBytes: number;
  /** The turn that was running when the process stopped, closed with reason `interrupted`. */
  interruptedTurn?: number;
  /** A damaged line: the events stop before it (see `describeDamage` for the words to show). */
  damage?: SessionDamage;
}

export interface LoadedSession {
  header: SessionHeader;
  events: SessionEvent[];
  repairs: SessionRepairs;
}

export interface SessionCatalogEntry {
  header: SessionHeader;
  summary: SessionSummary;
  /** Absolute path of the session file. */
  file: string;
  /** Open for writing in this store right now: the summary comes from memory, unrepaired. */
  live: boolean;
  /** The file is damaged: the session lists (and resumes) up to the damage; `warning` says what was left out. */
  damage?: SessionDamage;
  warning?: string;
}

export type SessionDiagnosticCode = Extract<ArborErrorCode, 'SESSION_CORRUPT' | 'SESSION_VERSION' | 'SESSION_UNREADABLE'>;

/** A file in the session folder that could not be listed, and why. */
export interface SessionDiagnostic {
  code: SessionDiagnosticCode;
  message: string;
  file: string;
  /** The id the file name stands for, when the name says. */
  id?: string;
  /** 1-based line of the first problem, for SESSION_CORRUPT. */
  line?: number;
  /** The format version the file declares, for SESSION_VERSION. */
  version?: number;
}

export interface SessionCatalog {
  /** Most recent activity first. */
  sessions: SessionCatalogEntry[];
  diagnostics: SessionDiagnostic[];
}

const LIST_CONCURRENCY = 8;

/**
 * Durable sessions: one append-only JSONL file per session under `root` (the extension passes
 * its storage folder). Implements SessionLogFactory for the runtime, and reads the folder back
 * as a catalog for the session list and for resume.
 *
 * Loading never writes: a torn last line is ignored and a turn left running by a crash is
 * closed in memory with `turn_end` reason `interrupted`, identically on every load. Only
 * `reopenLog`, which takes the session over for writing, makes those repairs durable
 * (truncating the torn bytes and appending the `turn_end`). Reads stay safe while another
 * window's extension host may still be writing a session in a shared folder.
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
  /** Header and summary per file, so listing reads a stat per session instead of every file. */
  private readonly index: SessionIndex;
  /** Logs open for writing, by session id. */
  private readonly open = new Map<string, JsonlSessionLog>();
  /** Ids being reopened right now (the file is read before the log exists). */
  private readonly opening = new Set<string>();
  /**
   * Names of the session files known to be in the folder (read once, then every file created,
   * reopened or listed here), so that creating a session costs no look at the disk.
   */
  private known: Set<string> | undefined;
  /** Names created before the folder was first read. */
  private knownLater: string[] = [];
  private readingNames = false;
  private disposed = false;

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
    this.onError = options.onError;
    this.locks = new WindowLock(root, { description: options.owner ?? `Arbor in process ${process.pid}` });
    this.index = new SessionIndex(root, this.pool);
    this.readNames();
  }

  /** Reads the folder's names in the background, so that `create` tells a taken id without a look at the disk. */
  private readNames(): void {
    if (this.known || this.readingNames) return;
    this.readingNames = true;
    fs.promises.readdir(this.root).then(
      (names) => this.knowNames(names.filter((n) => n.endsWith(SESSION_FILE_EXTENSION))),
      (e: unknown) => {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') this.knowNames([]);
        else this.readingNames = false; // asked again at the next create
      },
    );
  }

  /** Absolute path of the file that holds session `id`. */
  fileOf(id: string): string {
    return path.join(this.root, sessionFileName(id));
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
      const parsed = sessionHeaderSchema.safeParse(header);
      if (!parsed.success) throw new ArborError('INPUT_INVALID', `Invalid session header: ${parsed.error.issues[0]?.message ?? 'unknown problem'}.`);
    }
    if (header.version !== SESSION_FORMAT_VERSION) {
      throw new ArborError('INPUT_INVALID', `A new session must use format version ${SESSION_FORMAT_VERSION}, not ${header.version}.`);
    }
    const name = sessionFileName(header.id);
    const file = path.join(this.root, name);
    if (this.open.has(header.id) || this.opening.has(header.id) || this.isKnown(name, file)) {
      throw new ArborError('SESSION_EXISTS', `Session ${header.id} already exists; resume it with reopenLog or choose a new id.`, { id: header.id });
    }
    this.addKnown(name);
    return this.track(
      new JsonlSessionLog({
        file,
        header,
        policy: this.policy,
        pool: this.pool,
        scheduler: this.scheduler,
        lock: new SessionLock(this.locks, header.id),
        onError: this.onError,
        onClose: (log) => this.release(log),
      }),
    );
  }

  /** Whether a session file of this name is in the folder, as far as this store knows. */
  private isKnown(name: string, file: string): boolean {
    if (this.known) return this.known.has(name);
    // A session created before the background read finished: read the folder once, now.
    try {
      this.knowNames(fs.readdirSync(this.root).filter((n) => n.endsWith(SESSION_FILE_EXTENSION)));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return fs.existsSync(file);
      this.knowNames([]);
    }
    return this.known!.has(name);
  }

  /** Session files found in the folder. */
  private knowNames(names: readonly string[]): void {
    if (!this.known) {
      this.known = new Set(this.knownLater);
      this.knownLater = [];
    }
    for (const name of names) this.known.add(name);
  }

  private addKnown(name: string): void {
    if (this.known) this.known.add(name);
    else this.knownLater.push(name);
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
    const file = this.fileOf(id);
    const lock = new SessionLock(this.locks, id);
    let log: JsonlSessionLog | undefined;
    try {
      // SESSION_IN_USE when another window writes it; a crashed window's lock is taken over.
      await lock.acquire();
      const parsed = await readSessionFile(file, id, this.pool);
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
        onClose: (l) => this.release(l),
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

  /**
   * The validated header and events of session `id`, with the load-time repairs applied in
   * memory. A session open in this store is read from memory. Throws SESSION_NOT_FOUND,
   * SESSION_CORRUPT, SESSION_VERSION or SESSION_UNREADABLE (an ArborError).
   */
  async loadSession(id: string): Promise<LoadedSession> {
    const live = this.open.get(id);
    if (live) return { header: live.header, events: [...live.events], repairs: { tornTailBytes: 0 } };
    const parsed = await readSessionFile(this.fileOf(id), id, this.pool);
    return repairInMemory(parsed);
  }

  /**
   * Every session in the folder with its summary, most recent first, plus a diagnostic for
   * each file that could not be read. Never throws: one bad file never hides the others.
   */
  async listSessions(): Promise<SessionCatalog> {
    const sessions: SessionCatalogEntry[] = [];
    const diagnostics: SessionDiagnostic[] = [];
    let names: string[];
    try {
      names = (await fs.promises.readdir(this.root)).filter((n) => n.endsWith(SESSION_FILE_EXTENSION));
      this.knowNames(names);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        diagnostics.push({ code: 'SESSION_UNREADABLE', message: `Cannot read the session folder: ${errorText(e)}.`, file: this.root });
      }
      names = [];
    }
    const liveByName = new Map([...this.open.values()].map((log) => [path.basename(log.file), log] as const));

    await this.index.load();
    await forEachLimited(names, LIST_CONCURRENCY, async (name) => {
      const found = await this.entryOf(name, liveByName.get(name));
      if ('header' in found) sessions.push(found);
      else diagnostics.push(found);
    });
    this.index.retain(new Set(names));
    this.index.saveSoon();

    // Sessions created here whose first batch has not reached the disk yet.
    const listed = new Set(names);
    for (const [name, live] of liveByName) {
      if (!listed.has(name)) sessions.push({ header: live.header, summary: summarizeSession(live.header, live.events), file: live.file, live: true });
    }

    sessions.sort((a, b) => compareDesc(a.summary.lastActivity, b.summary.lastActivity) || compareDesc(a.header.createdAt, b.header.createdAt));
    diagnostics.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    return { sessions, diagnostics };
  }

  /**
   * The catalog entries of these sessions only, for a refresh after agents of this window
   * changed: open logs from memory, the others through the index (one stat each). Sessions
   * without a file are left out, unreadable ones come back as diagnostics.
   */
  async sessionEntries(ids: Iterable<string>): Promise<{ sessions: SessionCatalogEntry[]; diagnostics: SessionDiagnostic[]; missing: string[] }> {
    await this.index.load();
    const sessions: SessionCatalogEntry[] = [];
    const diagnostics: SessionDiagnostic[] = [];
    const missing: string[] = [];
    await forEachLimited([...new Set(ids)], LIST_CONCURRENCY, async (id) => {
      const live = this.open.get(id);
      const name = sessionFileName(id);
      if (!live && !fs.existsSync(path.join(this.root, name))) {
        missing.push(id);
        return;
      }
      const found = await this.entryOf(name, live);
      if ('header' in found) sessions.push(found);
      else diagnostics.push(found);
    });
    this.index.saveSoon();
    return { sessions, diagnostics, missing };
  }

  /** One file of the folder as the catalog shows it. */
  private async entryOf(name: string, live: JsonlSessionLog | undefined): Promise<SessionCatalogEntry | SessionDiagnostic> {
    const file = path.join(this.root, name);
    if (live) return { header: live.header, summary: summarizeSession(live.header, live.events), file, live: true };
    try {
      const { header, state } = await this.indexed(name, file, this.index.get(name));
      if (sessionFileName(header.id) !== name) {
        throw new ArborError('SESSION_CORRUPT', `The file holds session ${JSON.stringify(header.id)}, which belongs in ${sessionFileName(header.id)}; was it renamed or copied?`);
      }
      const entry: SessionCatalogEntry = { header, summary: summaryOf(header, state, true), file, live: false };
      const damage = damageOf(state);
      if (damage) {
        entry.damage = damage;
        entry.warning = describeDamage(damage);
      }
      return entry;
    } catch (e) {
      this.index.delete(name);
      return diagnosticOf(e, file, sessionIdFromFileName(name));
    }
  }

  /**
   * The index entry of one file, scanned again if the file is not the one indexed: from where
   * the last scan stopped when the same file only grew, else from the start.
   */
  private async indexed(name: string, file: string, entry: SessionIndexEntry | undefined): Promise<SessionIndexEntry> {
    let stat: fs.BigIntStats;
    try {
      stat = await this.pool.run(() => fs.promises.stat(file, { bigint: true }));
    } catch (e) {
      throw new ArborError('SESSION_UNREADABLE', `Cannot read the session file: ${errorText(e)}.`, { file, errno: (e as NodeJS.ErrnoException).code });
    }
    if (!stat.isFile()) throw new ArborError('SESSION_UNREADABLE', 'Cannot read the session file: it is not a file.', { file });
    const ino = String(stat.ino);
    const size = Number(stat.size);
    const mtimeMs = Number(stat.mtimeMs);
    if (entry && entry.ino === ino && entry.size === size && entry.mtimeMs === mtimeMs) return entry;
    const grew = entry && entry.ino === ino && size >= entry.state.bytes && !entry.state.damage;
    let scan;
    try {
      scan = await scanSessionFile(file, this.pool, { keepEvents: false, from: grew ? { header: entry.header, state: entry.state } : undefined });
    } catch (e) {
      if (e instanceof ArborError) throw e;
      throw new ArborError('SESSION_UNREADABLE', `Cannot read the session file: ${errorText(e)}.`, { file, errno: (e as NodeJS.ErrnoException).code });
    }
    const fresh: SessionIndexEntry = { ino, size: scan.size, mtimeMs, header: scan.header, state: scan.state };
    this.index.set(name, fresh);
    return fresh;
  }

  /** Sessions whose header names `id` as their parent (durable lineage: history, not authority). */
  async listChildren(id: string): Promise<SessionCatalogEntry[]> {
    return childrenOf((await this.listSessions()).sessions, id);
  }

  /** The logs open for writing in this store. */
  openLogs(): JsonlSessionLog[] {
    return [...this.open.values()];
  }

  /** Resolves when every open log has written everything appended so far. */
  async flushAll(): Promise<void> {
    const results = await Promise.allSettled(this.openLogs().map((log) => log.flush()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
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
        errors.push(e instanceof ArborError ? e : new ArborError('SESSION_WRITE_FAILED', errorText(e)));
      }
    }
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
          errors.push(e instanceof ArborError ? e : new ArborError('SESSION_WRITE_FAILED', errorText(e)));
        }
      }
    });
    return errors;
  }

  /** Flushes and closes every open log; the store creates and reopens nothing afterwards. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const results = await Promise.allSettled(this.openLogs().map((log) => log.close()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private track(log: JsonlSessionLog): JsonlSessionLog {
    this.open.set(log.header.id, log);
    return log;
  }

  private release(log: JsonlSessionLog): void {
    if (this.open.get(log.header.id) === log) this.open.delete(log.header.id);
  }

  private assertUsable(): void {
    if (this.disposed) throw new ArborError('INTERNAL', 'The session store has been disposed.');
  }
}

/** Keeps a copy of a damaged file and puts the salvaged session in its place. Returns its length. */
async function replaceWithSalvage(file: string, parsed: ParsedSessionFile): Promise<number> {
  const data = sessionFileBytes(parsed.header, parsed.events);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  await fs.promises.copyFile(file, `${file}.damaged-${stamp}`);
  const temp = `${file}.${process.pid}-salvage.tmp`;
  await fs.promises.writeFile(temp, data);
  await fs.promises.rename(temp, file);
  return data.length;
}

/** Reads and parses one session file; every failure is a typed ArborError. */
async function readSessionFile(file: string, expectedId: string | undefined, pool: FilePool): Promise<ParsedSessionFile> {
  let scan;
  try {
    scan = await scanSessionFile(file, pool, { keepEvents: true });
  } catch (e) {
    if (e instanceof ArborError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (expectedId !== undefined && code === 'ENOENT' && !(await isDanglingLink(file))) {
      throw new ArborError('SESSION_NOT_FOUND', `There is no session ${expectedId}.`, { id: expectedId });
    }
    throw new ArborError('SESSION_UNREADABLE', `Cannot read the session file: ${errorText(e)}.`, { file, errno: code });
  }
  if (expectedId !== undefined && scan.header.id !== expectedId) {
    throw new ArborError('SESSION_CORRUPT', `The file for session ${expectedId} holds session ${scan.header.id}.`, { file, line: 1 });
  }
  return parsedFrom(scan.header, scan.state, scan.events ?? [], scan.tornTailBytes);
}

async function isDanglingLink(file: string): Promise<boolean> {
  try {
    return (await fs.promises.lstat(file)).isSymbolicLink();
  } catch {
    return false;
  }
}

function repairInMemory(parsed: ParsedSessionFile): LoadedSession {
  const events = parsed.events;
  const repairs: SessionRepairs = { tornTailBytes: parsed.tornTailBytes };
  if (parsed.damage) repairs.damage = parsed.damage;
  const turn = openTurnOf(events);
  if (turn !== undefined) {
    events.push(interruptedTurnEnd(events, turn));
    repairs.interruptedTurn = turn;
  }
  return { header: parsed.header, events, repairs };
}

function diagnosticOf(e: unknown, file: string, id: string | undefined): SessionDiagnostic {
  const error = e instanceof ArborError ? e : new ArborError('SESSION_UNREADABLE', errorText(e));
  const code: SessionDiagnosticCode =
    error.code === 'SESSION_CORRUPT' || error.code === 'SESSION_VERSION' ? error.code : 'SESSION_UNREADABLE';
  const diagnostic: SessionDiagnostic = { code, message: error.message, file };
  if (id !== undefined) diagnostic.id = id;
  const line = error.details?.line;
  if (typeof line === 'number') diagnostic.line = line;
  const version = error.details?.version;
  if (typeof version === 'number') diagnostic.version = version;
  return diagnostic;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function compareDesc(a: string, b: string): number {
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  return tb - ta;
}

async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
