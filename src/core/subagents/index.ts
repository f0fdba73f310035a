/** Subagents: one-shot delegation, continuable children and their Activations, interrupt, listing. */
export { Activation, ContinuationManager } from './continuation';
export type { ContinuationHost, InterruptAuthority, InterruptResult, LoadedSettledChild, SettledChild } from './continuation';
export { listDescendants, type AgentListing } from './listing';
export { runOneShot, type OneShotOutcome } from './oneShot';
export { formatReport, readReport, reportOf, reportTitle, type ReportOutcome, type SubagentReport } from './report';
export { interruptTarget } from './interrupt';
export { newActivation } from './activation';
export { checkDelegationLimits } from './delegationLimits';
export type { SubagentService } from './continuation';
