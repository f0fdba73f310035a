import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as z from 'zod';
import { ArborError } from '../errors';
import type { RuntimeToolContext } from '../runtime';
import { errorResult, jsonResult } from './catalog';
import type { ToolDefinition } from './types';

const MAX_OUTPUT = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 120_000;

export const runCommandArgsSchema = z.object({
  command: z.string().trim().min(1).max(8_000).describe('The shell command line to run.'),
  cwd: z.string().max(1_000).optional().describe('Working directory, relative to the workspace folder. Defaults to the workspace folder.'),
  timeout_seconds: z.number().int().min(1).max(3_600).optional().describe('Stop the command after this many seconds (default 120).'),
});

/**
 * Runs a shell command in the workspace, after consent: interactive roots are asked (allow once,
 * for this session, or deny); unattended runs and subagents are denied without any prompt.
 * The turn's signal kills the process, so Stop really stops it.
 */
export const runCommandTool: ToolDefinition<RuntimeToolContext, typeof runCommandArgsSchema> = {
  name: 'run_command',
  description:
    'Run a shell command in the workspace folder and get its exit code and output (trimmed to the last 64 KiB). ' +
    'The user must approve each command (or allow commands for this session); when approval is denied, the result says why.',
  schema: runCommandArgsSchema,
  readOnly: false,
  async run(args, ctx) {
    const workspace = ctx.runtime.workspaceFolder;
    if (!workspace) {
      return errorResult(new ArborError('TOOL_FAILED', 'No workspace folder is open, so there is nowhere to run commands. Ask the user to open a folder.'));
    }
    const cwd = path.resolve(workspace, args.cwd ?? '.');
    const relative = path.relative(workspace, cwd);
    if (relative.startsWith('..') || path.isAbsolute(relative)) {
      return errorResult(new ArborError('TOOL_ARGUMENTS_INVALID', `cwd must stay inside the workspace folder; "${args.cwd}" leaves it.`));
    }
    const approval = await ctx.approvals.request({
      agent: ctx.agent,
      isSubagent: ctx.agent.kind !== 'root',
      policy: ctx.policy,
      action: 'run-command',
      detail: `${args.command}${args.cwd ? `  (in ${args.cwd})` : ''}`,
      signal: ctx.signal,
      log: ctx.agent.log,
    });
    if (approval.decision === 'deny') {
      return { content: JSON.stringify({ status: 'denied', reason: approval.reason }), isError: true };
    }
    const outcome = await execute(args.command, cwd, (args.timeout_seconds ?? DEFAULT_TIMEOUT_MS / 1000) * 1000, ctx.signal);
    return jsonResult(outcome);
  },
};

interface CommandOutcome {
  status: 'exited' | 'timed-out' | 'failed-to-start';
  exit_code: number | null;
  signal: string | null;
  output: string;
  truncated: boolean;
}

function execute(command: string, cwd: string, timeoutMs: number, signal: AbortSignal): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const child = spawn(command, { cwd, shell: true, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
    let output = '';
    let truncated = false;
    let timedOut = false;
    const collect = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.length > MAX_OUTPUT) {
        output = output.slice(output.length - MAX_OUTPUT);
        truncated = true;
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const kill = (): void => {
      try {
        // The whole process group: a shell's children must not outlive a Stop.
        if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGTERM');
        else child.kill('SIGTERM');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    const onAbort = (): void => kill();
    signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve({ status: 'failed-to-start', exit_code: null, signal: null, output: err.message, truncated: false });
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) return reject(signal.reason);
      resolve({ status: timedOut ? 'timed-out' : 'exited', exit_code: code, signal: sig, output, truncated });
    });
  });
}
