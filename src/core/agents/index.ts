/** Agents: one conversation driven by a turn loop, its inbox, holds and cancel, and the live registry. */
export { Agent, unwrapLog } from './agent';
export { describeHold, holdAt, isQueueHold, newHold, primaryHold, RELEASE, type GateStep, type Hold, type HoldDescription, type HoldReason, type HoldRelease, type HoldTarget } from './holds';
export type { RunGate } from './agentRun';
export { activityOf, type AgentActivity } from './activity';
export { describeTurnEnd, type TurnEndDescription, type TurnEndFacts, type TurnEndTone, type TurnOutcome } from './turnEnds';
export type { AgentChange, AgentHost, AgentInit, AgentRun, AgentStatus, EngineNotice, EngineTurn, RunWorkspace, CancelOptions, MessageSource, SendOptions, TurnEnd, TurnEngine, WakeMode } from './agent';
export { AgentRegistry, byCreation, type RegistryChange } from './registry';
export { AgentFactory, labelFromPrompt, sessionIdMaker, type AgentSpec } from './agentFactory';
export { readSessionSnapshot, type SessionSnapshot } from './sessionSnapshot';
export { EndedAgentLogs, type ClosableSessionLog, type DurableSessionStore } from './endedAgentLogs';
export { systemPromptFor, BASE_PROMPT } from './systemPrompt';
export type { RuntimeEvent } from './runtimeEvent';
