import * as vscode from 'vscode';
import type { Agent } from '../../core/agents';
import { ArborError, messageOf } from '../../core';
import type { UserInteractionService } from '../../core/interaction';
import { conversationViewStateSchema, type HostToWebviewMessage } from '../../core/conversation';
import type { Runtime } from '../../core';
import type { SessionDamage, SessionEvent, SessionHeader } from '../../core/sessions';
import { Disposable } from '../disposable';
import { CONVERSATION_VIEW_TYPE } from './conversationCommands';
import { ConversationPanel } from './conversationPanel';
import { webviewOptions } from './conversationPage';
import { SavedConversation, type Shown } from './savedConversation';

/** One agent's open conversation view: the handler of what its webview posts, and closing it. */
export interface ConversationView {
  readonly agentId: string;
  /** Handles one message from the view; returns the replies it posted right away. */
  receive(raw: unknown): HostToWebviewMessage[];
  /** Closes the view. */
  dispose(): void;
}

export interface ConversationPanelsDeps {
  runtime: Runtime;
  interaction: UserInteractionService;
  extensionUri: vscode.Uri;
  log: vscode.LogOutputChannel;
  /** Reads a saved session, to bring back a view whose agent a reload ended. */
  loadSession?: (id: string) => Promise<{ header: SessionHeader; events: readonly SessionEvent[]; repairs?: { damage?: SessionDamage } }>;
}

/**
 * One conversation view (a webview panel) per agent: the conversation live as the agent works,
 * its state, and independent Send and Stop. Runtime events are routed to the view of their
 * agent, coalesced, and sent as what changed; a view that (re)loads gets a full snapshot. Made
 * (and its part loaded, src/extension/parts.ts) when the first view opens or comes back.
 */
export class ConversationPanels extends Disposable {
  private readonly panels = new Map<string, ConversationPanel>();
  private disposed = false;
  private readonly posted = new vscode.EventEmitter<{ view: ConversationView; message: HostToWebviewMessage }>();
  /** Fires with each message a view is sent, as it is posted. */
  readonly onDidPost = this.posted.event;

  constructor(private readonly deps: ConversationPanelsDeps) {
    super();
    this._register(
      deps.runtime.onEvent((e) => {
        const panel = this.panels.get(e.agent.id);
        // The same session live again (a settled child its parent woke, a resumed session):
        // the view follows the new agent.
        if (e.type === 'agent_added') panel?.bind(e.agent);
        panel?.agentEvent(e);
      }),
    );
    this._register(
      deps.interaction.onDidChangePending((c) => {
        const id = c.interaction.agent?.id;
        if (id) this.panels.get(id)?.schedule();
      }),
    );
    this._register(
      // A parent that goes away changes what its children's views say.
      deps.runtime.agents.onDidChange(() => {
        for (const panel of this.panels.values()) panel.schedule();
      }),
    );
  }

  /** Opens the agent's conversation view, or reveals it when it is already open. */
  open(agent: Agent, options: { preserveFocus?: boolean } = {}): void {
    const existing = this.panels.get(agent.id);
    if (existing) {
      existing.bind(agent);
      existing.reveal(options.preserveFocus ?? false);
      return;
    }
    const webviewPanel = vscode.window.createWebviewPanel(
      CONVERSATION_VIEW_TYPE,
      agent.label,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: options.preserveFocus ?? false },
      { ...webviewOptions(this.deps.extensionUri), retainContextWhenHidden: false, enableFindWidget: true },
    );
    this.adopt(webviewPanel, agent);
  }

  /**
   * Brings back a view VS Code restored after a window reload, from the state the view kept:
   * on its agent when it is live again, otherwise on its saved session, read-only (a resume
   * from History makes it live again, and the view follows). A view whose state is not valid
   * or whose session is gone is closed, with the reason in the log.
   */
  async restore(webviewPanel: vscode.WebviewPanel, rawState: unknown): Promise<void> {
    if (this.disposed) return;
    const state = conversationViewStateSchema().safeParse(rawState);
    const id = state.success ? state.data.agentId : undefined;
    try {
      if (id === undefined) throw new ArborError('INPUT_INVALID', 'the view kept no valid agent id');
      if (this.panels.has(id)) throw new ArborError('INPUT_INVALID', 'a view of this agent is already open');
      webviewPanel.webview.options = webviewOptions(this.deps.extensionUri);
      const live = this.deps.runtime.agents.get(id);
      if (live) {
        this.adopt(webviewPanel, live);
        return;
      }
      if (!this.deps.loadSession) throw new ArborError('SESSION_NOT_FOUND', 'sessions are not saved in this window');
      const { header, events, repairs } = await this.deps.loadSession(id);
      // The agent may have come back while its session was being read.
      this.adopt(webviewPanel, this.deps.runtime.agents.get(id) ?? new SavedConversation(header, events, repairs?.damage));
    } catch (err) {
      this.deps.log.warn(`A conversation view from before the reload could not be restored (${id ?? 'no agent id'}): ${messageOf(err)}`);
      webviewPanel.dispose();
    }
  }

  private adopt(webviewPanel: vscode.WebviewPanel, shown: Shown): void {
    const panel = new ConversationPanel(webviewPanel, shown, this.deps, () => this.panels.delete(shown.id), (view, message) => this.posted.fire({ view, message }));
    this.panels.set(shown.id, panel);
  }

  /** The agent's open view, if there is one. */
  view(agentId: string): ConversationView | undefined {
    return this.panels.get(agentId);
  }

  /**
   * Stops serving the views but leaves their tabs open: at a window reload VS Code saves the
   * open editors after Arbor is deactivated, and a view closed here would not come back.
   */
  override dispose(): void {
    this.disposed = true;
    super.dispose();
    for (const panel of [...this.panels.values()]) panel.release();
    this.panels.clear();
    this.posted.dispose();
  }
}
