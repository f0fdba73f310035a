import * as fs from 'node:fs';
import * as path from 'node:path';
import { until } from './until';

/** Is `pid` a running process (Linux /proc)? A zombie (exited, not yet reaped) counts as gone. */
export function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

/** The pid a process wrote to `file`, once it has (undefined before). */
export function pidIn(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Ends what a test started, if a failing assertion left it running. */
export function killQuietly(pids: ReadonlyArray<number | undefined>): void {
  for (const pid of pids) {
    if (!pid) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** Waits for a command to have written `count` pids, one a line, to `pids` in the workspace. */
export async function pidsWritten(workspace: string, count: number): Promise<number[]> {
  const file = path.join(workspace, 'pids');
  const read = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : []);
  await until(() => read().length >= count, `${count} pids from the command`, 20_000);
  return read();
}

/** Waits (with a generous deadline, not a timing claim) until none of `pids` runs. */
export async function untilDead(pids: number[]): Promise<void> {
  await until(() => pids.every((pid) => !isRunning(pid)), `processes ${pids.filter(isRunning).join(', ')} to end`, 20_000);
}
