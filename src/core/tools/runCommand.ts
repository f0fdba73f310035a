import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { ArborError, isArborError } from '../errors';
import { lazySchema } from '../lazySchema';
import { newProcessTag, rootOf, signalProcesses, type FoundProcesses, type ProcessRoot } from '../processTree';
import { resolveWorkspacePath } from '../workspace/paths';
import { deniedResult, errorResult, jsonResult } from './catalog';
import { defineTool } from './defineTool';

const MAX_OUTPUT = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 120_000;

export const runCommandArgsSchema = lazySchema(() => z.object({
  command: z.string().trim().min(1).max(8_000).describe('The shell command line to run.'),
  cwd: z.string().max(1_000).optional().describe('Working directory, relative to the workspace folder. Defaults to the workspace folder.'),
  timeout_seconds: z.number().int().min(1).max(3_600).optional().describe('Stop the command after this many seconds (default 120).'),
}));

/**
 * Runs a shell command in the workspace, after consent: a remembered rule ("command: npm test")
 * allows it in any run; otherwise interactive roots are asked, and unattended runs and
 * subagents are denied without any prompt, told which rule would allow it.
 * The turn's signal kills the process, so Stop really stops it.
 */
export const runCommandTool = defineTool({
  name: 'run_command',
  description:
    'Run a shell command in the workspace folder and get its exit code and output (trimmed to the last 64 KiB). ' +
    'The user must approve each command unless an approval rule allows it; when approval is denied, the result says why and which rule would allow it. ' +
    'On timeout the command and every process it started are stopped; do not start servers or daemons that should outlive it.',
  schema: runCommandArgsSchema,
  readOnly: false,
  async run(args, ctx) {
    const workspace = ctx.agent.run.workspace?.folder ?? ctx.runtime.workspaceFolder;
    if (!workspace) {
      return errorResult(new ArborError('TOOL_FAILED', 'No workspace folder is open, so there is nowhere to run commands. Ask the user to open a folder.'));
    }
    const checked = await commandFolder(workspace, args.cwd);
    if (checked instanceof ArborError) return errorResult(checked);
    const approval = await ctx.approvals.request({
      agent: ctx.agent,
      isSubagent: ctx.agent.kind !== 'root',
      policy: ctx.policy,
      action: 'run-command',
      detail: `${args.command}${args.cwd ? `  (in ${checked.relative})` : ''}`,
      subject: args.command,
      signal: ctx.signal,
      log: ctx.agent.log,
      toolCallId: ctx.toolCallId,
    });
    if (approval.decision === 'deny') {
      return deniedResult('run-command', args.command, approval);
    }
    // Where the folder leads is checked again after the prompt, which may have been open a while.
    const cwd = await commandFolder(workspace, args.cwd);
    if (cwd instanceof ArborError) return errorResult(cwd);
    if (cwd.real !== checked.real) return errorResult(new ArborError('PATH_OUTSIDE_WORKSPACE', `cwd "${args.cwd}" now leads to another folder than when it was approved; nothing was run. Ask again.`, { path: args.cwd }));
    const outcome = await execute(args.command, cwd.real, (args.timeout_seconds ?? DEFAULT_TIMEOUT_MS / 1000) * 1000, ctx.signal);
    return jsonResult(outcome);
  },
});

/**
 * The real folder a command runs in: `cwd` confined like every path the tools take
 * (resolveWorkspacePath follows each link, so `out-link -> ..` is refused, not entered), or the
 * refusal as a typed error. The command is started in that real path, never in the spelling, and
 * the person is shown it workspace-relative. This confines where the approved command starts, not
 * what it does once running (it may `cd` anywhere; the sandbox bounds that); a swap in the instant
 * between the last check and the start is not caught.
 */
async function commandFolder(workspace: string, cwd: string | undefined): Promise<{ real: string; relative: string } | ArborError> {
  try {
    const folder = await resolveWorkspacePath([workspace], cwd ?? '.');
    const realRoot = await fs.promises.realpath(folder.folder).catch(() => folder.folder);
    return { real: path.join(realRoot, path.relative(folder.folder, folder.absolute)), relative: folder.relative };
  } catch (err) {
    if (isArborError(err, 'PATH_OUTSIDE_WORKSPACE')) {
      return new ArborError('PATH_OUTSIDE_WORKSPACE', `cwd must stay inside the workspace folder; "${cwd}" leaves it (${err.message})`, { path: cwd });
    }
    return isArborError(err) ? err : new ArborError('TOOL_ARGUMENTS_INVALID', `cwd "${cwd}" cannot be used: ${String(err)}`);
  }
}

interface CommandOutcome {
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
 * environment cannot be found; its output is no longer read and the tool still returns.
 */
function execute(command: string, cwd: string, timeoutMs: number, signal: AbortSignal): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const { tag, env } = newProcessTag();
    const child = spawn(command, { cwd, shell: true, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
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
