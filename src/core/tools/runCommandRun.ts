import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError, isArborError } from '../errors';
import { newProcessTag } from '../processTree';
import type { SandboxPlan } from '../sandbox/types';
import { resolveWorkspacePath } from '../workspace/paths';
import { deniedResult, errorResult, jsonResult } from './catalog';
import { execute, type CommandOutcome } from './commandProcess';
import type { RuntimeToolContext } from './context';
import type { ToolResult } from './types';

/**
 * What one run_command call does (runCommand.ts is the tool the model sees): the folder confined,
 * the sandbox's plan made before anyone is asked (so `required` without a sandbox runs nothing
 * and asks nobody, and the prompt says how the command will run), the approval, the folder
 * checked again, then the command started as planned and its result told what the sandbox did.
 * Part of the processes part (src/core/processes.ts), loaded by the first command that runs.
 */

const DEFAULT_TIMEOUT_MS = 120_000;

/** run_command's arguments, as its schema (runCommand.ts) has parsed them. */
export interface RunCommandArgs {
  command: string;
  cwd?: string;
  timeout_seconds?: number;
}

export async function runCommand(args: RunCommandArgs, ctx: RuntimeToolContext): Promise<ToolResult> {
    const workspace = ctx.agent.run.workspace?.folder ?? ctx.runtime.workspaceFolder;
    if (!workspace) {
      return errorResult(new ArborError('TOOL_FAILED', 'No workspace folder is open, so there is nowhere to run commands. Ask the user to open a folder.'));
    }
    const checked = await commandFolder(workspace, args.cwd);
    if (checked instanceof ArborError) return errorResult(checked);
    const sandbox = ctx.runtime.sandbox;
    let plan: SandboxPlan = { kind: 'unsandboxed', reason: 'no sandbox is configured' };
    try {
      // A scoped agent's commands may write only in the folders its scope names (src/core/scopes).
      if (sandbox) plan = await sandbox.plan(ctx.runtime.writes.guard.writableFolders(ctx.agent, await runFolder(workspace)));
    } catch (err) {
      return errorResult(isArborError(err) ? err : new ArborError('SANDBOX_FAILED', String(err)));
    }
    const sandboxLine = sandbox ? ` — ${sandbox.describe(plan)}` : '';
    const approval = await ctx.approvals.request({
      agent: ctx.agent,
      isSubagent: ctx.agent.kind !== 'root',
      policy: ctx.policy,
      action: 'run-command',
      detail: `${args.command}${args.cwd ? `  (in ${checked.relative})` : ''}${sandboxLine}`,
      subject: args.command,
      signal: ctx.signal,
      log: ctx.agent.log,
      toolCallId: ctx.toolCallId,
      sandboxAutoAllow: plan.kind === 'sandboxed' && plan.settings.autoAllow,
    });
    if (approval.decision === 'deny') {
      return deniedResult('run-command', args.command, approval);
    }
    // Where the folder leads is checked again after the prompt, which may have been open a while.
    const cwd = await commandFolder(workspace, args.cwd);
    if (cwd instanceof ArborError) return errorResult(cwd);
    if (cwd.real !== checked.real) return errorResult(new ArborError('PATH_OUTSIDE_WORKSPACE', `cwd "${args.cwd}" now leads to another folder than when it was approved; nothing was run. Ask again.`, { path: args.cwd }));
    const { tag, env } = newProcessTag();
    let launch;
    try {
      launch = sandbox ? await sandbox.launch(plan, '/bin/sh', ['-c', args.command], cwd.real, env) : undefined;
    } catch (err) {
      return errorResult(isArborError(err) ? err : new ArborError('SANDBOX_FAILED', String(err)));
    }
    const start = launch?.sandboxed
      ? { program: launch.program, args: launch.args, shell: false, env: launch.env, tag }
      : { program: args.command, args: [], shell: true, env: { ...launch?.env ?? stringEnv(process.env), ...env }, tag };
    let outcome: CommandOutcome;
    try {
      outcome = await execute(start, cwd.real, (args.timeout_seconds ?? DEFAULT_TIMEOUT_MS / 1000) * 1000, ctx.signal);
    } finally {
      launch?.dispose();
    }
    if (!sandbox) return jsonResult(outcome);
    return jsonResult({ ...outcome, ...sandbox.report(plan, outcome.output, launch?.blockedHosts() ?? []) });
}

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
/** The run's own folder (the workspace or the agent's worktree), as a real path. */
async function runFolder(workspace: string): Promise<string> {
  return fs.promises.realpath(workspace).catch(() => workspace);
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
