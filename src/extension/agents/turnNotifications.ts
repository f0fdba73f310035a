import * as vscode from 'vscode';
import type { Runtime } from '../../core';
import type { TranscriptProvider } from '../conversation/transcripts';

/**
 * Every turn's end goes to the Arbor log; a root agent's final answer also shows as a
 * notification that opens its transcript.
 */
export function notifyTurnEnds(runtime: Runtime, transcripts: TranscriptProvider, log: vscode.LogOutputChannel): vscode.Disposable {
  return runtime.onEvent((e) => {
    if (e.type !== 'agent_changed' || e.change.type !== 'turn_end') return;
    const { agent } = e;
    const end = e.change.end;
    log.info(`"${agent.label}" turn ${end.turn} ended: ${end.reason}${end.cause ? ` (${end.cause})` : ''}${end.message ? `: ${end.message}` : ''}`);
    if (agent.kind === 'root' && end.reason === 'completed' && end.finalText) {
      const text = end.finalText.length > 300 ? `${end.finalText.slice(0, 299)}…` : end.finalText;
      void vscode.window.showInformationMessage(`${agent.label}: ${text}`, 'Open Transcript').then((pick) => {
        if (pick) void transcripts.show(agent, { preview: false, preserveFocus: false });
      });
    }
  });
}
