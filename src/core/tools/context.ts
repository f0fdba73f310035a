import type { Agent } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';
import type { AgentDefinitions } from '../definitions/definitionSet';
import type { AgentDefinition } from '../definitions/types';
import type { ApprovalService, RunInteractionPolicy, UserInteractionService } from '../interaction';
import type { AgentKind, SessionLog } from '../sessions/types';
import type { InterruptAuthority, InterruptResult } from '../subagents/continuation';
import type { OneShotOutcome } from '../subagents/oneShot';
import type { CommandSandbox } from '../sandbox';
import type { ChangeSets } from '../workspace/changeSets';
import type { BranchScopeRequest, WritesHost } from '../scopes/writeScope';
import type { WorkspacePort } from '../workspace/port';
import type { ToolDefinition } from './types';

/**
 * What every tool handler can rely on about its caller. At runtime `agent` is the exact live
 * Agent object (identity matters: the interaction and subagent services authenticate it
 * through the registry), so tools pass it on unchanged rather than copying fields.
 */
export interface ToolCaller {
  readonly id: string;
  readonly label: string;
  readonly kind: AgentKind;
  readonly log: SessionLog;
  /** Plan mode: only read-only tools are offered; exit_plan_mode asks to leave it. */
  planMode: boolean;
}

export interface BaseToolContext {
  agent: ToolCaller;
  /** The turn's signal: aborted when the turn is cancelled. */
  signal: AbortSignal;
  toolCallId: string;
}

// --- Capabilities: what tools may ask of the runtime, each as small as its users need ---

/** Start subagents on a task; the runtime checks the caller is live and the run's limits. */
export interface Delegation {
  /** `request`: what the delegation asks of the branch beside its task: its write scope, its own slice of the run's budget (refused when less is left). */
  runOneShot(parent: Agent, label: string, prompt: string, signal: AbortSignal, definition?: AgentDefinition, request?: BranchScopeRequest): Promise<OneShotOutcome>;
  startContinuable(parent: Agent, label: string, prompt: string, engine?: undefined, definition?: AgentDefinition, request?: BranchScopeRequest): Agent;
  /** The agent definitions a delegation may name (`agent: "<name>"`). */
  readonly definitions: Pick<AgentDefinitions, 'get' | 'list'>;
}

/** Messages and interrupts to continuable subagents, authorised by the caller's exact identity. */
export interface SubagentMessaging {
  deliver(caller: Agent, targetId: string, message: string): Promise<{ agentId: string; resumed: boolean }>;
  interrupt(targetSessionId: string, authority: InterruptAuthority): InterruptResult;
}

/** The live agents, for listing a caller's subagents (a hint, never an authority). */
export type LiveAgents = Pick<AgentRegistry, 'childrenOf'>;

/** The workspace folder commands run in and paths are relative to; none when no folder is open. */
export interface WorkspaceFolder {
  readonly workspaceFolder: string | undefined;
}

/** Reaching the human: questions and plan approval go through `ask` (see interaction/asking.ts). */
export type Asking = Pick<UserInteractionService, 'ask'>;

/** Consent for an action (a command, the network, a write outside the workspace). */
export type Approvals = Pick<ApprovalService, 'request'>;

/**
 * What tools may ask of the runtime that hosts them: delegation, messages and interrupts to
 * subagents, the live registry, the workspace folder and its files, and the record of what each
 * agent changed. Tools see these capabilities, never
 * the runtime itself, so the runtime can depend on its tools without a loop back.
 */
export interface ToolHost extends Delegation, WorkspaceFolder {
  /** The user's files, confined to the workspace folders; none when no folder is open. */
  readonly workspace: WorkspacePort | undefined;
  /** Per agent, the files it changed and their content before its first change. */
  readonly changes: ChangeSets;
  /** Write scopes, files another agent holds, and the per-file queue (the seam every write passes). */
  readonly writes: WritesHost;
  readonly agents: AgentRegistry;
  readonly subagents: SubagentMessaging;
  /** What bounds the commands agents run (see src/core/sandbox); commands run as they are without it. */
  readonly sandbox?: CommandSandbox;
}

/** What every runtime tool handler receives. */
export interface RuntimeToolContext extends BaseToolContext {
  agent: Agent;
  runtime: ToolHost;
  /** The run's interaction policy, resolved once when the run started. */
  policy: RunInteractionPolicy;
  interaction: Asking;
  approvals: Approvals;
}

/** A tool as the runtime's catalog holds it. */
export type RuntimeTool = ToolDefinition<RuntimeToolContext>;
