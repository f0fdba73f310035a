/** Agents: one conversation driven by a turn loop, its inbox and cancel, and the live registry. */
export { Agent, unwrapLog } from './agent';
export type { AgentChange, AgentHost, AgentInit, AgentRun, AgentStatus, CancelOptions, MessageSource, SendOptions, TurnEnd, WakeMode } from './agent';
export { AgentRegistry, byCreation, type RegistryChange } from './registry';
