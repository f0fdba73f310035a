/** Run budgets (what a run used and may use, its cost, the pause at its cap) and runaway guards. */
export { BudgetGuard, RESUME_NOTE, type BudgetEvent, type BudgetGuardDeps } from './budgetGuard';
export { raisedLimits } from './raisedLimits';
export { RunawayGuard, type RunawayEvent } from './runawayGuard';
export { budgetStatus, spentBudget, formatCount, formatSeconds, WARNING_FRACTION, type BudgetKey, type BudgetLevel, type BudgetMeasure, type BudgetStatus } from './budgetStatus';
export { blockedReport } from './blockedReport';
export { costOf, formatCost, modelPriceSchema, priceFor, priceTableSchema, type ModelPrice, type PriceTable } from './prices';
export { DEFAULT_RUNAWAY, RunawayDetector, runawaySettingsSchema, type RunawaySettings, type RunawaySettingsInput } from './runaway';
export { SLICE_RESUME_NOTE, SliceGuard, type SliceEvent } from './sliceGuard';
export { slicesOf, type SliceBook } from './sliceBook';
export { BudgetSlice, describeSliceValue, sliceRequestSchema, sliceStatus, type SliceLimits, type SliceRequest } from './slices';
