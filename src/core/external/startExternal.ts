import type { Agent } from '../agents/agent';
import type { AgentDefinition } from '../definitions/types';
import { ArborError } from '../errors';
import type { SessionEvent, SessionLog } from '../sessions/types';
import { notResumable } from './acpErrors';
import type { RunContext } from '../interaction';
import type { Runtime } from '../runtime';
import type { ExternalAgentServices } from './clientServices';
import type { ExternalAgentConfig } from './config';
import { ExternalAgentEngine, type ExternalEngineOptions } from './externalEngine';

export interface ExternalStartOptions {
  config: ExternalAgentConfig;
  prompt: string;
  label?: string;
  /** Secrets from the editor's secret storage for the agent's environment. */
  secretEnv?: Record<string, string>;
  stopGraceMs?: number;
  startTimeoutMs?: number;
  /** The agent definition whose instructions it got (its name is recorded with the session). */
  definition?: AgentDefinition;
}

/** How a past external session is reopened: the agent to run (as configured now) and its secrets. */
export type ExternalResumeOptions = Omit<ExternalStartOptions, 'prompt' | 'label'>;

/** The runtime's approval seam, change sets and workspace, as an external agent uses them. */
export function runtimeServices(runtime: Runtime): ExternalAgentServices {
  return {
    approvals: runtime.approvals,
    changes: runtime.changes,
    writes: runtime.writes,
    sandbox: runtime.sandbox,
    workspace: (agent) => agent.run.workspace?.files ?? runtime.workspace,
    startChild: (parent, label, prompt, engine) => runtime.startContinuable(parent, label, prompt, engine),
  };
}

/** The engine of an external agent working in `folder`; `more` adds what a restore asks of it. */
export function engineFor(
  runtime: Runtime,
  options: ExternalResumeOptions & { loadSessionId?: string },
  folder: string | undefined,
  more: Pick<ExternalEngineOptions, 'whenNotLoadable' | 'replay' | 'freshMemory'> = {},
): ExternalAgentEngine {
  if (!folder) throw new ArborError('WORKSPACE_NONE', `Open a folder first: the external agent ${options.config.name} works in the workspace folder.`);
  return new ExternalAgentEngine({
    config: options.config,
    services: runtimeServices(runtime),
    cwd: folder,
    secretEnv: options.secretEnv,
    stopGraceMs: options.stopGraceMs,
    startTimeoutMs: options.startTimeoutMs,
    loadSessionId: options.loadSessionId,
    ...more,
  });
}

/**
 * The engine that continues a past session of an external agent: its process reopens the
 * agent's own session (`session/load`) when the first turn starts. Only an agent that said it
 * can load sessions when that session was opened qualifies; otherwise EXTERNAL_NOT_RESUMABLE,
 * and History keeps the session read-only.
 */
export function externalEngineForResume(runtime: Runtime, log: Pick<SessionLog, 'header' | 'events'>, options: ExternalResumeOptions): ExternalAgentEngine {
  const opened = lastExternalSession(log.events);
  if (!opened?.loadSession) throw notResumable(options.config.name);
  return engineFor(runtime, { ...options, loadSessionId: opened.sessionId }, runtime.workspaceFolder);
}

/** Resumes a past external session as a root (see externalEngineForResume), with the person's next message when given. */
export function resumeExternalRoot(runtime: Runtime, sessionId: string, options: ExternalResumeOptions & { message?: string }): Promise<Agent> {
  return runtime.resumeRoot(sessionId, { message: options.message, externalEngine: (log) => externalEngineForResume(runtime, log, options) });
}

/** The protocol session the agent opened last, as its session log recorded it. */
export function lastExternalSession(events: readonly SessionEvent[]): Extract<SessionEvent, { type: 'external_session' }> | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event.type === 'external_session') return event;
  }
  return undefined;
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
  return runtime.startContinuable(parent, options.label ?? options.config.name, options.prompt, engine, options.definition);
}

/** The external agent's engine when `agent` is one. */
export function externalEngineOf(agent: Agent): ExternalAgentEngine | undefined {
  return agent.engine instanceof ExternalAgentEngine ? agent.engine : undefined;
}
