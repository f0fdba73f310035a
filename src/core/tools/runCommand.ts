import * as z from 'zod';
import { once } from '../once';
import { processesPart } from '../parts';
import { defineTool } from './defineTool';

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
 * nobody is asked. The turn's signal kills the process tree, so Stop really stops it. What a call
 * does is runCommandRun.ts, in the part loaded by the first command that runs (src/core/processes.ts).
 */
export const runCommandTool = defineTool({
  name: 'run_command',
  description:
    'Run a shell command in the workspace folder and get its exit code and output (trimmed to the last 64 KiB). ' +
    'The user must approve each command unless an approval rule allows it; when approval is denied, the result says why and which rule would allow it. ' +
    'On timeout the command and every process it started are stopped; do not start servers or daemons that should outlive it. ' +
    'It usually runs sandboxed: writes outside the workspace fail and the network is closed except to allowed domains; the result says what was blocked.',
  schema: runCommandArgsSchema,
  readOnly: false,
  run: (args, ctx) => processesPart().runCommand(args, ctx),
});
