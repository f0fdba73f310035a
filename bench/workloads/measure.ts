/** Clocks, heap and medians shared by the workloads that bench/compare.mjs runs. */

const gc = (globalThis as { gc?: () => void }).gc;

/** The heap in use after two full collections (the workloads run under node --expose-gc). */
export function heapUsed(): number {
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export const now = (): bigint => process.hrtime.bigint();
export const ms = (ns: bigint): number => Number(ns) / 1e6;
export const us = (ns: bigint): number => Number(ns) / 1e3;

/** CPU time (user and system, every thread of the process) since `since`, in ms. */
export function cpuMs(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

/** CPU time between two readings of process.cpuUsage(), in µs. */
export function cpuUs(from: NodeJS.CpuUsage, to: NodeJS.CpuUsage): number {
  return to.user - from.user + (to.system - from.system);
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Waits until `done()` holds, a macrotask at a time, or throws after `seconds`. */
export async function until(done: () => boolean, what: string, seconds = 60): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await tick();
  }
}
