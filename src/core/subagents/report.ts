import type { TurnEnd } from '../agents/agent';
import { describeTurnEnd } from '../agents/turnEnds';

/**
 * A continuable child's report to its parent: written for the parent's model (who reported,
 * its agent_id, how its turn ended, its final text, whether it was released), and read back
 * for people: the conversation view shows one short line and folds the rest.
 *
 * Both directions live here so the text the model receives and the line a person reads can
 * never drift apart; `readReport(formatReport(r))` gives back `r`'s label, id and outcome.
 */

export type ReportOutcome = 'completed' | 'stopped' | 'interrupted' | 'budget' | 'failed' | 'children-finished';

export interface SubagentReport {
  label: string;
  agentId: string;
  outcome: ReportOutcome;
  /** The cancel cause, limit or error behind an interrupted, budget or failed outcome. */
  detail?: string;
  /** The child's last text of the turn. */
  finalText?: string;
  /** The child is idle with nothing left to do and has been released. */
  released: boolean;
}

/** The report of a child whose turn ended (`end`), or whose own subagents all finished. */
export function reportOf(label: string, agentId: string, end: TurnEnd | undefined, released: boolean): SubagentReport {
  if (!end) return { label, agentId, outcome: 'children-finished', released };
  const base = { label, agentId, released, finalText: end.finalText || undefined };
  const how = describeTurnEnd(end);
  switch (how.outcome) {
    case 'completed':
      return { ...base, outcome: 'completed' };
    case 'stopped':
      return { ...base, outcome: 'stopped' };
    case 'cancelled':
    case 'ended':
      return { ...base, outcome: 'interrupted', detail: end.cause ?? 'cancelled' };
    case 'limit':
    case 'paused':
      return { ...base, outcome: 'budget', detail: how.detail ?? 'budget' };
    case 'blocked':
    case 'failed':
    case 'interrupted':
      return { ...base, outcome: 'failed', detail: how.detail ?? end.reason };
  }
}

const HOW: Record<Exclude<ReportOutcome, 'children-finished'>, (detail: string) => string> = {
  completed: () => 'finished its turn',
  stopped: () => 'was stopped by the user; it keeps its conversation and waits for a message',
  interrupted: (detail) => `was interrupted (${detail}); it keeps its conversation and waits for a message`,
  budget: (detail) => `hit a run limit (${detail})`,
  failed: (detail) => `failed (${detail})`,
};

const RELEASED = (agentId: string) => `It is now idle and has been released; send_message to ${agentId} resumes it with its conversation.`;

/** The report as the parent's model reads it. */
export function formatReport(report: SubagentReport): string {
  const lines: string[] = [];
  if (report.outcome === 'children-finished') {
    lines.push(`[Subagent "${report.label}" (agent_id: ${report.agentId})] Its own subagents have finished.`);
  } else {
    lines.push(`[Report from subagent "${report.label}" (agent_id: ${report.agentId})] It ${HOW[report.outcome](report.detail ?? '')}.`);
    if (report.finalText) lines.push(report.finalText);
  }
  if (report.released) lines.push(RELEASED(report.agentId));
  return lines.join('\n');
}

const TURN_HEADER = /^\[Report from subagent "(.*)" \(agent_id: ([^)\n]*)\)\] It (.*)\.$/;
const CHILDREN_HEADER = /^\[Subagent "(.*)" \(agent_id: ([^)\n]*)\)\] Its own subagents have finished\.$/;

/** Who reported and how it ended, read from a report's text; undefined for any other text. */
export function readReport(text: string): Pick<SubagentReport, 'label' | 'agentId' | 'outcome' | 'released'> | undefined {
  const newline = text.indexOf('\n');
  const first = newline < 0 ? text : text.slice(0, newline);
  const children = CHILDREN_HEADER.exec(first);
  if (children) return { label: children[1], agentId: children[2], outcome: 'children-finished', released: isReleased(text, children[2]) };
  const turn = TURN_HEADER.exec(first);
  if (!turn) return undefined;
  const how = turn[3];
  const outcome: ReportOutcome =
    how === HOW.completed('')
      ? 'completed'
      : how === HOW.stopped('')
        ? 'stopped'
        : how.startsWith('was interrupted (')
          ? 'interrupted'
          : how.startsWith('hit a run limit (')
            ? 'budget'
            : 'failed';
  return { label: turn[1], agentId: turn[2], outcome, released: isReleased(text, turn[2]) };
}

function isReleased(text: string, agentId: string): boolean {
  return text.endsWith(RELEASED(agentId));
}

/** One line for a person: "Researcher finished its turn", "Watcher was stopped by you". */
export function reportTitle(report: Pick<SubagentReport, 'label' | 'outcome' | 'released'>): string {
  const what: Record<ReportOutcome, string> = {
    completed: 'finished its turn',
    stopped: 'was stopped by you',
    interrupted: 'was interrupted',
    budget: 'hit a run limit',
    failed: 'failed',
    'children-finished': "'s subagents have finished",
  };
  const line = report.outcome === 'children-finished' ? `${report.label}${what[report.outcome]}` : `${report.label} ${what[report.outcome]}`;
  return report.released ? `${line} and is idle` : line;
}
