import type { Agent } from '../agents/agent';
import type { Hold } from '../agents/holds';
import { slicesPart } from '../parts';
import type { SliceEvent, SliceGuardDeps } from './sliceEvents';
import type { SliceGuard } from './sliceGuard';
import type { BudgetSlice } from './slices';
import type { SliceLimits, SliceRecordData, SliceRequest } from './sliceRequest';

export type { SliceEvent };

/**
 * The budget guard's side of budgets per branch (slices.ts), in the start bundle: it loads the
 * slice guard (a part, sliceGuard.ts) with the first slice asked for or put back, and until then
 * answers for it at no cost, since no run has a slice. Every call means what SliceGuard's does.
 */
export class SliceFront {
  private guard: SliceGuard | undefined;

  constructor(private readonly deps: SliceGuardDeps) {}

  private loaded(): SliceGuard {
    return (this.guard ??= new (slicesPart().SliceGuard)(this.deps));
  }

  /** The slice a child of `parent` would get (BUDGET_SLICE_TOO_LARGE when less is left); none without a budget. */
  take(parent: Agent, label: string, request: SliceRequest | undefined, definitionBudget?: SliceRequest): BudgetSlice | undefined {
    if (!request && !definitionBudget) return undefined;
    return this.loaded().take(parent, label, request, definitionBudget);
  }

  /** Runs `start`, whose child gets `slice` as it joins the run. */
  startWith<T>(parent: Agent, slice: BudgetSlice | undefined, start: () => T): T {
    return slice ? this.loaded().startWith(parent, slice, start) : start();
  }

  /** A restored agent's slice, before it joins the run. */
  restore(agent: Agent, record: SliceRecordData): void {
    this.loaded().restore(agent, record);
  }

  /** Raise the slice `owner` was given (INPUT_INVALID when it has none), and let its branch go on. */
  raise(owner: Agent, limits?: Partial<SliceLimits>): SliceLimits {
    return this.loaded().raise(owner, limits);
  }

  ownSliceOf(agent: Agent): BudgetSlice | undefined {
    return this.guard?.ownSliceOf(agent);
  }

  statusOf(agent: Agent): ReturnType<SliceGuard['statusOf']> {
    return this.guard?.statusOf(agent);
  }

  added(agent: Agent): void {
    this.guard?.added(agent);
  }

  removed(agent: Agent): void {
    this.guard?.removed(agent);
  }

  check(agent: Agent, streaming?: Agent): void {
    if (agent.run.budget.slices) this.guard?.check(agent, streaming);
  }

  turnEnded(agent: Agent, hold: Hold): void {
    this.guard?.turnEnded(agent, hold);
  }

  keepsHeld(agent: Agent): boolean {
    return this.guard?.keepsHeld(agent) ?? false;
  }

  dispose(): void {
    this.guard?.dispose();
  }
}
