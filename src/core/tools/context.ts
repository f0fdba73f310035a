import type { Agent } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';
import type { ApprovalService, RunInteractionPolicy, UserInteractionService } from '../interaction';
import type { AgentKind, SessionLog } from '../sessions/types';
import type { InterruptAuthority, InterruptResult } from '../subagents/continuation';
import type { OneShotOutcome } from '../subagents/oneShot';
import type { ChangeSets } from '../workspace/changeSets';
import type { WorkspacePort } from '../workspace/port';

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

/**
 * What tools may ask of the runtime that hosts them: delegation, messages and interrupts to
 * subagents, the live registry, the workspace folder and its files, and the record of what each
 * agent changed. Tools see these capabilities, never
 * the runtime itself, so the runtime can depend on its tools without a loop back.
 */
export interface ToolHost {
  readonly workspaceFolder: string | undefined;
  /** The user's files, confined to the workspace folders; none when no folder is open. */
  readonly workspace: WorkspacePort | undefined;
  /** Per agent, the files it changed and their content before its first change. */
  readonly changes: ChangeSets;
  readonly agents: AgentRegistry;
  readonly subagents: {
    deliver(caller: Agent, targetId: string, message: string): Promise<{ agentId: string; resumed: boolean }>;
    interrupt(targetSessionId: string, authority: InterruptAuthority): InterruptResult;
  };
  runOneShot(parent: Agent, label: string, prompt: string, signal: AbortSignal): Promise<OneShotOutcome>;
  startContinuable(parent: Agent, label: string, prompt: string): Agent;
}

/** What every runtime tool handler receives. */
export interface RuntimeToolContext extends BaseToolContext {
  agent: Agent;
  runtime: ToolHost;
  /** The run's interaction policy, resolved once when the run started. */
  policy: RunInteractionPolicy;
  interaction: UserInteractionService;
  approvals: ApprovalService;
}
