import { spawn, type ChildProcess } from 'node:child_process';
import { ArborError } from '../errors';
import { processesPart } from '../parts';
import type { ProcessRoot } from '../processTree';
import type { SandboxLaunch } from '../sandbox';
import { OutputTail } from './outputTail';

/** The most output one terminal keeps (its tail) when the agent names no limit. */
export const DEFAULT_TERMINAL_OUTPUT = 256 * 1024;
/** The most output one terminal keeps whatever limit the agent names: Arbor's own cap. */
export const MAX_TERMINAL_OUTPUT = 1024 * 1024;
const KILL_GRACE_MS = 2_000;

interface Terminal {
  child: ChildProcess;
  /** The command's process and the tag everything it starts inherits (see processTree). */
  root: ProcessRoot;
  output: OutputTail;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
  exitStatus: { exitCode: number | null; signal: string | null } | undefined;
  /** The sandbox it runs in, when it does. */
  launch?: SandboxLaunch;
}

/**
 * The terminals an external agent runs commands in (`terminal/*`): each command in a process
 * group of its own, tagged like Arbor's own commands so that killing it also ends what it moved
 * to a session of its own (setsid), its output kept up to the agent's byte limit but never more than
 * MAX_TERMINAL_OUTPUT (the tail, cut at a character boundary as ACP asks), killed with its whole
 * group. Keeping output costs time in proportion to the bytes received and memory in proportion
 * to the limit, however much the command prints. Every terminal ends when the agent ends
 * (`disposeAll`). Approval is decided by the caller before `create`.
 */
export class TerminalSet {
  private readonly terminals = new Map<string, Terminal>();
  private next = 0;

  /**
   * Starts `command`; with `launch` (the sandbox's), the launch's program, arguments and
   * environment are what run (its environment already carries `launch.tag`), and the sandbox's
   * own files are removed once the terminal is released.
   */
  create(command: string, args: readonly string[], cwd: string, env: Record<string, string>, outputByteLimit?: number | null, launch?: SandboxLaunch & { tag: string }): string {
    const id = `term-${++this.next}`;
    const tagged = launch ? { tag: launch.tag, env: {} } : processesPart().newProcessTag();
    const child = launch
      ? spawn(launch.program, launch.args, { cwd, env: launch.env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' })
      : spawn(command, [...args], { cwd, env: { ...process.env, ...env, ...tagged.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
    const terminal: Terminal = {
      child,
      launch,
      root: processesPart().rootOf(child.pid, tagged.tag),
      output: new OutputTail(outputLimit(outputByteLimit)),
      exitStatus: undefined,
      exit: new Promise((resolve) => {
        child.once('error', (err) => {
          terminal.output.push(Buffer.from(`${err.message}\n`));
          resolve((terminal.exitStatus ??= { exitCode: null, signal: null }));
        });
        // The command's exit, once its output is read (the pipes close), or after a grace when a
        // process it left behind holds them open: the agent waits on the command, not on that.
        child.once('exit', (code, signal) => {
          const exited = (): void => resolve((terminal.exitStatus ??= { exitCode: code, signal }));
          const drained = setTimeout(exited, KILL_GRACE_MS);
          drained.unref();
          child.once('close', () => {
            clearTimeout(drained);
            exited();
          });
        });
      }),
    };
    const collect = (chunk: Buffer): void => terminal.output.push(chunk);
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.terminals.set(id, terminal);
    return id;
  }

  output(id: string): { output: string; truncated: boolean; exitStatus?: { exitCode: number | null; signal: string | null } } {
    const t = this.get(id);
    return { output: t.output.text(), truncated: t.output.truncated, ...(t.exitStatus ? { exitStatus: t.exitStatus } : {}) };
  }

  async waitForExit(id: string, signal: AbortSignal): Promise<{ exitCode: number | null; signal: string | null }> {
    const t = this.get(id);
    if (signal.aborted) throw signal.reason;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      void t.exit.then((status) => {
        signal.removeEventListener('abort', onAbort);
        resolve(status);
      });
    });
  }

  kill(id: string): void {
    killGroup(this.get(id));
  }

  release(id: string): void {
    const t = this.terminals.get(id);
    if (!t) return;
    killGroup(t);
    t.launch?.dispose();
    this.terminals.delete(id);
  }

  disposeAll(): void {
    for (const id of [...this.terminals.keys()]) this.release(id);
  }

  private get(id: string): Terminal {
    const t = this.terminals.get(id);
    if (!t) throw new ArborError('TOOL_ARGUMENTS_INVALID', `No terminal ${id} is open (it was released or never created).`, { terminalId: id });
    return t;
  }
}

/**
 * SIGTERM now and SIGKILL after the grace, to the command's group, its process tree and every
 * process carrying its tag, even when the command itself already exited (what it left behind
 * is ended too).
 */
function killGroup(t: Terminal): void {
  if (!t.child.pid) return;
  if (process.platform === 'win32') {
    if (!t.exitStatus) t.child.kill('SIGTERM');
    return;
  }
  const known = processesPart().signalProcesses(t.root, 'SIGTERM');
  const escalation = setTimeout(() => processesPart().signalProcesses(t.root, 'SIGKILL', known), KILL_GRACE_MS);
  escalation.unref();
}

/** The agent's limit, within Arbor's cap; the default when it names none (or none that is a size). */
function outputLimit(requested: number | null | undefined): number {
  if (requested == null || !Number.isFinite(requested) || requested < 0) return DEFAULT_TERMINAL_OUTPUT;
  return Math.min(Math.floor(requested), MAX_TERMINAL_OUTPUT);
}
