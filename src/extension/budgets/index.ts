/** Budgets in the editor: the usage on each node, the status-bar item, and the pause's notifications. */
export { notifyBudgets } from './budgetEvents';
export { UsageStatusBar } from './usageStatusBar';
export { usageText, type UsageText } from './usageText';
