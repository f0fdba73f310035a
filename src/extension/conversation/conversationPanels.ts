import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { primaryHold, type Agent } from '../../core/agents';
import { ArborError, isArborError, messageOf } from '../../core';
import type { UserInteractionService } from '../../core/interaction';
import {
  ConversationModel,
  conversationErrorCodeSchema,
  conversationState,
  conversationViewStateSchema,
  describeDoing,
  parseWebviewMessage,
  type ConversationErrorCode,
  type HostToWebviewMessage,
} from '../../core/rpc';
import type { Runtime, RuntimeEvent } from '../../core';
import { salvagedSessionWarning, type AgentKind, type SessionDamage, type SessionEvent, type SessionHeader } from '../../core/sessions';
import { doingOf } from '../agents/agentPresentation';
import { Disposable } from '../disposable';

/** How long a burst of runtime events is gathered before one update reaches a view. */
const COALESCE_MS = 50;
export const CONVERSATION_VIEW_TYPE = 'arbor.conversation';

/** What a conversation view has been sent so far: tests and measurements read it. */
export interface ConversationStats {
  snapshots: number;
  /** `items` messages: only the items that changed. */
  itemUpdates: number;
  states: number;
  errors: number;
  /** Size of everything posted, as JSON characters. */
  bytes: number;
}

export interface ConversationPanelsDeps {
  runtime: Runtime;
  interaction: UserInteractionService;
  extensionUri: vscode.Uri;
  log: vscode.LogOutputChannel;
  /** Reads a saved session, to bring back a view whose agent a reload ended. */
  loadSession?: (id: string) => Promise<{ header: SessionHeader; events: readonly SessionEvent[]; repairs?: { damage?: SessionDamage } }>;
}

/** The session of an agent that is no longer live, shown read-only (after a window reload). */
class SavedConversation {
  readonly status = 'idle';
  readonly stopping = undefined;
  readonly pendingCount = 0;
  readonly isParked = false;
  readonly turnStartedAt = undefined;
  readonly id: string;
  readonly label: string;
  readonly kind: AgentKind;
  readonly log: { readonly events: readonly SessionEvent[] };
  readonly usage = { inputTokens: 0, outputTokens: 0 };
  readonly lastTurnEnd: { reason: Extract<SessionEvent, { type: 'turn_end' }>['reason'] } | undefined;
  /** What the view warns of before the conversation: the part of a damaged file left out. */
  readonly warning: string | undefined;

  constructor(header: SessionHeader, events: readonly SessionEvent[], damage?: SessionDamage) {
    this.id = header.id;
    this.warning = damage && salvagedSessionWarning(damage);
    this.label = header.label;
    this.kind = header.kind;
    this.log = { events };
    let lastEnd: SessionEvent | undefined;
    for (const event of events) {
      if (event.type === 'usage') {
        this.usage.inputTokens += event.inputTokens;
        this.usage.outputTokens += event.outputTokens;
      } else if (event.type === 'turn_end') lastEnd = event;
    }
    this.lastTurnEnd = lastEnd?.type === 'turn_end' ? { reason: lastEnd.reason } : undefined;
  }
}

type Shown = Agent | SavedConversation;

/**
 * One conversation view (a webview panel) per agent: the conversation live as the agent works,
 * its state, and independent Send and Stop. Runtime events are routed to the view of their
 * agent, coalesced, and sent as what changed; a view that (re)loads gets a full snapshot.
 */
export class ConversationPanels extends Disposable {
  private readonly panels = new Map<string, ConversationPanel>();
  private disposed = false;

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
    const state = conversationViewStateSchema.safeParse(rawState);
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
    const panel = new ConversationPanel(webviewPanel, shown, this.deps, () => this.panels.delete(shown.id));
    this.panels.set(shown.id, panel);
  }

  isOpen(agentId: string): boolean {
    return this.panels.has(agentId);
  }

  /**
   * Hands a raw message to the agent's view handler exactly as if its webview had posted it,
   * and returns what the handler posted back right away (tests inject untrusted input here).
   */
  receive(agentId: string, raw: unknown): HostToWebviewMessage[] {
    const panel = this.panels.get(agentId);
    if (!panel) throw new Error(`No conversation view is open for agent ${agentId}.`);
    return panel.receive(raw);
  }

  stats(agentId: string): ConversationStats | undefined {
    const stats = this.panels.get(agentId)?.stats;
    return stats && { ...stats };
  }

  /** Closes the agent's view (tests). */
  close(agentId: string): void {
    this.panels.get(agentId)?.dispose();
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
  }
}

class ConversationPanel extends Disposable {
  private agent: Shown;
  private model: ConversationModel;
  /** The view has posted 'ready' since it last (re)loaded, so it takes updates. */
  private ready = false;
  private lastState = '';
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;
  readonly stats: ConversationStats = { snapshots: 0, itemUpdates: 0, states: 0, errors: 0, bytes: 0 };

  constructor(
    private readonly panel: vscode.WebviewPanel,
    agent: Shown,
    private readonly deps: ConversationPanelsDeps,
    private readonly onDisposed: () => void,
  ) {
    super();
    this.agent = agent;
    this.model = new ConversationModel(agent.log.events, agent instanceof SavedConversation ? agent.warning : undefined);
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

  /** Follows a new agent object under the same session id (the session was resumed). */
  bind(agent: Agent): void {
    if (agent === this.agent) return;
    this.agent = agent;
    this.model = new ConversationModel(agent.log.events);
    this.panel.title = agent.label;
    if (this.ready) this.postSnapshot();
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
      const code: ConversationErrorCode = isArborError(err) && conversationErrorCodeSchema.safeParse(err.code).success ? (err.code as ConversationErrorCode) : 'INTERNAL';
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
      });
    }
    const parent = runtime.agents.parentOf(agent);
    const doing = describeDoing(doingOf(agent, runtime.agents, interaction.pending()));
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
    });
  }

  private post(message: HostToWebviewMessage): HostToWebviewMessage {
    const json = JSON.stringify(message);
    this.stats.bytes += json.length;
    if (message.type === 'snapshot') this.stats.snapshots++;
    else if (message.type === 'items') this.stats.itemUpdates++;
    else if (message.type === 'state') this.stats.states++;
    else this.stats.errors++;
    if (message.type === 'snapshot' || message.type === 'state') this.lastState = JSON.stringify(message.state);
    void this.panel.webview.postMessage(message);
    return message;
  }
}

function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media')] };
}

/**
 * The view's page: no agent text in it (the script renders everything it is sent with DOM
 * APIs), scripts only with this page's nonce, styles only from the extension's media folder.
 */
function pageHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'dist', 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'conversation.css'));
  const csp = [`default-src 'none'`, `style-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>Conversation</title>
</head>
<body>
<header class="header">
  <div class="title"><span id="agent-label" class="agent-label"></span><span id="agent-kind" class="kind"></span></div>
  <div id="state" class="state" role="status" aria-live="polite"></div>
</header>
<main id="conversation" class="conversation" aria-label="Conversation"><p class="empty">Loading the conversation…</p></main>
<section id="queue" class="queue" aria-label="Queued messages" hidden></section>
<footer class="composer">
  <div id="error" class="error" role="alert" hidden></div>
  <textarea id="message" rows="3" aria-label="Message to the agent" placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"></textarea>
  <div class="composer-row">
    <p id="hint" class="hint"></p>
    <div class="buttons">
      <button id="stop" class="secondary" type="button" title="Stop the current turn; queued messages wait for your next Send">Stop</button>
      <button id="send" type="button" title="Queue this message for the agent">Send</button>
    </div>
  </div>
</footer>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
