import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError, errnoOf } from '../errors';
import { rm, rmdir, runSync } from './fileSteps';
export { recoverJournals } from './journalRecovery';
import { landedAll, record, tell, writeAllParts, type Waiting } from './journalRecords';
import { JOURNAL_FOLDER, JOURNAL_SUFFIX, type Journal, type JournalBatch, type JournaledLog } from './journalSeat';
import { HOST } from './windowFiles';

/**
 * The store's journal of new one-shot sessions: the batches of a one-shot subagent's session
 * written, many sessions in one write, to one file of the window (`journal/window-<pid>-<nonce>-
 * <generation>.journal` in the session folder) before that session has a file of its own. A
 * thousand subagents delegated at once then cost one append where they cost a lock entry and a
 * file each before their first batch was on disk; their files are created a moment later, off
 * the path the agents wait on.
 *
 * Invariants:
 * - A batch is on disk, in the journal, when its log is called back (`written`): as early as in
 *   its own file, and a crash then loses nothing (a journal whose process is gone is written out into the
 *   sessions' files by the next store that opens the folder: journalRecovery).
 * - A journaled session takes no lock and has no file, so no other window can see it, let alone
 *   take it. Its file is created the normal way (the session's lock first, then an exclusive
 *   create) when the log leaves the journal: `delayMs` after its first batch landed, or at once
 *   by the synchronous flush at the end of the process. The file then holds every line.
 * - The log stays open in its store (History lists it from memory) until its file holds every
 *   line; a generation's journal file is deleted once none of its sessions is still only there.
 * - Each record is one JSON line `{ id, at, bytes }` followed by those `bytes` of the session's
 *   file as they are (its checksummed lines, not escaped again), which go to offset `at`, so a
 *   batch written again lands at the same place. The first line names the window (pid, host,
 *   owner), as a lock file does.
 */

const PROCESS_NONCE = randomBytes(4).toString('hex');
/** Records serialized and written at a time (writeBatch): a slice of a fan-out's is about 2 ms of work. */
const SLICE = 128;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
let journalCounter = 0;

/** A journal file open for appending, and the window's line until it is written (the file is new: it goes before the first batch). */
interface OpenJournal {
  handle: fs.promises.FileHandle;
  header: Buffer | undefined;
}

export class SessionJournal implements Journal {
  private readonly folder: string;
  private readonly base: string;
  private generation = 0;
  /** The file of the current generation, opening or open. */
  private handle: Promise<OpenJournal> | undefined;
  /** The generation whose file was opened last (a second open of it follows a failed write). */
  private openedGeneration = -1;
  private waiting: Waiting[] = [];
  private writing = false;
  /** Logs with lines only here. */
  private readonly members = new Set<JournaledLog>();
  /** Logs whose batch landed, waiting for the delay before they leave. */
  private readonly due = new Set<JournaledLog>();
  private timer: NodeJS.Timeout | undefined;
  /** Closed at the end of the process with every log's file whole (closeSync). */
  private closed = false;
  private retiring: Promise<void> = Promise.resolve();
  /** Retired files whose close and delete have not finished. */
  private retirements = 0;
  /** Retired files not yet deleted. */
  private readonly undeleted = new Set<string>();

  constructor(
    root: string,
    private readonly owner: string,
    private readonly delayMs: number,
  ) {
    this.folder = path.join(root, JOURNAL_FOLDER);
    this.base = `window-${process.pid}-${PROCESS_NONCE}${(++journalCounter).toString(36)}`;
  }

  /** The current generation's file. */
  get file(): string {
    return path.join(this.folder, `${this.base}-${this.generation}${JOURNAL_SUFFIX}`);
  }

  /**
   * Writes `batch`, bytes of `log`'s file at its offset; tells the log once they are on disk, or
   * that their write failed. A call back, not a promise: a thousand sessions' batches land in one
   * write, and two promise reactions each stood between that write and their flushes.
   */
  append(log: JournaledLog, batch: JournalBatch): void {
    this.members.add(log);
    this.waiting.push({ log, batch });
    if (this.writing) return;
    this.writing = true;
    // The file opens now, so that it is open by the time the batches are serialized.
    void this.opening();
    // After the current stretch of work (a burst of agents ending turns): its batches are
    // serialized then, off the agents' path, and written in a few large writes.
    setImmediate(() => void this.drain());
  }

  /** `log`'s file holds every line it wrote here: it is no longer the journal's. */
  left(log: JournaledLog): void {
    this.due.delete(log);
    if (!this.members.delete(log)) return;
    this.retireIfEmpty();
  }

  /** Whether `log` has lines only here. */
  holds(log: JournaledLog): boolean {
    return this.members.has(log);
  }

  /** Every log leaves now (the store is closing): their files are created without waiting. */
  leaveAll(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.due.clear();
    for (const member of [...this.members]) member.leaveJournal();
  }

  /** Resolves once the files this journal retired are closed and deleted. */
  retired(): Promise<void> {
    return this.retiring;
  }

