import * as path from 'node:path';
import * as fs from 'node:fs';
import nodeFs = require('node:fs');

// File handles the session log's async writer opens, watched or held by a test through
// fs.promises.open. Each helper wraps the handles opened from its call on; `restore` stops it.

/** Wraps every file handle the async writer opens: counts syncs, cuts writes into pieces, fails writes. */
export function watchHandles(options: { chunk?: number; failWrite?: NodeJS.ErrnoException; failStat?: NodeJS.ErrnoException; under: string }) {
  const original = fs.promises.open;
  const counts = { opened: 0, closed: 0, synced: 0, writes: 0 };
  // Only the test's own folder: a write another test left in flight must not be counted or failed.
  const mine = (file: unknown): boolean => typeof file === 'string' && path.resolve(file).startsWith(path.resolve(options.under) + path.sep);
  fs.promises.open = (async (...args: Parameters<typeof original>) => {
    const handle = await original(...args);
    if (!mine(args[0])) return handle;
    counts.opened++;
    const sync = handle.sync.bind(handle);
    const close = handle.close.bind(handle);
    handle.close = async () => {
      counts.closed++;
      return close();
    };
    const write = handle.write.bind(handle) as (b: Buffer, o: number, l: number, p: number) => Promise<{ bytesWritten: number; buffer: Buffer }>;
    const stat = handle.stat.bind(handle);
    handle.stat = (async (...args: Parameters<typeof stat>) => {
      if (options.failStat) throw options.failStat;
      return stat(...args);
    }) as typeof handle.stat;
    handle.sync = async () => {
      counts.synced++;
      return sync();
    };
    handle.write = (async (buffer: Buffer, offset: number, length: number, position: number) => {
      counts.writes++;
      if (options.failWrite) throw options.failWrite;
      // Checked as the real write checks it, then cut to the chunk.
      if (offset + length > buffer.length) throw new RangeError(`offset ${offset} and length ${length} outside a buffer of ${buffer.length}`);
      return write(buffer, offset, Math.min(length, options.chunk ?? length), position);
    }) as typeof handle.write;
    return handle;
  });
  return { counts, restore: () => (fs.promises.open = original) };
}

/**
 * Holds the close of every file handle the async writer opens from now on: `asked` resolves when
 * a write reaches its close, which waits for `release`. `restore` stops wrapping new handles.
 */
export function holdCloses() {
  const original = fs.promises.open;
  let release: () => void = () => undefined;
  const closing = new Promise<void>((resolve) => (release = resolve));
  let closeAsked: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (closeAsked = resolve));
  fs.promises.open = (async (...args: Parameters<typeof original>) => {
    const handle = await original(...args);
    const close = handle.close.bind(handle);
    handle.close = async () => {
      closeAsked();
      await closing;
      return close();
    };
    return handle;
  });
  return { asked, release: () => release(), restore: () => (fs.promises.open = original) };
}

/**
 * Holds the first open of `file` by the async writer after the open itself has happened (a file
 * it creates exists on disk) and before the writer hears of it: `opened` resolves then, the
 * writer goes on at `release`, and `closed` resolves once it has closed that handle. `restore`
 * stops watching new opens.
 */
export function holdOpenOf(file: string) {
  const original = fs.promises.open;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let markOpened: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (markOpened = resolve));
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  let held = false;
  fs.promises.open = (async (...args: Parameters<typeof original>) => {
    const handle = await original(...args);
    if (held || args[0] !== file) return handle;
    held = true;
    const close = handle.close.bind(handle);
    handle.close = async () => {
      await close();
      markClosed();
    };
    markOpened();
    await released;
    return handle;
  });
  return { opened, closed, release: () => release(), restore: () => (fs.promises.open = original) };
}

/**
 * Holds, before they happen, every open of a file whose name starts with `prefix` (many files,
 * as a fan-out's), until `release`; `state.held` counts the opens held so far.
 */
export function holdOpensOf(prefix: string) {
  const original = fs.promises.open;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const state = { held: 0 };
  fs.promises.open = (async (...args: Parameters<typeof original>) => {
    if (typeof args[0] === 'string' && path.basename(args[0]).startsWith(prefix)) {
      state.held++;
      await released;
    }
    return original(...args);
  });
  return { state, release: () => release(), restore: () => (fs.promises.open = original) };
}

/** Counts the synchronous fsyncs (the flush at exit) from now on; `restore` puts fs.fsyncSync back. */
export function countSyncFsyncs() {
  const original = nodeFs.fsyncSync;
  const counter = { count: 0, restore: () => void (nodeFs.fsyncSync = original) };
  nodeFs.fsyncSync = (fd: number) => {
    counter.count++;
    original(fd);
  };
  return counter;
}
