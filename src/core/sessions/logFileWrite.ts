import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError, errnoOf, isArborError } from '../errors';
import { close, fstat, fsync, mkdir, open, readStart, rename, rm, stat, statWhileWriting, writeAll, type OpenFile, type Steps } from './fileSteps';

/**
 * How one batch of a session log reaches its file, written once as steps (see fileSteps) and
 * run asynchronously by the log's writes and synchronously by its exit flush.
 *
 * Invariants:
 * - A new file is created exclusively (O_EXCL, its folder made if missing): a file someone else
 *   created at the path fails the write with SESSION_EXISTS and is never written into. The one
 *   exception is the file the log's own create made before the log heard so (see openNewFile).
 * - Before a batch is written at its offset, the file is checked to be the one the log wrote
 *   (same device and inode) holding exactly the bytes before that offset; a file deleted,
 *   replaced, cut or grown is written again whole from the log's events, to a temporary file
 *   moved over the path in one step, and reported as SESSION_FILE_LOST.
 * - A new file's identity is read while its first batch is written, except when that batch is
 *   the log's last (it is closing and the batch holds every line): no later write has to tell
 *   its file from another, and a one-shot subagent's session costs one file operation less. Should
 *   a write follow after all, it takes the file at the path as the log's own when it holds
 *   exactly the bytes written, and reads its identity then.
 * - A write that is no longer current (the synchronous flush overtook it) writes nothing more,
 *   and a rewrite it made is dropped with its temporary file.
 * - Every handle opened is closed, whatever failed.
 */

/** Which file a log writes: a replaced or recreated file at the same path is not it. */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
}

/** What the write steps ask of the log whose file they write, read when each step needs it. */
export interface LogFile {
  readonly file: string;
  readonly sessionId: string;
  /** The file this log wrote, once known. */
  fileIdentity(): FileIdentity | undefined;
  /** The file's identity, learned by a write. */
  learned(identity: FileIdentity): void;
  /** Whether the log created its file and wrote it without reading its identity (its last write, as it seemed). */
  createdUnseen(): boolean;
  /** The log's first batch was written into the file it created, its identity not read. */
  wroteUnseen(): void;
  /** Whether the batch ending before line `linesUpTo` is the last the log writes: it is closing and nothing else waits. */
  isLastWrite(linesUpTo: number): boolean;
  /** Whether the write being made now is fsynced (`rewrite`: a lost file written again whole). */
  syncs(rewrite: boolean): boolean;
  /** The file as it should be with its first `lines` lines: the header and the events before. */
  wholeFile(lines: number): Buffer;
  /** The file was written again whole, because of `why`. */
  restored(why: string): void;
}

/** One batch: its bytes, the offset they go to, and how many lines the file holds after them. */
export interface BatchBytes {
  data: Buffer;
  offset: number;
  linesUpTo: number;
}

/**
 * Writes a batch; returns the file's length after it, or undefined when it is superseded
 * (`current()` turned false: the synchronous flush wrote it meanwhile).
 */
export function* writeBatchSteps(w: LogFile, batch: BatchBytes, current: () => boolean): Steps<number | undefined> {
  const { data, offset } = batch;
  const known = w.fileIdentity();
  // A file this log created without reading its identity is reopened like a known one.
  const exists = known !== undefined || w.createdUnseen();
  let file: OpenFile;
  if (exists) {
    try {
      file = yield* open(w.file, fs.constants.O_WRONLY);
    } catch (e) {
      if (errnoOf(e) !== 'ENOENT') throw e;
      // Superseded (the synchronous flush wrote it): the file is not this write's to put back.
      if (!current()) return undefined;
      return yield* rewriteSteps(w, batch, current, 'it was deleted');
    }
  } else {
    file = yield* openNewFile(w, data);
  }
  let lost: string | undefined;
  try {
    if (!exists) {
      // The synchronous flush took the file this create made and wrote it meanwhile.
      if (!current()) return undefined;
      if (w.isLastWrite(batch.linesUpTo)) {
        yield* writeAll(file, data, offset);
        w.wroteUnseen();
      } else {
        // Just created here, empty: nothing to check before writing, so its identity (for the
        // checks of later writes) is read while the first batch is written.
        const first = yield* statWhileWriting(file, data, offset);
        if (first.stat) {
          w.learned({ dev: first.stat.dev, ino: first.stat.ino });
          createHeard(w);
        }
        if (first.failed) throw first.error;
      }
      if (w.syncs(false)) yield* fsync(file);
    } else {
      const now = yield* fstat(file);
      // Without an identity read before, the file at the path is the log's when it holds exactly what was written.
      const identity = w.fileIdentity() ?? { dev: now.dev, ino: now.ino };
      // Superseded meanwhile: what the file holds now is the synchronous flush's, not a loss to repair.
      if (!current()) return undefined;
      lost = lostBecause(now, identity, offset);
      if (lost === undefined) {
        if (!w.fileIdentity()) w.learned(identity);
        yield* writeAll(file, data, offset);
        if (w.syncs(false)) yield* fsync(file);
      }
    }
  } finally {
    yield* close(file);
  }
  return lost === undefined ? offset + data.length : yield* rewriteSteps(w, batch, current, lost);
}

