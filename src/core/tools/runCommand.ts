import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { ArborError, isArborError } from '../errors';
import { once } from '../once';
import { newProcessTag } from '../processTree';
import { blockedPaths, type SandboxPlan } from '../sandbox';
import { resolveWorkspacePath } from '../workspace/paths';
import { deniedResult, errorResult, jsonResult } from './catalog';
import { execute, type CommandOutcome } from './commandProcess';
import { defineTool } from './defineTool';

export { KILL_GRACE_MS } from './commandProcess';
const DEFAULT_TIMEOUT_MS = 120_000;

export const runCommandArgsSchema = once(() => z.object({
  command: z.string().trim().min(1).max(8_000).describe('The shell command line to run.'),
  cwd: z.string().max(1_000).optional().describe('Working directory, relative to the workspace folder. Defaults to the workspace folder.'),
  timeout_seconds: z.number().int().min(1).max(3_600).optional().describe('Stop the command after this many seconds (default 120).'),
}));

/**
 * Runs a shell command in the run's folder, after consent: a remembered rule ("command: npm test")
 * allows it in any run; otherwise interactive roots are asked, and unattended runs and
 * subagents are denied without any prompt, told which rule would allow it. With
 * `arbor.sandbox.autoAllow`, a command that will run sandboxed is allowed without asking.
 * The person asked sees whether it runs sandboxed and what it may touch; the result says so too,
 * and names what the sandbox blocked. In `required` mode without a sandbox nothing is run and
 * nobody is asked. The turn's signal kills the process tree, so Stop really stops it.
 */
export const runCommandTool = defineTool({
  name: 'run_command',
  description:
    'Run a shell command in the workspace folder and get its exit code and output (trimmed to the last 64 KiB). ' +
    'The user must approve each command unless an approval rule allows it; when approval is denied, the result says why and which rule would allow it. ' +
    'On timeout the command and every process it started are stopped; do not start servers or daemons that should outlive it. ' +
    'It usually runs in a sandbox: writes outside the workspace fail (read-only file system), and the network is closed except for allowed domains; the result says when the sandbox blocked something.',
  schema: runCommandArgsSchema,
  readOnly: false,
  async run(args, ctx) {
    const workspace = ctx.agent.run.workspace?.folder ?? ctx.runtime.workspaceFolder;
    if (!workspace) {
      return errorResult(new ArborError('TOOL_FAILED', 'No workspace folder is open, so there is nowhere to run commands. Ask the user to open a folder.'));
    }
    const checked = await commandFolder(workspace, args.cwd);
    if (checked instanceof ArborError) return errorResult(checked);
    const sandbox = ctx.runtime.sandbox;
    let plan: SandboxPlan = { kind: 'unsandboxed', reason: 'no sandbox is configured' };
    try {
      if (sandbox) plan = await sandbox.plan([await runFolder(workspace)]);
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
    return jsonResult({ ...outcome, ...sandboxReport(plan, outcome.output, launch?.blockedHosts() ?? []) });
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


/** The run's own folder (the workspace or the agent's worktree), as a real path. */
async function runFolder(workspace: string): Promise<string> {
  return fs.promises.realpath(workspace).catch(() => workspace);
}

/** What the result says about the sandbox: whether it ran in one, and what it blocked. */
function sandboxReport(plan: SandboxPlan, output: string, hosts: readonly string[]): Record<string, unknown> {
  if (plan.kind === 'unsandboxed') return { sandbox: `unsandboxed: ${plan.reason}` };
  const paths = blockedPaths(output);
  return {
    sandbox: `sandboxed: writes only in ${plan.writable.join(', ')} and /tmp`,
    ...(hosts.length > 0 ? { blocked_network: hosts, blocked_network_note: 'The sandbox refused these hosts; the setting arbor.sandbox.network.allow lists the domains a command may reach.' } : {}),
    ...(paths.length > 0 ? { blocked_paths: paths, blocked_paths_note: 'Writes outside the run folder fail in the sandbox (read-only file system).' } : {}),
  };
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
