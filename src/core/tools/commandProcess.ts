import { spawn, type ChildProcess } from 'node:child_process';
import { rootOf, signalProcesses, type FoundProcesses, type ProcessRoot } from '../processTree';

/**
 * The process of one run_command call (runCommand.ts decides whether, where and in which sandbox
 * it runs), part of the processes part (src/core/processes.ts), loaded by the first command that runs.
 */

const MAX_OUTPUT = 64 * 1024;

/** How a command is started: a shell line (`shell`), or a program and its arguments (the sandbox's). */
export interface CommandStart {
  program: string;
  args: string[];
  shell: boolean;
  /** The whole environment, carrying `tag` (see processTree). */
  env: Record<string, string>;
  tag: string;
}

export interface CommandOutcome {
  status: 'exited' | 'timed-out' | 'failed-to-start';
  exit_code: number | null;
  signal: string | null;
  output: string;
  truncated: boolean;
  /** Set when processes the command left behind had to be stopped for the tool to return. */
  note?: string;
}

/** Between SIGTERM and SIGKILL; also how long output may keep flowing after the shell exits. */
export const KILL_GRACE_MS = 2_000;

/**
 * Runs `command` in a shell in its own process group and settles within `timeoutMs` plus two
 * grace periods whatever the command does:
 * - on timeout or abort, the whole group and every process still attached to the shell's tree
 *   get SIGTERM, then SIGKILL after the grace, so a command that traps SIGTERM cannot outlive it;
 * - when the shell has exited but something it started keeps the output pipe open, that is
 *   stopped the same way after the grace, and the pipe is closed on our side;
 * - an abort rejects at once (the turn ends), while the termination finishes in the background.
 * "Every process" is what processTree.ts finds: the tree, the group and session, and whatever
 * carries the command's tag in its environment, so a process that a subshell moved to a session
 * of its own (`(setsid cmd &)`) is ended too. Limit: one that also started with a cleared
 * environment cannot be found; its output is no longer read and the tool still returns. A
 * sandboxed command has no such limit: its processes live in a PID namespace of their own, and
 * all of them end when its first process (bubblewrap's) does.
 */
export function execute(start: CommandStart, cwd: string, timeoutMs: number, signal: AbortSignal): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const { tag } = start;
    const child = spawn(start.program, start.args, { cwd, shell: start.shell, env: start.env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
    const root = rootOf(child.pid, tag);
    let output = '';
    let truncated = false;
    let timedOut = false;
    let leftovers = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let terminating = false;
    let drain: NodeJS.Timeout | undefined;
    let escalation: NodeJS.Timeout | undefined;
    const collect = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.length > MAX_OUTPUT) {
        output = output.slice(output.length - MAX_OUTPUT);
        truncated = true;
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);

    const settle = (): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      clearTimeout(timeout);
      if (signal.aborted) return reject(signal.reason);
      const outcome: CommandOutcome = { status: timedOut ? 'timed-out' : 'exited', exit_code: exit?.code ?? null, signal: exit?.signal ?? null, output, truncated };
      if (leftovers) outcome.note = 'Processes the command left running kept its output open; they were stopped.';
      resolve(outcome);
    };

    /** SIGTERM now, SIGKILL after the grace, to every process of the command. */
    const terminate = (): void => {
      if (terminating) return;
      terminating = true;
      const known = signalAll(child, root, 'SIGTERM');
      // Runs even when the pipes close first: a process that trapped SIGTERM and closed its
      // output must not outlive the command either.
      escalation = setTimeout(() => {
        signalAll(child, root, 'SIGKILL', known);
        // Whatever still holds the pipe is gone or out of reach: stop reading and return.
        child.stdout.destroy();
        child.stderr.destroy();
        settle();
      }, KILL_GRACE_MS);
    };

    const timeout = setTimeout(() => {
      timedOut = true;
      terminate();
    }, timeoutMs);
    const onAbort = (): void => {
      terminate();
      settle();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout);
      clearTimeout(drain);
      clearTimeout(escalation);
      signal.removeEventListener('abort', onAbort);
      resolve({ status: 'failed-to-start', exit_code: null, signal: null, output: err.message, truncated: false });
    });
    child.on('exit', (code, sig) => {
      exit = { code, signal: sig };
      // The shell is done; output still flowing after the grace comes from processes it left.
      drain = setTimeout(() => {
        if (settled || terminating) return;
        leftovers = true;
        terminate();
      }, KILL_GRACE_MS);
    });
    child.on('close', () => {
      clearTimeout(drain);
      settle();
    });
  });
}

/** The command's processes (see processTree.ts); on Windows the shell alone. */
function signalAll(child: ChildProcess, root: ProcessRoot, sig: NodeJS.Signals, known?: FoundProcesses): FoundProcesses {
  if (process.platform === 'win32') child.kill(sig);
  return signalProcesses(root, sig, known);
}
