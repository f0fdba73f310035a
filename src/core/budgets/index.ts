/** Run budgets (what a run used and may use, its cost, the pause at its cap) and runaway guards. */
export { BudgetGuard, RESUME_NOTE, type BudgetEvent, type BudgetGuardDeps } from './budgetGuard';
export { raisedLimits } from './raisedLimits';
export { RunawayGuard, type RunawayEvent } from './runawayGuard';
export { budgetStatus, spentBudget, formatCount, formatSeconds, WARNING_FRACTION, type BudgetKey, type BudgetLevel, type BudgetMeasure, type BudgetStatus } from './budgetStatus';
export { blockedReport } from './blockedReport';
export { costOf, formatCost, modelPriceSchema, priceFor, priceTableSchema, type ModelPrice, type PriceTable } from './prices';
export { DEFAULT_RUNAWAY, RunawayDetector, runawaySettingsSchema, type RunawaySettings, type RunawaySettingsInput } from './runaway';
export { SLICE_RESUME_NOTE, type SliceEvent } from './sliceEvents';
export type { SliceGuard } from './sliceGuard';
export type { BudgetSlice } from './slices';
export { sliceRequestSchema, type SliceLimits, type SliceRecordData, type SliceRequest } from './sliceRequest';
