// Everything Arbor shows: the Agents and History views, transcripts, conversation views,
// question prompts and the previews they open. Each is registered with the editor here and
// owned by the extension's subscriptions.
import * as vscode from 'vscode';
import { messageOf, once } from '../core';
import { AgentsTreeProvider, type AgentsTreeNode } from './agents/agentsTree';
import { CONVERSATION_VIEW_TYPE } from './conversation/conversationCommands';
import type { ConversationPanels } from './conversation/conversationPanels';
import { TRANSCRIPT_SCHEME, TranscriptProvider } from './conversation/transcripts';
import type { HistoryNode } from './history/historyNodes';
import { HistoryTreeProvider } from './history/historyTree';
import { REVIEW_COMMANDS, commandsOnFirstUse, conversationsPart, reviewPart } from './parts';
import { QuestionPicker } from './questions/questionPicker';
import { REVIEW_SCHEME, ReviewPreviews } from './questions/reviewPreview';
import { ChangedFilesIndex, ORIGINAL_SCHEME, OriginalContentProvider, type ChangeReview } from './review';
import type { RuntimeHost } from './runtimeHost';

export interface ArborViews {
  tree: AgentsTreeProvider;
  /** The Agents view: agents and, under each, the files it changed. */
  treeView: vscode.TreeView<AgentsTreeNode>;
  /** Review, Keep and Undo of each agent's changes, made (and their part loaded) by the first of their commands. */
  review: () => ChangeReview;
  history: HistoryTreeProvider;
  historyView: vscode.TreeView<HistoryNode>;
  picker: QuestionPicker;
  previews: ReviewPreviews;
  transcripts: TranscriptProvider;
  /** The agents' conversation views, made (and their part loaded) when the first one opens or comes back. */
  conversations: () => ConversationPanels;
}

export function createViews(context: vscode.ExtensionContext, { runtime, store }: RuntimeHost, log: vscode.LogOutputChannel): ArborViews {
  const previews = new ReviewPreviews();
  // With `arbor.attention.openPrompts` = `manual` no prompt opens by itself (see questions/promptQueue.ts).
  const picker = new QuestionPicker(log, previews, () => vscode.workspace.getConfiguration('arbor').get('attention.openPrompts') === 'manual');
  const changedFiles = new ChangedFilesIndex(runtime.changes, (id, err) => log.warn(`The changes of session ${id} cannot be shown: ${messageOf(err)}`));
  const tree = new AgentsTreeProvider(runtime, runtime.interaction, changedFiles);
  const treeView = vscode.window.createTreeView('arbor.agents', { treeDataProvider: tree, showCollapseAll: true });
  const review = once(() => new (reviewPart().ChangeReview)({ runtime, index: changedFiles, store, log }));
  const reviewCommands = once(() => review().commands());
  const transcripts = new TranscriptProvider(runtime);
  let panels: ConversationPanels | undefined;
  const conversations = (): ConversationPanels =>
    (panels ??= new (conversationsPart().ConversationPanels)({
      runtime,
      interaction: runtime.interaction,
      extensionUri: context.extensionUri,
      log,
      loadSession: store && ((id) => store.loadSession(id)),
    }));
  // Conversation views open at a window reload come back on their agent's session. This one
  // registration stays for the life of the extension host, outside context.subscriptions: VS
  // Code keeps an open view across a reload only while its serializer is registered, and the
  // window saves its editors while Arbor is being deactivated.
  vscode.window.registerWebviewPanelSerializer(CONVERSATION_VIEW_TYPE, { deserializeWebviewPanel: (panel, state) => conversations().restore(panel, state) });
  const history = new HistoryTreeProvider(runtime, store);
  const historyView = vscode.window.createTreeView('arbor.history', { treeDataProvider: history, showCollapseAll: true });
  history.attach(historyView);

  context.subscriptions.push(
    history,
    historyView,
    runtime.interaction.registerProvider(picker),
    picker,
    previews,
    vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, previews),
    tree,
    changedFiles,
    treeView,
    vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, new OriginalContentProvider(runtime.changes)),
    ...commandsOnFirstUse(REVIEW_COMMANDS, reviewCommands),
    transcripts,
    { dispose: () => panels?.dispose() },
    vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, transcripts),
  );
  return { tree, treeView, review, history, historyView, picker, previews, transcripts, conversations };
}
