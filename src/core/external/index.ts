/**
 * External agents: any Agent Client Protocol agent (an external program) as an Arbor agent,
 * in the same tree, with the same Stop, approvals, reviewed edits and History.
 */
export {
  externalAgentConfigSchema,
  parseExternalAgents,
  findExternalAgent,
  commandLineOf,
  type ExternalAgentConfig,
  type LocalAgentConfig,
  type RemoteAgentConfig,
  type ParsedExternalAgents,
} from './config';
export { signInNeeded, notResumable } from './acpErrors';
export { isRemoteAgent, SET_TOKEN_COMMAND_TITLE } from './networkCarrier';
export { AcpSession, DEFAULT_START_TIMEOUT_MS, type AcpAgentInfo, type AcpClientHandlers, type AcpSessionOptions } from './acpConnection';
export { AgentProcess, PROCESS_KILL_GRACE_MS, type ProcessExit } from './agentProcess';
export { ExternalAgentClient, describeToolCall, type ExternalAgentServices } from './clientServices';
export { ExternalAgentEngine, DEFAULT_STOP_GRACE_MS, type ExternalEngineOptions, type ExternalStart } from './externalEngine';
export { externalEngineForRestore, restartExternalProcess, type ExternalRestoreOptions } from './restoreExternal';
export { TerminalSet } from './terminals';
export {
  startExternalRoot,
  startExternalChild,
  externalEngineOf,
  runtimeServices,
  externalEngineForResume,
  resumeExternalRoot,
  type ExternalStartOptions,
  type ExternalResumeOptions,
} from './startExternal';
export { startExternalAgentTool, startExternalAgentArgsSchema, type ExternalAgentDirectory, type ExternalChildStarter } from './startExternalAgentTool';
