import * as fs from 'node:fs';
import * as path from 'node:path';
import { until } from './runtimeFixture';

/** Processes that tests start on purpose and must see end: read from /proc (Linux). */

/** Whether `pid` runs (a zombie counts as ended: nothing reaps orphans on some machines). */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Waits for the command to have written `count` pids to `pids` in the workspace. */
export async function pidsWritten(workspace: string, count: number): Promise<number[]> {
  const file = path.join(workspace, 'pids');
  const read = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : []);
  await until(() => read().length >= count, `${count} pids from the command`, 20_000);
  return read();
}

/** Waits (with a generous deadline, not a timing claim) until none of `pids` runs. */
export async function untilDead(pids: number[]): Promise<void> {
  await until(() => pids.every((pid) => !alive(pid)), `processes ${pids.filter(alive).join(', ')} to end`, 20_000);
}

/** Kills what a test left running on purpose (the documented limit), so nothing outlives it. */
export function cleanup(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

