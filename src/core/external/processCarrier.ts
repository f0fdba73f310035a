import * as path from 'node:path';
import * as fs from 'node:fs';
import type * as acp from '@agentclientprotocol/sdk';
import { ArborError } from '../errors';
import { processesPart } from '../parts';
import type { CommandSandbox, SandboxLaunch } from '../sandbox';
import type { AcpCarrier } from './acpCarrier';
import { AgentProcess } from './agentProcess';
import type { LocalAgentConfig } from './config';
import { whenLost } from './connectionLoss';

/**
 * A local agent's carrier: its process (agentProcess.ts), started as it is or in the command
 * sandbox when its entry asks for it, with the protocol as newline-delimited JSON on its
 * standard input and output. Its session is lost when the process's direct child exits or its
 * connection closes (connectionLoss.ts), and `kill` ends every process it started.
 */

export interface ProcessCarrierOptions {
  cwd: string;
  /** Extra environment (secrets from the editor's secret storage). */
  env?: Record<string, string>;
  /** Where the process starts when its configuration asks for the sandbox (`sandbox: true`). */
  sandbox?: CommandSandbox;
}

export async function processCarrier(config: LocalAgentConfig, options: ProcessCarrierOptions, sdk: typeof acp): Promise<AcpCarrier> {
  const proc = new AgentProcess(config, { cwd: options.cwd, env: options.env, launch: await sandboxedStart(config, options) });
  return {
    stream: sdk.ndJsonStream(proc.input, proc.output),
    whenLost: (connection) => whenLost(config, proc, connection),
    gone: () => proc.childGone,
    kill: () => proc.kill(),
    pid: proc.pid,
    startHint: 'check that this command starts an Agent Client Protocol agent',
  };
}

/**
 * The sandbox's start of an agent whose configuration asks for it (never unsandboxed: without a
 * sandbox this is SANDBOX_UNAVAILABLE), or undefined for an agent that runs as it is.
 */
async function sandboxedStart(config: LocalAgentConfig, options: ProcessCarrierOptions): Promise<(SandboxLaunch & { tag: string }) | undefined> {
  if (!config.sandbox) return undefined;
  if (!options.sandbox) throw new ArborError('SANDBOX_UNAVAILABLE', `The external agent ${config.name} is configured to run sandboxed, but Arbor has no sandbox here.`, { name: config.name });
  const planned = await options.sandbox.plan([options.cwd], { required: true });
  const plan = planned.kind === 'sandboxed' ? { ...planned, programs: programFoldersUnderTmp([config.command, ...config.args]) } : planned;
  const { tag, env } = processesPart().newProcessTag();
  const launch = await options.sandbox.launch(plan, config.command, config.args, options.cwd, { ...config.env, ...options.env, ...env });
  return { ...launch, tag };
}

/**
 * The folders under /tmp that hold the agent's program or a script it is given (an agent
 * installed or checked out there): the first folder below /tmp of each existing absolute path,
 * so the program's own files and packages beside it stay readable in the sandbox's fresh /tmp.
 */
export function programFoldersUnderTmp(paths: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const p of paths) {
    if (!path.isAbsolute(p)) continue;
    let real: string;
    try {
      real = fs.realpathSync(p);
    } catch {
      continue; // not a path on this machine: an argument like any other
    }
    const parts = real.split(path.sep);
    if (parts[1] === 'tmp' && parts.length > 3) folders.add(path.join('/tmp', parts[2]));
  }
  return [...folders];
}
