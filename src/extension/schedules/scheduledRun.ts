// One scheduled run in the editor: a root agent in `scheduled` mode (it never asks anyone;
// approvals come from rules only), watched until it settles, then ended so its session moves
// to History, and announced with its outcome and the decisions it names as BLOCKED.
import * as vscode from 'vscode';
import type { Runtime } from '../../core';
import type { Agent } from '../../core/agents';
import type { AgentRuns } from '../agents/agentRuns';
import { describeOutcome, whenRunSettles, type RunResult } from '../runs/runResult';
import type { Schedule } from './scheduleConfig';
import type { LastOutcome, RunTrigger } from './scheduler';

export interface ScheduledRunEvents {
  /** A scheduled run's agent started (tests watch it; the tree shows it anyway). */
  started(schedule: Schedule, agent: Agent, trigger: RunTrigger): void;
  /** It settled, and this is what its notification says. */
  finished(schedule: Schedule, result: RunResult, notification: string): void;
}

export interface ScheduledRunDeps {
  runtime: Runtime;
  runs: AgentRuns;
  log: vscode.LogOutputChannel;
  events: ScheduledRunEvents;
}

const TRIGGER_TEXT: Record<RunTrigger, string> = { due: 'on schedule', missed: 'for a run missed while the editor was closed', manual: 'by Run Now' };

export function scheduledRun({ runtime, runs, log, events }: ScheduledRunDeps): (schedule: Schedule, trigger: RunTrigger) => Promise<LastOutcome> {
  return async (schedule, trigger) => {
    const agent = runs.start({ prompt: schedule.prompt, label: schedule.label }, 'scheduled', undefined, schedule.limits);
    log.info(`Schedule "${schedule.name}" started "${agent.label}" (${agent.id}) ${TRIGGER_TEXT[trigger]}`);
    events.started(schedule, agent, trigger);
    const result = await whenRunSettles(agent);
    // Its session is in History from now on; nothing is left waiting in the Agents view.
    if (runtime.agents.isLive(agent)) await runtime.end(agent);
    const notification = notificationText(schedule, result);
    log.info(notification);
    events.finished(schedule, result, notification);
    void notify(notification, result);
    return { at: new Date().toISOString(), reason: result.reason, summary: describeOutcome(result), blocked: result.blocked, sessionId: result.agentId };
  };
}

function notificationText(schedule: Schedule, result: RunResult): string {
  const head = `Scheduled run "${schedule.name}" ${describeOutcome(result)}`;
  if (result.blocked.length > 0) return `${head}. BLOCKED: ${result.blocked.join('; ')}`;
  const text = result.text.replace(/\s+/g, ' ').trim();
  return text ? `${head}: ${text.length > 240 ? `${text.slice(0, 239)}…` : text}` : `${head}.`;
}

async function notify(text: string, result: RunResult): Promise<void> {
  const clean = result.reason === 'completed' && result.blocked.length === 0;
  const show = clean ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
  const pick = await show(`Arbor: ${text}`, 'Open Transcript', 'Show History');
  if (pick === 'Open Transcript') await vscode.commands.executeCommand('arbor.openSessionTranscript', result.agentId);
  else if (pick === 'Show History') await vscode.commands.executeCommand('arbor.history.focus');
}