  /** At the end of the process: deletes the current file if no log is a member any more (every log has written its file). */
  closeSync(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.members.size > 0) return;
    // Every log has its file whole: a batch still waiting for the journal is written nowhere (no journal is left behind).
    this.closed = true;
    if (this.handle) this.retire();
    for (const file of this.undeleted) {
      try {
        runSync(rm(file));
      } catch {
        // Still open elsewhere (Windows): the next store's recovery finds no session only there and deletes it.
      }
    }
    try {
      runSync(rmdir(this.folder));
    } catch {
      // Another window's journal is in the folder, or it went already.
    }
  }

  private landed(log: JournaledLog): void {
    if (!this.members.has(log)) return;
    this.due.add(log);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const due = [...this.due];
      this.due.clear();
      for (const member of due) member.leaveJournal();
    }, this.delayMs);
    // Not unref'd: a closing log waits on it for its file, which the process must not exit before.
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        this.waiting = [];
        if (this.closed) {
          landedAll(batch, (log) => this.landed(log));
          continue;
        }
        try {
          await this.writeBatch(batch);
        } catch (e) {
          // Opened again at the next write (it appends: what landed stays); this handle is closed.
          const failed = this.handle;
          this.handle = undefined;
          failed?.then((open) => open.handle.close()).catch(() => undefined);
          for (const w of batch) tell(w, true, e);
          continue;
        }
        landedAll(batch, (log) => this.landed(log));
      }
    } finally {
      this.writing = false;
      this.retireIfEmpty();
    }
  }

  /** The current generation's file, opening or open: its open starts at the first call. */
  private opening(): Promise<OpenJournal> {
    if (this.handle) return this.handle;
    const handle = (this.handle = this.openFile());
    // A failed open is the next write's to report (it awaits this promise); meanwhile it is not unhandled.
    handle.catch(() => undefined);
    return handle;
  }

  /**
   * Writes `batch` in slices of SLICE records, in order: each slice is serialized while the one
   * before it is being written, and the event loop turns between two slices, so that a thousand
   * sessions' batches neither hold it for their whole serialization (other logs' file steps, a
   * lock's, wait behind it) nor wait for all of it to be serialized before the first byte goes.
   */
  private async writeBatch(batch: readonly Waiting[]): Promise<void> {
    const opening = this.opening();
    let written: Promise<void> | undefined;
    for (let from = 0; from < batch.length; from += SLICE) {
      if (from > 0) await nextTurn();
      // Closed meanwhile (the end of the process, every log's file whole): the rest is written nowhere, as in drain.
      if (this.closed) break;
      const parts = batch.slice(from, from + SLICE).flatMap(record);
      const open = await opening;
      if (open.header) parts.unshift(open.header);
      open.header = undefined;
      const previous = written;
      written = previous ? previous.then(() => writeAllParts(open.handle, parts)) : writeAllParts(open.handle, parts);
      // A failed slice fails the batch: the rest is not written, and the write awaited below reports it.
      written.catch(() => undefined);
    }
    try {
      await written;
    } catch (e) {
      // A write the close cut short failed for a journal no log needs any more.
      if (!this.closed) throw e;
    }
  }

  /**
   * Opens the current generation's file for appending; its first call starts at once (before
   * the caller serializes the batches), unless a retired file is still being deleted. A
   * generation's file is new at its first open (its name is this window's alone), so the window's
   * line is handed back to go before the first batch, in the same write; a file opened again
   * after a failed write gets it only if it is still empty.
   */
  private async openFile(): Promise<OpenJournal> {
    const file = this.file;
    const fresh = this.openedGeneration !== this.generation;
    this.openedGeneration = this.generation;
    if (this.retirements > 0) await this.retiring;
    // The folder goes with the last journal (retire), so a fresh generation usually makes it first.
    if (fresh) await fs.promises.mkdir(this.folder, { recursive: true });
    if (this.closed) {
      // The exit flush ran while the folder was made: no journal is left behind (another window's keeps the folder).
      await fs.promises.rmdir(this.folder).catch(() => undefined);
      throw new ArborError('INTERNAL', 'The journal closed before its file opened.');
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const handle = await fs.promises.open(file, 'a');
        let empty = fresh;
        if (!fresh) {
          try {
            empty = (await handle.stat()).size === 0;
          } catch (e) {
            // The stat's failure is the one to report; a close failing after it adds nothing.
            await handle.close().catch(() => undefined);
            throw e;
          }
        }
        return { handle, header: empty ? Buffer.from(`${JSON.stringify({ pid: process.pid, host: HOST, owner: this.owner })}\n`) : undefined };
      } catch (e) {
        // The folder went meanwhile (another window's last journal retired).
        if (errnoOf(e) !== 'ENOENT' || attempt >= 3) throw e;
        await fs.promises.mkdir(this.folder, { recursive: true });
      }
    }
  }

  /** No log has lines only in the current file and nothing waits to be written: close and delete it; the next batch starts the next generation. */
  private retireIfEmpty(): void {
    if (this.members.size > 0 || this.writing || this.waiting.length > 0 || this.handle === undefined) return;
    this.retire();
  }

  private retire(): void {
    const handle = this.handle;
    const file = this.file;
    this.handle = undefined;
    this.generation++;
    this.undeleted.add(file);
    this.retirements++;
    this.retiring = this.retiring.then(async () => {
      try {
        await (await handle)?.handle.close();
      } catch {
        // It failed to open: nothing to close.
      }
      // Left for the next store's recovery, which finds no session only there and deletes it.
      await fs.promises.rm(file, { force: true }).catch(() => undefined);
      this.undeleted.delete(file);
      // The folder goes with the last journal (another window's keeps it).
      await fs.promises.rmdir(this.folder).catch(() => undefined);
      this.retirements--;
    });
  }
}
