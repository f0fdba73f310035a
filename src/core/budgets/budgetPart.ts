/**
 * What budgets need only once one is spent or a branch is given its own: the pause of a run at its
 * cap and its raise (runCaps.ts, with the BLOCKED report and the raised limits), and the slice
 * guard (budgets per branch). A part (dist/budgetPart.js): runs that never reach a limit and give
 * no slice never load it.
 */
export { pauseRun, raiseRun } from './runCaps';
export { SliceGuard } from './sliceGuard';
