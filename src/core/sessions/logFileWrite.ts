import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError } from '../errors';
import { close, fstat, fsync, mkdir, open, rename, rm, stat, statWhileWriting, writeAll, type OpenFile, type Steps } from './fileSteps';
import { withChecksum } from './lineChecksum';
import type { SessionEvent, SessionHeader } from './types';

/**
 * How one batch of a session log reaches its file, written once as steps (see fileSteps) and
 * run asynchronously by the log's writes and synchronously by its exit flush.
 *
 * Invariants:
 * - A new file is created exclusively (O_EXCL, its folder made if missing): a file someone else
 *   created at the path fails the write with SESSION_EXISTS and is never written into.
 * - Before a batch is written at its offset, the file is checked to be the one the log wrote
 *   (same device and inode) holding exactly the bytes before that offset; a file deleted,
 *   replaced, cut or grown is written again whole from the log's events, to a temporary file
 *   moved over the path in one step, and reported as SESSION_FILE_LOST.
 * - A write that is no longer current (the synchronous flush overtook it) writes nothing more,
 *   and a rewrite it made is dropped with its temporary file.
 * - Every handle opened is closed, whatever failed.
 */

/** Which file a log writes: a replaced or recreated file at the same path is not it. */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
}

/** What a batch write asks of its log, read when each step needs it. */
export interface BatchWrite {
  file: string;
  sessionId: string;
  /** The file this log wrote, once known. */
  identity(): FileIdentity | undefined;
  /** The file's identity, learned by the write. */
  learned(identity: FileIdentity): void;
  /** False once the write is superseded. */
  current(): boolean;
  /** Whether this write is fsynced. */
  syncs(): boolean;
  /** Whether a rewritten file is fsynced. */
  fsyncRewrite: boolean;
  /** The file as this batch should leave it: the header and every event up to its last line. */
  wholeFile(): Buffer;
  /** The file was written again whole, because of `why`. */
  restored(why: string): void;
}

/** Writes `data` at `offset`; returns the file's length after it, or undefined when superseded. */
export function* writeBatchSteps(w: BatchWrite, data: Buffer, offset: number): Steps<number | undefined> {
  const known = w.identity();
  let file: OpenFile;
  if (known) {
    try {
      file = yield* open(w.file, fs.constants.O_WRONLY);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      return yield* rewriteSteps(w, 'it was deleted');
    }
  } else {
    file = yield* openExclusive(w.file, w.sessionId);
  }
  let lost: string | undefined;
  try {
    if (!known) {
      // Just created here, empty: nothing to check before writing, so its identity (for the
      // checks of later writes) is read while the first batch is written.
      const first = yield* statWhileWriting(file, data, offset);
      if (first.stat) w.learned({ dev: first.stat.dev, ino: first.stat.ino });
      if (first.failed) throw first.error;
      if (w.syncs()) yield* fsync(file);
    } else {
      const now = yield* fstat(file);
      lost = lostBecause(now, w.identity() ?? known, offset);
      if (lost === undefined) {
        if (!w.current()) return undefined;
        yield* writeAll(file, data, offset);
        if (w.syncs()) yield* fsync(file);
      }
    }
  } finally {
    yield* close(file);
  }
  return lost === undefined ? offset + data.length : yield* rewriteSteps(w, lost);
}

/** The file is not the one the log wrote: write it whole beside it and move that over the path. */
function* rewriteSteps(w: BatchWrite, why: string): Steps<number | undefined> {
  const data = w.wholeFile();
  const temp = tempNameFor(w.file);
  yield* mkdir(path.dirname(w.file));
  const file = yield* open(temp, 'wx');
  try {
    yield* writeAll(file, data, 0);
    if (w.fsyncRewrite) yield* fsync(file);
  } finally {
    yield* close(file);
  }
  if (!w.current()) {
    yield* rm(temp);
    return undefined;
  }
  yield* rename(temp, w.file);
  const moved = yield* stat(w.file);
  w.learned({ dev: moved.dev, ino: moved.ino });
  w.restored(why);
  return data.length;
}

const EXCLUSIVE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL;

/** Creates a session file that must not exist yet (and its folder if needed). */
function* openExclusive(file: string, id: string): Steps<OpenFile> {
  try {
    try {
      return yield* open(file, EXCLUSIVE);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      yield* mkdir(path.dirname(file));
      return yield* open(file, EXCLUSIVE);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new ArborError('SESSION_EXISTS', `Session ${id} already exists; resume it or choose a new id.`, { id });
    }
    throw e;
  }
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

/** A whole session file: the header and `events`, one checksummed line each. */
export function sessionFileBytes(header: SessionHeader, events: readonly SessionEvent[]): Buffer {
  const parts = [withChecksum(JSON.stringify(header))];
  for (const event of events) parts.push(withChecksum(JSON.stringify(event)));
  return Buffer.from(parts.join('\n') + '\n', 'utf8');
}
