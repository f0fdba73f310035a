import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError, errnoOf, messageOf, type ArborErrorCode } from '../errors';
import { exists, runAsync, runSync } from './fileSteps';
import type { FilePool } from './filePool';
import type { JsonlSessionLog } from './jsonlSessionLog';
import { sessionFileNames, type KnownSessionFiles } from './knownSessionFiles';
import { childrenOf } from './lineage';
import { damageOf, describeDamage, interruptedTurnEnd, openTurnOf, parsedFrom, type ParsedSessionFile, type SessionDamage } from './sessionFileParser';
import { sessionFileName, sessionIdFromFileName } from './sessionFileName';
import { SessionIndex, type SessionIndexEntry } from './sessionIndex';
import { scanSessionFile, summaryOf } from './sessionScan';
import { summarizeSession } from './scanState';
import type { SessionSummary } from './sessionSummary';
import type { SessionEvent, SessionHeader } from './types';

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
 * A store's folder read back as a catalog: the session list with summaries and diagnostics,
 * the entries of a few sessions for a refresh, and whole sessions for resume. It only reads;
 * the store writes (and hands it the logs it has open, which are read from memory).
 *
 * Invariants:
 * - Loading never writes: a torn last line is ignored and a turn left running by a crash is
 *   closed in memory with `turn_end` reason `interrupted`, identically on every load. Reads
 *   stay safe while another window's extension host may still be writing a session.
 * - Listing never throws: one bad file never hides the others; it becomes a diagnostic.
 * - Listing reads the index and a stat per file; a file that is not the one indexed is scanned
 *   again, from where the last scan stopped when the same file only grew.
 */
export class SessionCatalogReader {
  /** Header and summary per file, so listing reads a stat per session instead of every file. */
  readonly index: SessionIndex;

  constructor(
    private readonly root: string,
    private readonly pool: FilePool,
    /** The store's logs open for writing, by session id. */
    private readonly open: ReadonlyMap<string, JsonlSessionLog>,
    private readonly names: KnownSessionFiles,
  ) {
    this.index = new SessionIndex(root, pool);
  }

  /** See `JsonlSessionStore.loadSession`. */
  async load(id: string): Promise<LoadedSession> {
    const live = this.open.get(id);
    if (live) return { header: live.header, events: [...live.events], repairs: { tornTailBytes: 0 } };
    const parsed = await readSessionFile(path.join(this.root, sessionFileName(id)), id, this.pool);
    return repairInMemory(parsed);
  }

  /** See `JsonlSessionStore.listSessions`. */
  async list(): Promise<SessionCatalog> {
    const sessions: SessionCatalogEntry[] = [];
    const diagnostics: SessionDiagnostic[] = [];
    let names: string[];
    try {
      const found = await runAsync(sessionFileNames(this.root));
      if (found) this.names.saw(found);
      names = found ?? [];
    } catch (e) {
      diagnostics.push({ code: 'SESSION_UNREADABLE', message: `Cannot read the session folder: ${messageOf(e)}.`, file: this.root });
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

  /** See `JsonlSessionStore.sessionEntries`. */
  async entries(ids: Iterable<string>): Promise<{ sessions: SessionCatalogEntry[]; diagnostics: SessionDiagnostic[]; missing: string[] }> {
    await this.index.load();
    const sessions: SessionCatalogEntry[] = [];
    const diagnostics: SessionDiagnostic[] = [];
    const missing: string[] = [];
    await forEachLimited([...new Set(ids)], LIST_CONCURRENCY, async (id) => {
      const live = this.open.get(id);
      const name = sessionFileName(id);
      // A look without a round trip through the thread pool: this refresh follows every turn end.
      if (!live && !runSync(exists(path.join(this.root, name)))) {
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

  /** See `JsonlSessionStore.listChildren`. */
  async children(id: string): Promise<SessionCatalogEntry[]> {
    return childrenOf((await this.list()).sessions, id);
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
      throw new ArborError('SESSION_UNREADABLE', `Cannot read the session file: ${messageOf(e)}.`, { file, errno: errnoOf(e) });
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
      throw new ArborError('SESSION_UNREADABLE', `Cannot read the session file: ${messageOf(e)}.`, { file, errno: errnoOf(e) });
    }
    const fresh: SessionIndexEntry = { ino, size: scan.size, mtimeMs, header: scan.header, state: scan.state };
    this.index.set(name, fresh);
    return fresh;
  }
}

/** Reads and parses one session file; every failure is a typed ArborError. */
export async function readSessionFile(file: string, expectedId: string | undefined, pool: FilePool): Promise<ParsedSessionFile> {
  let scan;
  try {
    scan = await scanSessionFile(file, pool, { keepEvents: true });
  } catch (e) {
    if (e instanceof ArborError) throw e;
    const code = errnoOf(e);
    if (expectedId !== undefined && code === 'ENOENT' && !(await isDanglingLink(file))) {
      throw new ArborError('SESSION_NOT_FOUND', `There is no session ${expectedId}.`, { id: expectedId });
    }
    throw new ArborError('SESSION_UNREADABLE', `Cannot read the session file: ${messageOf(e)}.`, { file, errno: code });
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
    return false; // nothing at the path at all, not even a link
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
  const error = e instanceof ArborError ? e : new ArborError('SESSION_UNREADABLE', messageOf(e));
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
