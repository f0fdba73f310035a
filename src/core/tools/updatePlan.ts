import * as z from 'zod';
import { once } from '../once';
import { jsonResult } from './catalog';
import { defineTool } from './defineTool';
import { MAX_PLAN_ITEMS, planItemsSchema, planSummary, recordPlan } from '../plans/plan';

export const UPDATE_PLAN_TOOL = 'update_plan';

export const updatePlanArgsSchema = once(() => z.object({ items: planItemsSchema() }));

/**
 * `update_plan`: the agent keeps a short plan the user watches fill in, under its node and in
 * its conversation view. Each call gives the whole list. It changes no file, so plan mode keeps
 * it (a plan is what plan mode is for).
 */
export const updatePlanTool = defineTool({
  name: UPDATE_PLAN_TOOL,
  description:
    'Keep your plan visible to the user: give the whole list of steps each time, each with status pending, in_progress or done ' +
    `(at most ${MAX_PLAN_ITEMS} steps, one in_progress at a time). Call it when you start a task of several steps and whenever a step's status changes.`,
  schema: updatePlanArgsSchema,
  readOnly: true,
  run(args, ctx) {
    recordPlan(ctx.agent, args.items);
    return jsonResult({ status: 'updated', plan: planSummary(args.items) ?? 'empty' });
  },
});