/** The file is not the one the log wrote: write it whole beside it and move that over the path. */
function* rewriteSteps(w: LogFile, batch: BatchBytes, current: () => boolean, why: string): Steps<number | undefined> {
  const data = w.wholeFile(batch.linesUpTo);
  const temp = tempNameFor(w.file);
  yield* mkdir(path.dirname(w.file));
  const file = yield* open(temp, 'wx');
  try {
    yield* writeAll(file, data, 0);
    if (w.syncs(true)) yield* fsync(file);
  } finally {
    yield* close(file);
  }
  if (!current()) {
    yield* rm(temp);
    return undefined;
  }
  yield* rename(temp, w.file);
  const moved = yield* stat(w.file);
  w.learned({ dev: moved.dev, ino: moved.ino });
  w.restored(why);
  return data.length;
}

/**
 * The session files of this process whose exclusive create a log has asked and not yet heard
 * back from (the open may have run, its result not delivered), each with that log: only that
 * log may take such a file as its own before it knows the file's identity. One process can hold
 * several stores of one folder (one abandoned at deactivation, a test's), whose locks do not
 * keep each other out.
 */
const creatingFiles = new Map<string, LogFile>();

/** The log's create has answered, or the log is let go: its file is no longer one being created. */
export function createHeard(w: LogFile): void {
  if (creatingFiles.get(w.file) === w) creatingFiles.delete(w.file);
}

/**
 * Creates the file of a new session for its first batch (`data`, from offset 0). An earlier
 * create of the same log may still be unanswered: a window closing a moment after an agent
 * started runs the synchronous flush while the asynchronous write's exclusive open has made
 * the file but not yet returned. Refusing that file as someone else's would leave the log
 * unwritten and still open at deactivation, its later events landing in a session another
 * window may have resumed. So an existing file counts as the log's own when its own earlier
 * create is the only one in this process that may have made it (no other window writes the
 * session: the log holds its lock) and the file holds nothing but the start of `data` (the
 * header with its timestamp, then the same lines): at most an empty file left by someone else
 * is taken, which holds no session. Any other is SESSION_EXISTS.
 */
function* openNewFile(w: LogFile, data: Buffer): Steps<OpenFile> {
  const earlierCreate = creatingFiles.get(w.file) === w;
  if (!creatingFiles.has(w.file)) creatingFiles.set(w.file, w);
  try {
    return yield* openExclusive(w.file, w.sessionId);
  } catch (e) {
    // A create that fails made no file; an earlier one of this log is still unanswered.
    if (!earlierCreate) createHeard(w);
    if (!earlierCreate || !isArborError(e, 'SESSION_EXISTS')) throw e;
  }
  const file = yield* open(w.file, fs.constants.O_RDWR);
  let own = false;
  try {
    const size = Number((yield* fstat(file)).size);
    own = size <= data.length && (yield* readStart(file, size)).equals(data.subarray(0, size));
  } finally {
    if (!own) yield* close(file);
  }
  if (!own) throw sessionExists(w.sessionId);
  return file;
}

const EXCLUSIVE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL;

/** Creates a session file that must not exist yet (and its folder if needed). */
function* openExclusive(file: string, id: string): Steps<OpenFile> {
  try {
    try {
      return yield* open(file, EXCLUSIVE);
    } catch (e) {
      if (errnoOf(e) !== 'ENOENT') throw e;
      yield* mkdir(path.dirname(file));
      return yield* open(file, EXCLUSIVE);
    }
  } catch (e) {
    if (errnoOf(e) === 'EEXIST') throw sessionExists(id);
    throw e;
  }
}

function sessionExists(id: string): ArborError {
  return new ArborError('SESSION_EXISTS', `Session ${id} already exists; resume it or choose a new id.`, { id });
}

/** Why the file at the path is not the file the log wrote, or undefined if it is. */
function lostBecause(now: fs.BigIntStats, identity: FileIdentity, expectedSize: number): string | undefined {
  if (now.ino !== identity.ino || now.dev !== identity.dev) return 'it was replaced by another file';
  if (now.size !== BigInt(expectedSize)) {
    return now.size < BigInt(expectedSize) ? `it was cut to ${now.size} bytes` : `something else wrote to it (${now.size} bytes where ${expectedSize} were expected)`;
  }
  return undefined;
}

/** A name beside `file` that the catalog never lists (it does not end in `.jsonl`). */
function tempNameFor(file: string): string {
  return `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}
