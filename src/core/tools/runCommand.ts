import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { ArborError, isArborError } from '../errors';
import { once } from '../once';
import { processesPart } from '../parts';
import { resolveWorkspacePath } from '../workspace/paths';
import { deniedResult, errorResult, jsonResult } from './catalog';
import { defineTool } from './defineTool';

const DEFAULT_TIMEOUT_MS = 120_000;

export const runCommandArgsSchema = once(() => z.object({
  command: z.string().trim().min(1).max(8_000).describe('The shell command line to run.'),
  cwd: z.string().max(1_000).optional().describe('Working directory, relative to the workspace folder. Defaults to the workspace folder.'),
  timeout_seconds: z.number().int().min(1).max(3_600).optional().describe('Stop the command after this many seconds (default 120).'),
}));

/**
 * Runs a shell command in the workspace, after consent: a remembered rule ("command: npm test")
 * allows it in any run; otherwise interactive roots are asked, and unattended runs and
 * subagents are denied without any prompt, told which rule would allow it.
 * The turn's signal kills the process, so Stop really stops it. Running the process is
 * commandProcess.ts, in a part loaded by the first command that runs (src/core/processes.ts).
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
    const outcome = await processesPart().executeCommand(args.command, cwd.real, (args.timeout_seconds ?? DEFAULT_TIMEOUT_MS / 1000) * 1000, ctx.signal);
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
