import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError, messageOf } from '../errors';
import { liveRootRecordSchema, type LiveRootRecord } from './liveRecord';
import { isLiveRecordAtAGlance } from './liveRecordFastCheck';
import { LIVE_RECORD_VERSION, RECORD_SUFFIX, type LiveRecordFiles } from './liveRecordFiles';

/**
 * Reading the live-state records back (the restore's part): every record in the folder, checked
 * with the record's schema. A record cut or damaged (a full disk, someone's editor) is a
 * problem of its own root, named by its file, and the others are read as usual.
 */

/** A record that could not be used: the root it names (when the file name says) and why. */
export interface LiveRecordProblem {
  readonly sessionId?: string;
  readonly file: string;
  readonly error: ArborError;
}

/** Every record in the folder; never throws (a folder that is not there holds none). */
export async function readLiveRecords(files: LiveRecordFiles): Promise<{ records: LiveRootRecord[]; problems: LiveRecordProblem[] }> {
  let names: string[];
  try {
    names = await fs.promises.readdir(files.folder);
  } catch {
    // No folder yet: no window has recorded a live root here.
    return { records: [], problems: [] };
  }
  const records: LiveRootRecord[] = [];
  const problems: LiveRecordProblem[] = [];
  const read = names.filter((n) => n.endsWith(RECORD_SUFFIX)).map(async (name) => {
    const file = path.join(files.folder, name);
    const result = await readRecord(file);
    if ('record' in result) records.push(result.record);
    else problems.push({ sessionId: idOf(name), file, error: result.error });
  });
  await Promise.all(read);
  return { records, problems };
}

/** Moves a record that could not be used out of the way (kept beside, never read again), so it is reported once. */
export async function setAside(file: string): Promise<void> {
  // Gone already (another window set it aside): nothing is left to move.
  await fs.promises.rename(file, `${file}.damaged-${Date.now()}`).catch(() => undefined);
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
  // The quick check accepts only what the schema accepts; anything else is the schema's to decide and explain.
  if (isLiveRecordAtAGlance(json)) return { record: json };
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
