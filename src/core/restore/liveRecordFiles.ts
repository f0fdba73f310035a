import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError, messageOf } from '../errors';
import { SESSION_FILE_EXTENSION, sessionFileName } from '../sessions/sessionFileName';
import { LIVE_RECORD_VERSION, liveRootRecordSchema, type LiveRootRecord } from './liveRecord';

/**
 * The live-state records on disk: `live/<root session file stem>.json` in the sessions folder,
 * one per root live in some window. Each is written whole to a temporary file that is then
 * renamed over it, so a crash leaves the old record or the new one, never half of one; a record
 * cut or damaged anyway (a full disk, someone's editor) is reported, named by its file, and
 * the others are read as usual.
 */
export const LIVE_RECORD_FOLDER = 'live';
const RECORD_SUFFIX = '.json';
/** Each write its own temporary file, so an abandoned one never meets a later one. */
let temporaries = 0;

/** A record that could not be used: the root it names (when the file name says) and why. */
export interface LiveRecordProblem {
  readonly sessionId?: string;
  readonly file: string;
  readonly error: ArborError;
}

export class LiveRecordFiles {
  readonly folder: string;

  constructor(sessionsFolder: string) {
    this.folder = path.join(sessionsFolder, LIVE_RECORD_FOLDER);
  }

  fileOf(rootId: string): string {
    return path.join(this.folder, sessionFileName(rootId).slice(0, -SESSION_FILE_EXTENSION.length) + RECORD_SUFFIX);
  }

  /** Every record in the folder; never throws (a folder that is not there holds none). */
  async readAll(): Promise<{ records: LiveRootRecord[]; problems: LiveRecordProblem[] }> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.folder);
    } catch {
      // No folder yet: no window has recorded a live root here.
      return { records: [], problems: [] };
    }
    const records: LiveRootRecord[] = [];
    const problems: LiveRecordProblem[] = [];
    const read = names.filter((n) => n.endsWith(RECORD_SUFFIX)).map(async (name) => {
      const file = path.join(this.folder, name);
      const result = await readRecord(file);
      if ('record' in result) records.push(result.record);
      else problems.push({ sessionId: idOf(name), file, error: result.error });
    });
    await Promise.all(read);
    return { records, problems };
  }

  /**
   * Writes `record` whole (temporary file, then rename). `wanted` is asked just before the
   * rename: a write the window's last synchronous one has overtaken is dropped, never put over it.
   */
  async write(record: LiveRootRecord, wanted: () => boolean = () => true): Promise<void> {
    const file = this.fileOf(record.root);
    const temporary = `${file}.${process.pid}-${++temporaries}.tmp`;
    await fs.promises.mkdir(this.folder, { recursive: true });
    await fs.promises.writeFile(temporary, JSON.stringify(record), 'utf8');
    if (!wanted()) {
      await fs.promises.rm(temporary, { force: true });
      return;
    }
    // In the same turn as the check: nothing synchronous can come between them.
    fs.renameSync(temporary, file);
  }

  /** The same, for the window's last moment (deactivation), when nothing asynchronous runs any more. */
  writeSync(record: LiveRootRecord): void {
    const file = this.fileOf(record.root);
    const temporary = `${file}.${process.pid}-${++temporaries}.tmp`;
    fs.mkdirSync(this.folder, { recursive: true });
    fs.writeFileSync(temporary, JSON.stringify(record), 'utf8');
    fs.renameSync(temporary, file);
  }

  /** Moves a record that could not be used out of the way (kept beside, never read again), so it is reported once. */
  async setAside(file: string): Promise<void> {
    // Gone already (another window set it aside): nothing is left to move.
    await fs.promises.rename(file, `${file}.damaged-${Date.now()}`).catch(() => undefined);
  }

  async remove(rootId: string): Promise<void> {
    await fs.promises.rm(this.fileOf(rootId), { force: true });
  }

  removeSync(rootId: string): void {
    fs.rmSync(this.fileOf(rootId), { force: true });
  }
}

async function readRecord(file: string): Promise<{ record: LiveRootRecord } | { error: ArborError }> {
  let raw: string;
  try {
    raw = await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    return { error: new ArborError('LIVE_RECORD_UNREADABLE', `The live-state record ${file} could not be read: ${messageOf(err)}.`, { file }) };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    // Not JSON: a record cut short or damaged, said as such.
    return { error: new ArborError('LIVE_RECORD_UNREADABLE', `The live-state record ${file} is cut or damaged (not JSON); its agents were not put back. Resume them from History.`, { file }) };
  }
  const version = (json as { version?: unknown } | null)?.version;
  if (version !== LIVE_RECORD_VERSION) {
    return { error: new ArborError('LIVE_RECORD_UNREADABLE', `The live-state record ${file} has version ${String(version)}, not ${LIVE_RECORD_VERSION}; its agents were not put back. Resume them from History.`, { file }) };
  }
  const parsed = liveRootRecordSchema().safeParse(json);
  if (!parsed.success) {
    return { error: new ArborError('LIVE_RECORD_UNREADABLE', `The live-state record ${file} is damaged (${parsed.error.issues[0]?.message ?? 'it does not fit'}); its agents were not put back. Resume them from History.`, { file }) };
  }
  return { record: parsed.data };
}

function idOf(name: string): string | undefined {
  const stem = name.slice(0, -RECORD_SUFFIX.length);
  if (!/^(?:[a-z0-9_-]|%[0-9A-F]{2})+$/.test(stem)) return undefined;
  try {
    return decodeURIComponent(stem);
  } catch {
    // A stray % escape: not a name this module writes.
    return undefined;
  }
}
