import type { Agent } from '../agents/agent';
import { ArborError } from '../errors';
import type { RunContext } from '../interaction';
import type { Runtime } from '../runtime';
import type { ExternalAgentServices } from './clientServices';
import type { ExternalAgentConfig } from './config';
import { ExternalAgentEngine } from './externalEngine';

export interface ExternalStartOptions {
  config: ExternalAgentConfig;
  prompt: string;
  label?: string;
  /** Secrets from the editor's secret storage for the agent's environment. */
  secretEnv?: Record<string, string>;
  stopGraceMs?: number;
  startTimeoutMs?: number;
}

/** The runtime's approval seam, change sets and workspace, as an external agent uses them. */
export function runtimeServices(runtime: Runtime): ExternalAgentServices {
  return { approvals: runtime.approvals, changes: runtime.changes, workspace: (agent) => agent.run.workspace?.files ?? runtime.workspace };
}

function engineFor(runtime: Runtime, options: ExternalStartOptions, folder: string | undefined): ExternalAgentEngine {
  if (!folder) throw new ArborError('WORKSPACE_NONE', `Open a folder first: the external agent ${options.config.name} works in the workspace folder.`);
  return new ExternalAgentEngine({
    config: options.config,
    services: runtimeServices(runtime),
    cwd: folder,
    secretEnv: options.secretEnv,
    stopGraceMs: options.stopGraceMs,
    startTimeoutMs: options.startTimeoutMs,
  });
}

/** Starts an external agent as a root in the tree (the user ran it), on `prompt`. */
export function startExternalRoot(runtime: Runtime, options: ExternalStartOptions & { context?: RunContext }): Agent {
  const engine = engineFor(runtime, options, runtime.workspaceFolder);
  return runtime.startRoot({ prompt: options.prompt, label: options.label ?? options.config.name, context: options.context, engine });
}

/**
 * Starts an external agent as a continuable child of `parent`: send_message reaches it and
 * each of its turns reports back to the parent. It works in the parent's run folder.
 */
export function startExternalChild(runtime: Runtime, parent: Agent, options: ExternalStartOptions): Agent {
  const engine = engineFor(runtime, options, parent.run.workspace?.folder ?? runtime.workspaceFolder);
  return runtime.startContinuable(parent, options.label ?? options.config.name, options.prompt, engine);
}

/** The external agent's engine when `agent` is one. */
export function externalEngineOf(agent: Agent): ExternalAgentEngine | undefined {
  return agent.engine instanceof ExternalAgentEngine ? agent.engine : undefined;
}
