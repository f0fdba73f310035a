/** Plans: the steps an agent means to take and where it is, kept in its session and shown live. */
export { MAX_PLAN_ITEMS, MAX_PLAN_STEP_CHARS, planFromEvents, planItemsSchema, planLines, planSummary, recordPlan, type PlanHolder } from './plan';
