import * as fs from 'node:fs';
import * as path from 'node:path';
import { SESSION_FILE_EXTENSION, sessionFileName } from '../sessions/sessionFileName';

/**
 * The live-state records on disk: `live/<root session file stem>.json` in the sessions folder,
 * one per root live in some window. Each is written whole to a temporary file that is then
 * renamed over it, so a crash leaves the old record or the new one, never half of one. Reading
 * them back is the restore's (liveRecordReading.ts), which loads only when a window restores.
 */
export const LIVE_RECORD_FOLDER = 'live';
export const RECORD_SUFFIX = '.json';
/** The record's shape (liveRecord.ts); a record of another version is not read. */
export const LIVE_RECORD_VERSION = 1;
/** A record as written: any JSON that names its root (liveRecord.ts gives its shape, and is checked where it is read). */
type RootRecord = { readonly root: string; readonly [key: string]: unknown };

/** Each write its own temporary file, so an abandoned one never meets a later one. */
let temporaries = 0;

export class LiveRecordFiles {
  readonly folder: string;

  constructor(sessionsFolder: string) {
    this.folder = path.join(sessionsFolder, LIVE_RECORD_FOLDER);
  }

  fileOf(rootId: string): string {
    return path.join(this.folder, sessionFileName(rootId).slice(0, -SESSION_FILE_EXTENSION.length) + RECORD_SUFFIX);
  }

  /**
   * Writes `record` whole (temporary file, then rename). `wanted` is asked just before the
   * rename: a write the window's last synchronous one has overtaken is dropped, never put over it.
   */
  async write(record: RootRecord, wanted: () => boolean = () => true): Promise<void> {
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
  writeSync(record: RootRecord): void {
    const file = this.fileOf(record.root);
    const temporary = `${file}.${process.pid}-${++temporaries}.tmp`;
    fs.mkdirSync(this.folder, { recursive: true });
    fs.writeFileSync(temporary, JSON.stringify(record), 'utf8');
    fs.renameSync(temporary, file);
  }

  async remove(rootId: string): Promise<void> {
    await fs.promises.rm(this.fileOf(rootId), { force: true });
  }

  removeSync(rootId: string): void {
    fs.rmSync(this.fileOf(rootId), { force: true });
  }
}
