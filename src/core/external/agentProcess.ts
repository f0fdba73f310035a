import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { ArborError } from '../errors';
import { processesPart } from '../parts';
import type { FoundProcesses, ProcessRoot } from '../processTree';
import type { SandboxLaunch } from '../sandbox';
import { commandLineOf, type LocalAgentConfig } from './config';

/** Between SIGTERM and SIGKILL when an external agent's process group is ended. */
export const PROCESS_KILL_GRACE_MS = 2_000;
/** The last characters of the agent's standard error kept for messages about its end. */
const STDERR_TAIL = 4_000;
/**
 * How long the direct child's exit waits for its last standard error before it is reported: a
 * process that exits closes its own end at once; only something it left holding the pipe keeps
 * it open, and that is not waited for.
 */
const STDERR_DRAIN_MS = 300;

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The end of what the agent wrote to its standard error. */
  stderr: string;
  /** True when Arbor ended it (End, dispose), not the agent on its own. */
  killed: boolean;
}

export interface AgentProcessOptions {
  cwd: string;
  /** Merged over the editor's environment; secrets arrive here, never from settings. */
  env?: Record<string, string>;
  /**
   * The agent's process as the sandbox starts it (its program, arguments and whole environment,
   * which carries `tag`); its files are removed once the process has exited.
   */
  launch?: SandboxLaunch & { tag: string };
}

/**
 * One external agent's process: spawned in a process group and session of its own, with a tag
 * in its environment, so End reaches every process it started (see processTree.ts: its tree,
 * group, session and tag); its standard input and output as the web streams the protocol runs
 * over, its standard error kept (the tail) to explain a crash.
 *
 * Invariants:
 * - `exited` resolves once, however it ends; a process that could not start resolves it too
 *   (with the reason on stderr);
 * - the agent is its direct child: when that exits, whatever it left running is ended, and
 *   `exited` resolves once the pipes close or, if something out of reach still holds them,
 *   after the grace (the pipes are then closed on Arbor's side), so an exit is never missed;
 * - `kill` ends every process of the agent, also after the direct child has exited;
 * - the direct child's exit is the agent's end (`childExit`, `childGone`), whatever still holds
 *   the pipes: a launcher (an npm wrapper, a CLI that relaunches itself) that dies leaves the
 *   agent it started reading a stdin nobody writes to, so that agent is ended with it rather
 *   than waited for.
 */
export class AgentProcess {
  readonly exited: Promise<ProcessExit>;
  /** The direct child's exit (or failure to start), once its own last standard error is in. */
  readonly childExit: Promise<ProcessExit>;
  readonly input: WritableStream<Uint8Array>;
  readonly output: ReadableStream<Uint8Array>;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly root: ProcessRoot;
  private stderr = '';
  private killed = false;
  private childExited = false;
  private ending = false;
  private outputEnded = false;
  private exitInfo: ProcessExit | undefined;

  constructor(
    readonly config: Pick<LocalAgentConfig, 'name' | 'command' | 'args' | 'env'>,
    options: AgentProcessOptions,
  ) {
    const { launch } = options;
    const { tag, env } = launch ? { tag: launch.tag, env: {} } : processesPart().newProcessTag();
    this.child = spawn(launch ? launch.program : config.command, launch ? launch.args : config.args, {
      cwd: options.cwd,
      env: launch ? launch.env : { ...process.env, ...config.env, ...options.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    // A closed pipe (the agent died mid-write) surfaces through `exited`, not as a crash of Arbor.
    this.child.stdin.on('error', () => undefined);
    this.child.stdout.on('error', () => undefined);
    this.child.stdout.once('end', () => (this.outputEnded = true));
    this.root = processesPart().rootOf(this.child.pid, tag);
    this.exited = new Promise((resolve) => {
      let drain: NodeJS.Timeout | undefined;
      const done = (code: number | null, signal: NodeJS.Signals | null): void => {
        clearTimeout(drain);
        if (this.exitInfo) return;
        this.exitInfo = { code, signal, stderr: this.stderr.trim(), killed: this.killed };
        launch?.dispose();
        resolve(this.exitInfo);
      };
      this.child.once('error', (err) => {
        this.stderr += `${this.stderr ? '\n' : ''}${err.message}`;
        done(null, null);
      });
      this.child.once('exit', (code, signal) => {
        this.childExited = true;
        // The agent is gone: what it left is ended, and its last output is read while the pipes drain.
        this.end();
        drain = setTimeout(() => {
          this.child.stdout.destroy();
          this.child.stderr.destroy();
          done(code, signal);
        }, PROCESS_KILL_GRACE_MS);
        this.child.once('close', () => done(code, signal));
      });
    });
    const stderrClosed = new Promise<void>((resolve) => this.child.stderr.once('close', () => resolve()));
    this.childExit = new Promise((resolve) => {
      const report = (code: number | null, signal: NodeJS.Signals | null): void => {
        const drained = setTimeout(() => resolve(this.exitNow(code, signal)), STDERR_DRAIN_MS);
        void stderrClosed.then(() => {
          clearTimeout(drained);
          resolve(this.exitNow(code, signal));
        });
      };
      this.child.once('error', () => resolve(this.exitNow(null, null)));
      this.child.once('exit', report);
    });
    this.input = Writable.toWeb(this.child.stdin) as WritableStream<Uint8Array>;
    this.output = Readable.toWeb(this.child.stdout) as ReadableStream<Uint8Array>;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** The direct child has exited (or never started): the agent is gone, even while its pipes drain. */
  get childGone(): boolean {
    return this.childExited || this.exitInfo !== undefined;
  }

  /** The agent's standard output reached its end (every holder closed it). */
  get outputClosed(): boolean {
    return this.outputEnded;
  }

  /** Ends every process of the agent: SIGTERM, then SIGKILL after the grace. */
  kill(): void {
    if (!this.childExited) this.killed = true;
    this.end();
  }

  private exitNow(code: number | null, signal: NodeJS.Signals | null): ProcessExit {
    return this.exitInfo ?? { code, signal, stderr: this.stderr.trim(), killed: this.killed };
  }

  private end(): void {
    if (this.ending || !this.child.pid) return;
    this.ending = true;
    const known = this.signal('SIGTERM');
    setTimeout(() => this.signal('SIGKILL', known), PROCESS_KILL_GRACE_MS).unref();
  }

  private signal(signal: NodeJS.Signals, known?: FoundProcesses): FoundProcesses {
    if (process.platform === 'win32' && !this.childExited) this.child.kill(signal);
    return processesPart().signalProcesses(this.root, signal, known);
  }
}

/** The typed error for a process that ended while Arbor still needed it. */
export function processEndedError(name: string, config: Pick<LocalAgentConfig, 'command' | 'args'>, exit: ProcessExit): ArborError {
  const how = exit.signal ? `was ended by ${exit.signal}` : exit.code === null ? 'could not be started' : `exited with code ${exit.code}`;
  const tail = exit.stderr ? ` Its last output: ${lastLines(exit.stderr, 5)}` : '';
  return new ArborError(
    exit.code === null && !exit.signal ? 'EXTERNAL_AGENT_START_FAILED' : 'EXTERNAL_AGENT_CRASHED',
    `The external agent ${name} (${commandLineOf(config)}) ${how}.${tail}`,
    { name, code: exit.code, signal: exit.signal },
  );
}

function lastLines(text: string, count: number): string {
  return text.split('\n').slice(-count).join('\n');
}
