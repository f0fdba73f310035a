import { parseUsageUpdate } from './acpAnswers';

/**
 * The cost an external agent reports for its session (`usage_update`), cumulative as the
 * protocol has it: each report counts only what it grew by since the last, so the run's cost
 * budget sees every amount once. A new session starts again from nothing; a loaded one goes on.
 * The amount is taken in the price table's unit (the agent's currency is not converted). The
 * context size the same update carries is not a count of tokens spent: tokens come from the
 * agent's answers to `session/prompt`.
 */
export class ReportedCost {
  private total = 0;

  /** A new protocol session: its reports start from nothing. */
  newSession(): void {
    this.total = 0;
  }

  /** What this update adds to the session's cost (0 when it says nothing of cost, or less). */
  growth(update: unknown): number {
    const amount = parseUsageUpdate(update)?.cost?.amount;
    if (amount === undefined) return 0;
    const grown = amount - this.total;
    this.total = amount;
    return Math.max(0, grown);
  }
}
