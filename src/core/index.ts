/** Arbor's runtime, as the editor layer sees it. Modules keep their own doors (index.ts). */
export { Runtime, Run, INTERRUPTED_NOTE, type SubagentService } from './runtime';
export { runtimeEventNamesBut } from './runtime';
export type { BranchStopResult, RuntimeEvent, RuntimeEventName, RuntimeEventOf, RuntimeOptions, RuntimeTool, RuntimeToolContext, StartRootOptions, ResumeRootOptions, ClosableSessionLog, DurableSessionStore } from './runtime';
export { ArborError, AbortedError, abortCauseOf, asArborError, isArborError, limitExceeded, messageOf, toFailure, type ArborErrorCode, type CancelCause } from './errors';
export { Emitter, type Disposable } from './events';
export { untilAborted } from './untilAborted';
export { once } from './once';
export { partOnFirstUse } from './partLoader';
export { DEFAULT_LIMITS, RunBudget, resolveLimits, runLimitsSchema, type RunLimits, type RunLimitsInput } from './limits';
export { BudgetGuard, budgetStatus, formatCost, priceTableSchema, runawaySettingsSchema, spentBudget, type BudgetEvent, type BudgetLevel, type BudgetMeasure, type BudgetStatus, type PriceTable, type RunawaySettings, type RunawaySettingsInput } from './budgets';
export { type LiveRecordExtras, type RestoredAgent, type RestoreLiveOptions, type RestoreProblem, type RestoreReport } from './restore';
