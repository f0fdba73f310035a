import * as vscode from 'vscode';
import { primaryHold, type Agent } from '../../core/agents';
import { ArborError, isArborError, messageOf } from '../../core';
import {
  ConversationModel,
  conversationErrorCodeSchema,
  conversationState,
  describeDoing,
  parseWebviewMessage,
  type ConversationErrorCode,
  type HostToWebviewMessage,
} from '../../core/conversation';
import type { RuntimeEvent } from '../../core';
import { doingOf } from '../agents/agentPresentation';
import { Disposable } from '../disposable';
import { pageHtml } from './conversationPage';
import type { ConversationPanelsDeps, ConversationView } from './conversationPanels';
import { SavedConversation, type Shown } from './savedConversation';

/** How long a burst of runtime events is gathered before one update reaches a view. */
const COALESCE_MS = 50;

/**
 * One agent's conversation view: what the agent (or its saved session) shows, kept up to date
 * in coalesced updates, and the view's Send and Stop.
 */
export class ConversationPanel extends Disposable implements ConversationView {
  private agent: Shown;
  private model: ConversationModel;
  /** The view has posted 'ready' since it last (re)loaded, so it takes updates. */
  private ready = false;
  private lastState = '';
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    private readonly panel: vscode.WebviewPanel,
    agent: Shown,
    private readonly deps: ConversationPanelsDeps,
    private readonly onDisposed: () => void,
    private readonly onPosted: (view: ConversationView, message: HostToWebviewMessage) => void,
  ) {
    super();
    this.agent = agent;
    this.model = new ConversationModel(agent.log.events, agent instanceof SavedConversation ? agent.warning : undefined);
    if (!(agent instanceof SavedConversation)) this.readPast(agent);
    panel.title = agent.label;
    panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'arbor.svg');
    panel.webview.html = pageHtml(panel.webview, deps.extensionUri);
    this._register(panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)));
    this._register(
      // Hidden views are unloaded (no retained context); the view asks again with 'ready'.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
    );
    this._register(panel.onDidDispose(() => this.dispose()));
  }

  get agentId(): string {
    return this.agent.id;
  }

  /** Follows a new agent object under the same session id (the session was resumed). */
  bind(agent: Agent): void {
    if (agent === this.agent) return;
    this.agent = agent;
    this.model = new ConversationModel(agent.log.events);
    this.readPast(agent);
    this.panel.title = agent.label;
    if (this.ready) this.postSnapshot();
  }

  /** A restored agent's transcript is read when its view opens; the view then shows it whole. */
  private readPast(agent: Agent): void {
    agent.loadPast()?.then(
      () => {
        if (this.disposed || this.agent !== agent) return;
        this.model = new ConversationModel(agent.log.events);
        if (this.ready) this.postSnapshot();
      },
      // Its node shows why (the session's problem); the view keeps what it has.
      () => undefined,
    );
  }

  reveal(preserveFocus: boolean): void {
    this.panel.reveal(this.panel.viewColumn, preserveFocus);
  }

  agentEvent(e: RuntimeEvent): void {
    if (e.agent !== this.agent) return;
    if (e.type === 'agent_changed' && e.change.type === 'log') this.model.apply(e.change.event);
    this.schedule();
  }

  schedule(): void {
    if (this.disposed || this.timer) return;
    this.timer = setTimeout(() => this.flush(), COALESCE_MS);
  }

  /** Handles one message from the view. Returns the replies it posted right away. */
  receive(raw: unknown): HostToWebviewMessage[] {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.deps.log.warn(`The conversation view of "${this.agent.label}" (${this.agent.id}) sent a message that was rejected: ${parsed.error.message}`);
      return [this.post(parsed.error)];
    }
    const message = parsed.message;
    switch (message.type) {
      case 'ready':
        this.ready = true;
        return [this.postSnapshot()];
      case 'send':
        return this.act('send', (agent) => {
          this.deps.runtime.sendFromUser(agent, message.text);
          this.deps.log.info(`Message queued for "${this.agent.label}" (${this.agent.id}) from its conversation view`);
        });
      case 'stop':
        return this.act('stop', (agent) => {
          // The user's Stop, as the tree's: the live agent this view holds is the authority, so
          // it works with the parent offline.
          this.deps.runtime.stop(agent);
          this.deps.log.info(`Stop requested for "${this.agent.label}" (${this.agent.id}) from its conversation view`);
        });
    }
  }

  /** Closes the view. */
  override dispose(): void {
    if (this.release()) this.panel.dispose();
  }

  /** Stops serving the view (its tab stays); false when that had already happened. */
  release(): boolean {
    if (this.disposed) return false;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    super.dispose();
    this.onDisposed();
    return true;
  }

  private act(what: 'send' | 'stop', action: (agent: Agent) => void): HostToWebviewMessage[] {
    try {
      if (this.agent instanceof SavedConversation) {
        throw new ArborError('AGENT_DISPOSED', `"${this.agent.label}" has ended; resume its session from Arbor History to continue it.`);
      }
      action(this.agent);
    } catch (err) {
      const code: ConversationErrorCode = isArborError(err) && conversationErrorCodeSchema().safeParse(err.code).success ? (err.code as ConversationErrorCode) : 'INTERNAL';
      const message = isArborError(err) ? err.message : `Could not ${what}: ${messageOf(err)}`;
      this.deps.log.error(`Conversation view of "${this.agent.label}": ${what} failed: ${message}`);
      return [this.post({ type: 'error', code, message })];
    }
    // The state changed now (queued, stopping…): show it without waiting for the next event.
    this.flush();
    return [];
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.disposed) return;
    if (!this.ready) {
      // The snapshot the view asks for when it loads carries everything.
      this.model.discardChanges();
      return;
    }
    const change = this.model.takeChanges();
    if (change) this.post({ type: 'items', start: change.start, items: change.items });
    const state = this.state();
    const json = JSON.stringify(state);
    if (json !== this.lastState) this.post({ type: 'state', state });
  }

  private postSnapshot(): HostToWebviewMessage {
    this.model.discardChanges();
    const agent = this.agent;
    return this.post({ type: 'snapshot', agent: { id: agent.id, label: agent.label, kind: agent.kind }, state: this.state(), items: [...this.model.items] });
  }

  private state() {
    const { runtime, interaction } = this.deps;
    const agent = this.agent;
    if (agent instanceof SavedConversation) {
      return conversationState({
        ...agent,
        live: false,
        stopping: false,
        waiting: false,
        parked: false,
        parentOffline: false,
        queued: this.model.queued(),
        tokens: agent.usage.inputTokens + agent.usage.outputTokens,
        plan: this.model.plan,
      });
    }
    const parent = runtime.agents.parentOf(agent);
    const doing = describeDoing(doingOf(agent, runtime.agents, interaction.pending(), runtime.sandbox.sandboxesCommands));
    return conversationState({
      kind: agent.kind,
      live: runtime.agents.isLive(agent),
      status: agent.status,
      stopping: agent.stopping !== undefined,
      waiting: interaction.pending().some((p) => p.agent?.id === agent.id),
      pendingCount: agent.pendingCount,
      parked: agent.isParked,
      turnStartedAt: agent.turnStartedAt,
      lastTurnEnd: agent.lastTurnEnd,
      parentOffline: agent.kind === 'continuable' && !(parent && runtime.agents.isLive(parent)),
      doing,
      held: agent.isHeld,
      hold: primaryHold(agent.holds),
      queued: this.model.queued(),
      tokens: agent.usage.inputTokens + agent.usage.outputTokens,
      plan: this.model.plan,
    });
  }

  private post(message: HostToWebviewMessage): HostToWebviewMessage {
    if (message.type === 'snapshot' || message.type === 'state') this.lastState = JSON.stringify(message.state);
    void this.panel.webview.postMessage(message);
    this.onPosted(this, message);
    return message;
  }
}
