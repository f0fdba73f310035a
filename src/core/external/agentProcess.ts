import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { ArborError } from '../errors';
import { commandLineOf, type ExternalAgentConfig } from './config';

/** Between SIGTERM and SIGKILL when an external agent's process group is ended. */
export const PROCESS_KILL_GRACE_MS = 2_000;
/** The last characters of the agent's standard error kept for messages about its end. */
const STDERR_TAIL = 4_000;

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
}

/**
 * One external agent's process: spawned in a process group of its own (so End reaches every
 * process it started), its standard input and output as the web streams the protocol runs
 * over, its standard error kept (the tail) to explain a crash. `exited` resolves once, however
 * it ends; a process that could not start resolves it too (with the reason on stderr).
 */
export class AgentProcess {
  readonly exited: Promise<ProcessExit>;
  readonly input: WritableStream<Uint8Array>;
  readonly output: ReadableStream<Uint8Array>;
  private readonly child: ChildProcessWithoutNullStreams;
  private stderr = '';
  private killed = false;
  private exitInfo: ProcessExit | undefined;
  private escalation: NodeJS.Timeout | undefined;

  constructor(
    readonly config: Pick<ExternalAgentConfig, 'name' | 'command' | 'args' | 'env'>,
    options: AgentProcessOptions,
  ) {
    this.child = spawn(config.command, config.args, {
      cwd: options.cwd,
      env: { ...process.env, ...config.env, ...options.env },
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
    this.exited = new Promise((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (this.exitInfo) return;
        clearTimeout(this.escalation);
        this.exitInfo = { code, signal, stderr: this.stderr.trim(), killed: this.killed };
        resolve(this.exitInfo);
      };
      this.child.once('error', (err) => {
        this.stderr += `${this.stderr ? '\n' : ''}${err.message}`;
        done(null, null);
      });
      this.child.once('close', done);
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

  /** Ends the whole process group: SIGTERM, then SIGKILL after the grace. */
  kill(): void {
    if (this.exitInfo || this.killed) return;
    this.killed = true;
    this.signalGroup('SIGTERM');
    this.escalation = setTimeout(() => this.signalGroup('SIGKILL'), PROCESS_KILL_GRACE_MS);
    this.escalation.unref();
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (!pid) return;
    try {
      if (process.platform === 'win32') this.child.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** The typed error for a process that ended while Arbor still needed it. */
export function processEndedError(name: string, config: Pick<ExternalAgentConfig, 'command' | 'args'>, exit: ProcessExit): ArborError {
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
