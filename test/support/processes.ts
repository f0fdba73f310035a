import * as fs from 'node:fs';

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
