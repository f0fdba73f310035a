import type { AgentKind, SessionLog } from '../sessions/types';

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
