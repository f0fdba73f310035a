import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { once } from '../once';
import type { FilePool } from './filePool';
import { sessionHeaderSchema } from './schema';
import { scanStateSchema } from './sessionScan';

/**
 * The session index: per session file, its header and the summary state of a scan, with the
 * file's identity, size and modification time when it was scanned. Listing History reads the
 * index and a `stat` per file instead of every file; a file whose identity, size or time
 * differs is scanned again (from where the last scan stopped, when the checksum of what it
 * covered shows the file only grew).
 *
 * The index is a cache, never the truth: it is rebuilt from the files when it is missing,
 * unreadable, or of another shape, and two windows writing it in turn only cost rescans.
 */

/** In the session folder; not a `.jsonl` name, so never listed as a session. */
export const SESSION_INDEX_FILE = 'session-index.json';
const SAVE_DELAY_MS = 2_000;

const indexEntrySchema = once(() => z.object({
  ino: z.string(),
  size: z.number().int().nonnegative(),
  mtimeMs: z.number(),
  header: sessionHeaderSchema(),
  state: scanStateSchema(),
}));
export type SessionIndexEntry = z.infer<ReturnType<typeof indexEntrySchema>>;

/**
 * The index's shape. Version 2 scan states know the question a session left open; version 3
 * ones keep the checksum of the bytes they covered, so a file changed anywhere is scanned
 * again, not only one whose last bytes changed; version 4 ones know the messages still queued
 * and how the last turn ended (its cause and message), which History says. An index of an
 * earlier version is rebuilt from the files once.
 */
const INDEX_VERSION = 4;

/** Entries are checked one at a time when used, so reading a large index never blocks for long. */
const indexFileSchema = once(() => z.object({ version: z.literal(INDEX_VERSION), entries: z.record(z.string(), z.unknown()) }));

export class SessionIndex {
  private entries: Map<string, SessionIndexEntry | unknown> | undefined;
  private loading: Promise<Map<string, unknown>> | undefined;
  private changed = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly root: string,
    private readonly pool: FilePool,
  ) {}

  get file(): string {
    return path.join(this.root, SESSION_INDEX_FILE);
  }

  /** Reads the index from disk the first time. */
  async load(): Promise<void> {
    if (this.entries) return;
    this.loading ??= this.read().then((map) => (this.entries = map));
    await this.loading;
  }

  /** The entry of file `name`, if the index has a valid one. */
  get(name: string): SessionIndexEntry | undefined {
    const raw = this.entries?.get(name);
    if (raw === undefined) return undefined;
    if (this.checked.has(raw as object)) return raw as SessionIndexEntry;
    const parsed = indexEntrySchema().safeParse(raw);
    if (!parsed.success) {
      this.delete(name);
      return undefined;
    }
    this.entries?.set(name, parsed.data);
    this.checked.add(parsed.data);
    return parsed.data;
  }

  private readonly checked = new WeakSet<object>();

  set(name: string, entry: SessionIndexEntry): void {
    this.entries?.set(name, entry);
    this.checked.add(entry);
    this.changed = true;
  }

  delete(name: string): void {
    if (this.entries?.delete(name)) this.changed = true;
  }

  /** Keeps only the entries of `names` (files that are gone drop out). */
  retain(names: ReadonlySet<string>): void {
    for (const name of this.entries?.keys() ?? []) if (!names.has(name)) this.delete(name);
  }

  /** Saves within a few seconds: a burst of listings writes the index once. */
  saveSoon(): void {
    if (!this.changed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.save();
    }, SAVE_DELAY_MS);
    // A cache: the process never waits for it.
    this.timer.unref();
  }

  /** Writes the index if it changed, atomically; a failure only costs rescans later. */
  async save(): Promise<void> {
    if (!this.changed || !this.entries) return;
    this.changed = false;
    const data = JSON.stringify({ version: INDEX_VERSION, entries: Object.fromEntries(this.entries) });
    const temp = `${this.file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    try {
      await this.pool.run(async () => {
        await fs.promises.writeFile(temp, data);
        await fs.promises.rename(temp, this.file);
      });
    } catch {
      // Not written: the files are scanned again next time, and the next save tries again.
      this.changed = true;
      // The temporary file may never have been made; one left behind is never read.
      await fs.promises.rm(temp, { force: true }).catch(() => undefined);
    }
  }

  private async read(): Promise<Map<string, unknown>> {
    try {
      const text = await this.pool.run(() => fs.promises.readFile(this.file, 'utf8'));
      const parsed = indexFileSchema().safeParse(JSON.parse(text));
      if (parsed.success) return new Map(Object.entries(parsed.data.entries));
    } catch {
      // Missing or unreadable: rebuilt from the files.
    }
    this.changed = true;
    return new Map();
  }
}
