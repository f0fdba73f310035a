import * as fs from 'node:fs';

/**
 * File operations written once, run either way. A write of the session folder (a batch of a
 * log, a rewrite of a lost file, the window's lock file, a read of the folder's names) is a
 * generator of steps; `runAsync` runs it off the event loop for everything the runtime does,
 * `runSync` runs the same steps before returning for the end of the process, where Node's
 * 'exit' handler and extension deactivation cannot wait for a promise.
 *
 * Why steps and not an asynchronous path plus a small exit writer: the exit flush must keep
 * every rule of the asynchronous write (the window lock, exclusive creation, the check that the
 * file is the one the log wrote and its rewrite when it is not, short writes, fsync), so an exit
 * writer of its own would be that write again, kept in step by hand. Here each sequence exists
 * once and only the primitives below differ, side by side.
 *
 * Invariants:
 * - This is the one file of the sessions folder that makes synchronous file-system calls, and
 *   only `runSync` reaches them.
 * - One sequence is run by one driver: a handle opened by one is never handed to the other.
 * - Every call goes through the `fs` module object at the time it runs (tests watch them there).
 * - A failed operation is thrown into the sequence at its step, so its `try`/`finally` (closing
 *   a handle) runs as it would in a plain function.
 */

/** One operation, in both forms. */
interface FileOp {
  sync(): unknown;
  async(): Promise<unknown>;
}

/** A sequence of file operations returning T. */
export type Steps<T> = Generator<FileOp, T, unknown>;

/** An open file: a FileHandle under `runAsync`, a descriptor under `runSync`; only steps use it. */
export type OpenFile = fs.promises.FileHandle | number;

const asHandle = (file: OpenFile): fs.promises.FileHandle => file as fs.promises.FileHandle;
const asFd = (file: OpenFile): number => file as number;

function* step<T>(sync: () => T, async: () => Promise<T>): Steps<T> {
  return (yield { sync, async }) as T;
}

export function runSync<T>(steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) {
    let value: unknown;
    try {
      value = next.value.sync();
    } catch (e) {
      next = steps.throw(e);
      continue;
    }
    next = steps.next(value);
  }
  return next.value;
}

export async function runAsync<T>(steps: Steps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    let value: unknown;
    try {
      value = await next.value.async();
    } catch (e) {
      next = steps.throw(e);
      continue;
    }
    next = steps.next(value);
  }
  return next.value;
}

export const open = (file: string, flags: number | string): Steps<OpenFile> =>
  step(
    (): OpenFile => fs.openSync(file, flags),
    (): Promise<OpenFile> => fs.promises.open(file, flags),
  );

export const close = (file: OpenFile): Steps<void> =>
  step(
    () => fs.closeSync(asFd(file)),
    () => asHandle(file).close(),
  );

export const fstat = (file: OpenFile): Steps<fs.BigIntStats> =>
  step(
    () => fs.fstatSync(asFd(file), { bigint: true }),
    () => asHandle(file).stat({ bigint: true }),
  );

export const fsync = (file: OpenFile): Steps<void> =>
  step(
    () => fs.fsyncSync(asFd(file)),
    () => asHandle(file).sync(),
  );

/** Writes all of `data` at `position`, however few bytes each call takes. */
export const writeAll = (file: OpenFile, data: Buffer, position: number): Steps<void> =>
  step(
    () => {
      let written = 0;
      while (written < data.length) written += fs.writeSync(asFd(file), data, written, data.length - written, position + written);
    },
    () => writeAllAsync(asHandle(file), data, position),
  );

async function writeAllAsync(handle: fs.promises.FileHandle, data: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < data.length) written += (await handle.write(data, written, data.length - written, position + written)).bytesWritten;
}

/** The first `length` bytes of an open file, fewer if it holds fewer. */
export const readStart = (file: OpenFile, length: number): Steps<Buffer> =>
  step(
    () => {
      const found = Buffer.alloc(length);
      let read = 0;
      for (let n = -1; n !== 0 && read < length; read += n) n = fs.readSync(asFd(file), found, read, length - read, read);
      return found.subarray(0, read);
    },
    async () => {
      const found = Buffer.alloc(length);
      let read = 0;
      for (let n = -1; n !== 0 && read < length; read += n) n = (await asHandle(file).read(found, read, length - read, read)).bytesRead;
      return found.subarray(0, read);
    },
  );

/** What `statWhileWriting` learned: the file's stat if it was read, and the first failure. */
export interface StatAndWrite {
  stat?: fs.BigIntStats;
  failed: boolean;
  error?: unknown;
}

/**
 * The stat of a file just created, and `data` written into it: asynchronously both at once
 * (the first write of a session costs one round trip less), synchronously one after the other.
 * A failure of the stat comes first.
 */
export const statWhileWriting = (file: OpenFile, data: Buffer, position: number): Steps<StatAndWrite> =>
  step(
    () => {
      let stat: fs.BigIntStats;
      try {
        stat = fs.fstatSync(asFd(file), { bigint: true });
      } catch (error) {
        return { failed: true, error };
      }
      try {
        runSync(writeAll(file, data, position));
      } catch (error) {
        return { stat, failed: true, error };
      }
      return { stat, failed: false };
    },
    async () => {
      const [stat, written] = await Promise.allSettled([asHandle(file).stat({ bigint: true }), writeAllAsync(asHandle(file), data, position)]);
      const result: StatAndWrite = { failed: false };
      if (stat.status === 'fulfilled') result.stat = stat.value;
      if (stat.status === 'rejected') return { ...result, failed: true, error: stat.reason };
      if (written.status === 'rejected') return { ...result, failed: true, error: written.reason };
      return result;
    },
  );

export const stat = (file: string): Steps<fs.BigIntStats> =>
  step(
    () => fs.statSync(file, { bigint: true }),
    () => fs.promises.stat(file, { bigint: true }),
  );

/** Whether something is at `file` (a link counts by what it points to). */
export const exists = (file: string): Steps<boolean> =>
  step(
    () => fs.existsSync(file),
    () => fs.promises.access(file).then(
      () => true,
      () => false,
    ),
  );

/** Creates `folder` and its missing parents. */
export const mkdir = (folder: string): Steps<void> =>
  step(
    () => void fs.mkdirSync(folder, { recursive: true }),
    async () => void (await fs.promises.mkdir(folder, { recursive: true })),
  );

export const rename = (from: string, to: string): Steps<void> =>
  step(
    () => fs.renameSync(from, to),
    () => fs.promises.rename(from, to),
  );

/** Removes `file`; nothing there is no failure. */
export const rm = (file: string): Steps<void> =>
  step(
    () => fs.rmSync(file, { force: true }),
    () => fs.promises.rm(file, { force: true }),
  );

/** Removes an empty folder. */
export const rmdir = (folder: string): Steps<void> =>
  step(
    () => fs.rmdirSync(folder),
    () => fs.promises.rmdir(folder),
  );

export const writeFile = (file: string, data: string | Buffer): Steps<void> =>
  step(
    () => fs.writeFileSync(file, data),
    () => fs.promises.writeFile(file, data),
  );

export const readText = (file: string): Steps<string> =>
  step(
    () => fs.readFileSync(file, 'utf8'),
    () => fs.promises.readFile(file, 'utf8'),
  );

export const readdir = (folder: string): Steps<string[]> =>
  step(
    () => fs.readdirSync(folder),
    () => fs.promises.readdir(folder),
  );
