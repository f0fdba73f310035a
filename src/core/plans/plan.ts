import * as z from 'zod';
import { isoNow } from '../clock';
import { once } from '../once';
import type { PlanItem, SessionEvent } from '../sessions/types';

/**
 * An agent's plan: the steps it means to take and where it is, replaced whole at each update
 * (never patched, so a view shows exactly the last list the agent gave). Plans come from the
 * model (update_plan) and from external agents, so both are checked with one schema and capped:
 * a plan is a glance at intent, not a second transcript.
 */
export const MAX_PLAN_ITEMS = 50;
export const MAX_PLAN_STEP_CHARS = 300;

export const planItemsSchema = once(() =>
  z
    .array(
      z.object({
        step: z.string().trim().min(1).max(MAX_PLAN_STEP_CHARS).describe('What this step does, in a few words.'),
        status: z.enum(['pending', 'in_progress', 'done']),
      }),
    )
    .max(MAX_PLAN_ITEMS)
    .refine((items) => items.filter((i) => i.status === 'in_progress').length <= 1, 'at most one step may be in_progress'),
);

/** What holds a plan: the agent (set as its log records it), so views read it without the transcript. */
export interface PlanHolder {
  plan: readonly PlanItem[] | undefined;
  append(event: SessionEvent): void;
}

/** Makes `items` the agent's plan and records it in its session (the log's append announces it). */
export function recordPlan(agent: PlanHolder, items: readonly PlanItem[]): void {
  const copy = items.map(({ step, status }) => ({ step, status }));
  agent.plan = copy;
  agent.append({ type: 'plan', at: isoNow(), items: copy });
}

/** The last plan a session recorded, if any. */
export function planFromEvents(events: readonly SessionEvent[]): PlanItem[] | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event.type === 'plan') return event.items;
  }
  return undefined;
}

/**
 * The plan at a glance, for a node's description: "3/7 · writing tests" (done of all, then the
 * step in progress, or the next pending one); undefined for no plan or an empty one.
 */
export function planSummary(plan: readonly PlanItem[] | undefined): string | undefined {
  if (!plan?.length) return undefined;
  const done = plan.filter((i) => i.status === 'done').length;
  const current = plan.find((i) => i.status === 'in_progress') ?? plan.find((i) => i.status === 'pending');
  return current ? `${done}/${plan.length} · ${current.step}` : `${done}/${plan.length} done`;
}

/** A checkbox per step, for a tooltip or a log line. */
export function planLines(plan: readonly PlanItem[]): string[] {
  return plan.map((i) => `${i.status === 'done' ? '☑' : i.status === 'in_progress' ? '▶' : '☐'} ${i.step}`);
}
