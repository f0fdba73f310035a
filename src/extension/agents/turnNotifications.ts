import * as vscode from 'vscode';
import type { Runtime } from '../../core';
import type { TranscriptProvider } from '../conversation/transcripts';
import { TaskOutcomes } from './taskOutcomes';

/** The setting that turns the notifications off (the log keeps every turn end regardless). */
export const TASK_OUTCOME_NOTIFICATIONS_SETTING = 'notifications.taskOutcome';

/**
 * Every turn's end goes to the Arbor log. The outcome of each task a person gave a root agent
 * (its answer, or why it could not finish) also shows as one notification that opens its
 * transcript: one per task, not one per turn (see TaskOutcomes), unless the setting is off.
 * Scheduled runs are left to the scheduler's own notification.
 */
export function notifyTurnEnds(runtime: Runtime, transcripts: TranscriptProvider, log: vscode.LogOutputChannel): vscode.Disposable {
  const outcomes = new TaskOutcomes();
  return runtime.onEvent((e) => {
    if (e.type === 'agent_changed' && e.change.type === 'turn_end') {
      const end = e.change.end;
      log.info(`"${e.agent.label}" turn ${end.turn} ended: ${end.reason}${end.cause ? ` (${end.cause})` : ''}${end.message ? `: ${end.message}` : ''}`);
    }
    const outcome = outcomes.observe(e);
    if (!outcome) return;
    // Read each time: turning the setting off silences the next outcome already.
    if (vscode.workspace.getConfiguration('arbor').get<unknown>(TASK_OUTCOME_NOTIFICATIONS_SETTING, true) === false) return;
    const { agent, end } = outcome;
    // A scheduled run announces its own outcome, with its BLOCKED items (see schedules/).
    if (agent.run.policy.mode === 'scheduled') return;
    const open = (pick: string | undefined): void => {
      if (pick) void transcripts.show(agent, { preview: false, preserveFocus: false });
    };
    if (end.reason === 'completed') {
      const text = end.finalText.length > 300 ? `${end.finalText.slice(0, 299)}…` : end.finalText;
      void vscode.window.showInformationMessage(`${agent.label}: ${text}`, 'Open Transcript').then(open);
    } else {
      const why = end.message ? `${end.reason}: ${end.message}` : end.reason;
      void vscode.window.showWarningMessage(`${agent.label} could not finish its task (${why.length > 300 ? `${why.slice(0, 299)}…` : why}).`, 'Open Transcript').then(open);
    }
  });
}
