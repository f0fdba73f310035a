// What a node of the Agents view says about budgets: its own and its branch's cost, how close
// its run is to a limit (a warning from 80%), how much of its own budget (a slice) it used, a
// pause, and a runaway guard's warning. Pure (no
// 'vscode' import) so the presentation that uses it stays unit-tested in plain Node.
import { budgetStatus, formatCost, type BudgetStatus } from '../../core/budgets';
import { describeHold, holdAt, type Agent } from '../../core/agents';

export interface UsageText {
  /** Short parts for the node's description, in order. */
  parts: string[];
  /** Markdown lines for the tooltip. */
  lines: string[];
  /** The node should look like it needs attention (warning icon). */
  warn: boolean;
}

/**
 * `branchCost` is the cost of the agent and every live agent below it (the tree adds it up);
 * `now` is the time wall time is measured at.
 */
export function usageText(agent: Agent, branchCost: number, now: number): UsageText {
  const budget = agent.run.budget;
  const parts: string[] = [];
  const lines: string[] = [];
  const own = budget.costOf(agent.id);
  if (branchCost > 0) parts.push(branchCost !== own ? `${formatCost(own)} (tree ${formatCost(branchCost)})` : formatCost(own));
  const status: BudgetStatus = budgetStatus(budget, now);
  // A spent budget or a runaway guard holds it: the hold says so, the same words as everywhere.
  const held = holdAt(agent.holds, 'turn');
  const hold = held && describeHold(held);
  const runaway = budget.agentWarning(agent.id);
  const slice = budget.slices?.usageOf(agent.id, now);
  if (hold) parts.push(hold.text);
  else {
    if (slice?.part) parts.push(slice.part);
    if (status.level !== 'ok' && status.highest) parts.push(`⚠ ${Math.floor(status.highest.fraction * 100)}% of ${budgetName(status.highest.key)}`);
  }
  if (runaway && !hold) parts.push(`⚠ ${runaway}`);

  if (slice) lines.push(...slice.lines);
  lines.push('', '**Run budget**');
  for (const m of status.measures) {
    if ((m.key === 'cost' || m.key === 'liveSubagents') && m.used === 0 && m.limit === 0) continue;
    lines.push(`- ${m.text}${m.limit > 0 ? ` (${Math.floor(m.fraction * 100)}%)` : ''}`);
  }
  if (own > 0) lines.push(`- This agent's cost: ${formatCost(own)}${branchCost !== own ? `; with its subagents: ${formatCost(branchCost)}` : ''}`);
  if (hold) lines.push('', hold.detail);
  if (runaway) lines.push('', `Runaway guard: ${runaway}.`);
  return { parts, lines, warn: hold !== undefined || runaway !== undefined || status.level !== 'ok' || slice?.part !== undefined };
}

function budgetName(key: string): string {
  switch (key) {
    case 'modelCalls':
      return 'model calls';
    case 'wallTime':
      return 'wall time';
    case 'liveSubagents':
      return 'live subagents';
    default:
      return key;
  }
}
