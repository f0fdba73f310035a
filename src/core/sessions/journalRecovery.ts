import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { errnoOf, isArborError } from '../errors';
import { once } from '../once';
import type { FilePool } from './filePool';
import { sessionFileName } from './sessionFileName';
import { JOURNAL_FOLDER, JOURNAL_SUFFIX } from './journalSeat';
import type { WindowLock } from './sessionLock';
import { HOST, isProcessAlive } from './windowFiles';

/**
 * Writes out the journals of windows whose process is gone (sessionJournal.ts): every session a
 * crashed window had only in its journal gets its file, so History lists it and it can be
 * resumed. A store runs this once, when it is made, and reads the folder back only after it.
 *
 * Invariants:
 * - Only a journal whose process is gone is read (same host, pid not alive; the first line names
 *   them, else the file's name): a live window's journal is that window's, and another host's
 *   process cannot be checked from here.
 * - Each session is taken with this window's lock before its file is touched, so two windows
 *   recovering one journal never write one file; a session another window holds is left to it,
 *   and the journal is then kept for a later store to finish.
 * - A session's file is made from its records in order (each written at its offset, a record at
 *   an offset replacing what followed it), never written into past what the journal gives:
 *   a missing file is created exclusively; a file that holds a start of those bytes (the crashed
 *   window had created it, not yet with every line) is completed; any other is left as it is.
 * - A record that cannot be parsed, or whose bytes are not all there, is the torn end of the last
 *   append: it and what follows name nothing.
 */

const journalHeaderSchema = once(() => z.object({ pid: z.number().int(), host: z.string(), owner: z.string() }));
const journalRecordSchema = once(() => z.object({ id: z.string().min(1), at: z.number().int().min(0), bytes: z.number().int().min(0) }));

/** Recovers every journal of a gone process in `root`'s journal folder. */
export async function recoverJournals(root: string, lock: WindowLock, pool: FilePool): Promise<void> {
  const folder = path.join(root, JOURNAL_FOLDER);
  let names: string[];
  try {
    names = await fs.promises.readdir(folder);
  } catch (e) {
    // No journal, or no session folder at all (its writes report that).
    if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR') return;
    throw e;
  }
  for (const name of names.sort()) {
    if (name.endsWith(JOURNAL_SUFFIX)) await recoverJournal(root, path.join(folder, name), lock, pool);
  }
  // The folder goes with the last journal (a live window's keeps it).
  await fs.promises.rmdir(folder).catch(() => undefined);
}

async function recoverJournal(root: string, file: string, lock: WindowLock, pool: FilePool): Promise<void> {
  let text: Buffer;
  try {
    text = await pool.run(() => fs.promises.readFile(file));
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return; // recovered by another window meanwhile
    throw e;
  }
  const firstLine = text.indexOf(0x0a);
  const header = parsed(journalHeaderSchema(), firstLine < 0 ? undefined : text.subarray(0, firstLine).toString('utf8'));
  const pid = header?.pid ?? Number(/^window-(\d+)-/.exec(path.basename(file))?.[1]);
  if ((header !== undefined && header.host !== HOST) || !Number.isInteger(pid) || pid === process.pid || isProcessAlive(pid)) return;
  const sessions = [...sessionsOf(text, firstLine + 1)];
  // Claimed together: one write of the lock file for all of them.
  const claims = await Promise.allSettled(sessions.map(([id]) => claimOnceFree(lock, id)));
  let kept = false;
  const writes = sessions.map(async ([id, content], i) => {
    const claim = claims[i];
    if (claim.status === 'rejected') {
      if (!isArborError(claim.reason, 'SESSION_IN_USE')) throw claim.reason;
      kept = true; // another window has it: it was recovered there, or is being now
      return;
    }
    try {
      await pool.run(() => completeFile(path.join(root, sessionFileName(id)), content));
    } finally {
      await lock.release(id);
    }
  });
  const written = await Promise.allSettled(writes);
  const failed = written.find((w): w is PromiseRejectedResult => w.status === 'rejected');
  if (failed) throw failed.reason;
  if (!kept) await fs.promises.rm(file, { force: true });
}

/**
 * The session's lock for this window. Another window that opened the folder at the same moment
 * may be writing it out right now: its hold ends when the file is written, so it is waited for
 * (a short while) rather than listed as missing; a hold that lasts is a live window's own.
 */
async function claimOnceFree(lock: WindowLock, id: string): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      return await lock.claim(id);
    } catch (err) {
      if (!isArborError(err, 'SESSION_IN_USE') || tries >= 40) throw err;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

function parsed<T>(schema: z.ZodType<T>, line: string | undefined): T | undefined {
  if (!line) return undefined;
  try {
    const result = schema.safeParse(JSON.parse(line));
    return result.success ? result.data : undefined;
  } catch {
    return undefined; // not JSON: the torn end of the last append names nothing
  }
}

/** Each session's file as the journal's records (from byte `start`) make it, in the order they were written. */
function sessionsOf(journal: Buffer, start: number): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (let at = start; at < journal.length; ) {
    const end = journal.indexOf(0x0a, at);
    const record = end < 0 ? undefined : parsed(journalRecordSchema(), journal.subarray(at, end).toString('utf8'));
    // The torn end of the last append: what it names did not land.
    if (!record || end + 1 + record.bytes > journal.length) break;
    const data = journal.subarray(end + 1, end + 1 + record.bytes);
    at = end + 1 + record.bytes;
    const before = files.get(record.id) ?? Buffer.alloc(0);
    // A record past the end would leave a hole: what follows a gap is not this session's file.
    if (record.at > before.length) continue;
    files.set(record.id, Buffer.concat([before.subarray(0, record.at), data]));
  }
  return files;
}

/** Creates `file` with `content`, or completes a file that holds a start of it; leaves any other. */
async function completeFile(file: string, content: Buffer): Promise<void> {
  let handle: fs.promises.FileHandle;
  let from = 0;
  try {
    handle = await fs.promises.open(file, 'wx');
  } catch (e) {
    if (errnoOf(e) !== 'EEXIST') throw e;
    const existing = await fs.promises.readFile(file);
    if (existing.length >= content.length || !content.subarray(0, existing.length).equals(existing)) return;
    handle = await fs.promises.open(file, 'r+');
    from = existing.length;
  }
  try {
    while (from < content.length) from += (await handle.write(content, from, content.length - from, from)).bytesWritten;
  } finally {
    await handle.close();
  }
}
