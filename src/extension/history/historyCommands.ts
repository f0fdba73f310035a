import * as vscode from 'vscode';
import type { Agent, TurnEngine } from '../../core/agents';
import { ArborError } from '../../core';
import type { Runtime } from '../../core';
import { MemorySessionLog, salvagedSessionWarning, type JsonlSessionStore, type SessionLog } from '../../core/sessions';
import { kindText } from '../agents/agentPresentation';
import { parseSessionArgument } from '../commandArguments';
import { parsedArgument, reportError } from '../errorReporting';
import { relativeTime } from './historyNodes';
import type { HistoryTreeProvider } from './historyTree';
import type { TranscriptProvider } from '../conversation/transcripts';
import type { HISTORY_COMMANDS } from '../parts';

export interface HistoryCommandDeps {
  runtime: Runtime;
  store: JsonlSessionStore | undefined;
  history: HistoryTreeProvider;
  transcripts: TranscriptProvider;
  agentsView: Pick<vscode.TreeView<Agent>, 'reveal'>;
  log: vscode.LogOutputChannel;
  /** The engine that reopens a session an external agent ran (through session/load), or a typed error saying why it cannot. */
  externalEngine?: (log: SessionLog) => Promise<TurnEngine<Agent>>;
}

/** What Arbor History's commands do: a part loaded by the first of them (src/extension/parts.ts). */
export function historyCommands(deps: HistoryCommandDeps): Record<(typeof HISTORY_COMMANDS)[number], (arg?: unknown) => unknown> {
  const { runtime, store, history, transcripts, agentsView, log, externalEngine } = deps;

  const pickSession = async (): Promise<string | undefined> => {
    const sessions = (await history.sessions()).filter((n) => !runtime.agents.get(n.entry.header.id));
    if (sessions.length === 0) {
      void vscode.window.showInformationMessage('There is no past session to resume. Sessions of the agents you run appear in Arbor History.');
      return undefined;
    }
    const now = Date.now();
    const items = sessions
      .sort((a, b) => Date.parse(b.entry.summary.lastActivity) - Date.parse(a.entry.summary.lastActivity))
      .map((n) => ({
        label: n.entry.header.label || n.entry.header.id,
        description: [kindText(n.entry.header.kind), relativeTime(n.entry.summary.lastActivity, now), n.parent ? `started by ${n.parent.entry.header.label}` : undefined]
          .filter(Boolean)
          .join(' · '),
        detail: n.entry.summary.firstUserMessage,
        id: n.entry.header.id,
      }));
    const picked = await vscode.window.showQuickPick(items, { title: 'Arbor: Resume Session', placeHolder: 'Choose a past session to continue as a new root agent', matchOnDetail: true });
    return picked?.id;
  };

  const reveal = (agent: Agent): void => {
    void vscode.commands.executeCommand('arbor.agents.focus').then(() => agentsView.reveal(agent, { select: true, focus: false }).then(undefined, () => undefined));
  };

  return {
    'arbor.refreshHistory': () => history.refresh(),

    'arbor.resumeSession': async (arg?: unknown) => {
      const target = parsedArgument(log, () => parseSessionArgument('Arbor: Resume Session', arg));
      try {
        if (!store) throw new ArborError('INPUT_INVALID', 'Sessions are kept in memory only in this editor, so there is nothing to resume.');
        const id = target.kind === 'session' ? target.id : target.kind === 'none' ? await pickSession() : undefined;
        if (!id) return undefined;
        const live = runtime.agents.get(id);
        if (live) {
          void vscode.window.showInformationMessage(`"${live.label}" is already running in this window.`);
          reveal(live);
          return live.id;
        }
        const agent = await runtime.resumeRoot(id, { externalEngine });
        log.info(`Resumed session "${agent.label}" (${agent.id}) as a root agent: ${agent.turnCount} earlier turn(s), mode ${agent.log.header.interactionMode}.`);
        history.refresh();
        reveal(agent);
        return agent.id;
      } catch (err) {
        reportError(log, 'Could not resume the session', err);
        return undefined;
      }
    },

    // Read-only: the transcript scheme has no way to write back.
    'arbor.openSessionTranscript': async (arg?: unknown) => {
      const target = parsedArgument(log, () => parseSessionArgument('Arbor: Open Session Transcript', arg));
      try {
        const id = target.kind === 'session' ? target.id : await pickSession();
        if (!id) return undefined;
        const live = runtime.agents.get(id);
        if (live) return (await transcripts.show(live)).document.uri.toString();
        if (!store) return undefined;
        const loaded = await store.loadSession(id);
        const snapshot = new MemorySessionLog(loaded.header);
        for (const event of loaded.events) snapshot.append(event);
        transcripts.remember(snapshot, loaded.repairs.damage && salvagedSessionWarning(loaded.repairs.damage));
        const doc = await vscode.workspace.openTextDocument(transcripts.uriFor(id));
        await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
        return doc.uri.toString();
      } catch (err) {
        reportError(log, 'Could not open the transcript', err);
        return undefined;
      }
    },
  };
}
