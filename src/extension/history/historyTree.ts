import * as vscode from 'vscode';
import { messageOf, type Runtime } from '../../core';
import { primaryHold } from '../../core/agents';
import type { JsonlSessionStore, SessionCatalog } from '../../core/sessions';
import { Disposable } from '../disposable';
import { historyNodes, presentDiagnostic, presentSession, type HistoryNode, type SessionNode } from './historyNodes';

/** Agents start and end in bursts (a lead and its subagents): one re-read of the folder per burst. */
const REFRESH_MS = 500;

/**
 * The History view: past sessions read from the durable store. The folder is listed when the
 * view first asks for its top level, on Refresh, and when the view becomes visible after
 * changes; runtime events (agents starting and ending, turns ending) refresh only the sessions
 * of those agents, coalesced, while the view is visible (one stat per session, not a listing
 * of the folder).
 */
export class HistoryTreeProvider extends Disposable implements vscode.TreeDataProvider<HistoryNode> {
  private readonly changed = new vscode.EventEmitter<HistoryNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private nodes: Promise<HistoryNode[]> | undefined;
  /** The catalog the nodes show; incremental refreshes patch it. */
  private catalog: SessionCatalog | undefined;
  /** Agents whose sessions changed since the last refresh. */
  private readonly changedIds = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private view: vscode.TreeView<HistoryNode> | undefined;
  private stale = false;
  private readonly read = new vscode.EventEmitter<void>();
  /** Fires as the list reads the session folder, in full or only the sessions that changed. */
  readonly onDidRead = this.read.event;

  constructor(
    private readonly runtime: Runtime,
    private readonly store: JsonlSessionStore | undefined,
  ) {
    super();
    this._register(
      runtime.onEvents(['agent_added', 'agent_removed', 'turn_end'], (e) => {
        this.changedIds.add(e.agent.id);
        this.scheduleRefresh();
      }),
    );
  }

  /** Refreshes only while `view` is visible; a refresh asked for while hidden waits for it. */
  attach(view: vscode.TreeView<HistoryNode>): void {
    this.view = view;
    this._register(
      view.onDidChangeVisibility((e) => {
        if (e.visible && this.stale) this.refresh();
      }),
    );
  }

  /** True when no refresh is scheduled and the view has read the folder since the last one. */
  get settled(): boolean {
    return this.timer === undefined && this.nodes !== undefined;
  }

  /** Re-read the session folder now. */
  refresh(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.stale = false;
    this.catalog = undefined;
    this.changedIds.clear();
    this.nodes = undefined;
    this.changed.fire(undefined);
  }

  /** Re-read only the sessions of agents that changed, then repaint. */
  private refreshChanged(): void {
    this.timer = undefined;
    const catalog = this.catalog;
    if (!catalog || !this.store) return this.refresh();
    const ids = [...this.changedIds];
    this.changedIds.clear();
    const store = this.store;
    this.nodes = (async () => {
      this.read.fire();
      try {
        const update = await store.sessionEntries(ids);
        const replaced = new Set([...ids, ...update.sessions.map((s) => s.header.id)]);
        const files = new Set(update.diagnostics.map((d) => d.file));
        const sessions = [...catalog.sessions.filter((s) => !replaced.has(s.header.id)), ...update.sessions];
        sessions.sort((a, b) => Date.parse(b.summary.lastActivity) - Date.parse(a.summary.lastActivity) || Date.parse(b.header.createdAt) - Date.parse(a.header.createdAt));
        const diagnostics = [...catalog.diagnostics.filter((d) => !files.has(d.file)), ...update.diagnostics];
        this.catalog = { sessions, diagnostics };
        return historyNodes(this.catalog);
      } catch (err) {
        return [{ type: 'notice', message: `The session folder could not be read: ${messageOf(err)}` }];
      }
    })();
    this.changed.fire(undefined);
  }

  /** The top level as the view shows it (reads the folder when stale). */
  topLevel(): Promise<HistoryNode[]> {
    this.nodes ??= this.load();
    return this.nodes;
  }

  /** Every session node, depth first (for pickers and tests). */
  async sessions(): Promise<SessionNode[]> {
    const out: SessionNode[] = [];
    const visit = (nodes: readonly HistoryNode[]): void => {
      for (const node of nodes) {
        if (node.type !== 'session') continue;
        out.push(node);
        visit(node.children);
      }
    };
    visit(await this.topLevel());
    return out;
  }

  getTreeItem(node: HistoryNode): vscode.TreeItem {
    switch (node.type) {
      case 'session': {
        const agent = this.runtime.agents.get(node.entry.header.id);
        const p = presentSession(node, agent !== undefined, Date.now(), agent && primaryHold(agent.holds));
        const item = new vscode.TreeItem(p.label, node.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        item.id = `session:${node.entry.header.id}`;
        item.description = p.description;
        item.tooltip = new vscode.MarkdownString(p.tooltip, true);
        item.iconPath = new vscode.ThemeIcon(p.icon);
        item.contextValue = p.contextValue;
        item.command = { command: 'arbor.openSessionTranscript', title: 'Open Transcript', arguments: [node] };
        item.accessibilityInformation = { label: `${p.label}, ${p.description}` };
        return item;
      }
      case 'diagnostic': {
        const p = presentDiagnostic(node.diagnostic);
        const item = new vscode.TreeItem(p.label, vscode.TreeItemCollapsibleState.None);
        item.id = `diagnostic:${node.diagnostic.file}`;
        item.description = p.description;
        item.tooltip = p.tooltip;
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
        item.contextValue = 'session:diagnostic';
        return item;
      }
      case 'notice': {
        const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('info');
        item.contextValue = 'session:notice';
        return item;
      }
    }
  }

  async getChildren(node?: HistoryNode): Promise<HistoryNode[]> {
    if (!node) return this.topLevel();
    return node.type === 'session' ? node.children : [];
  }

  getParent(node: HistoryNode): HistoryNode | undefined {
    return node.type === 'session' ? node.parent : undefined;
  }

  override dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    super.dispose();
    this.changed.dispose();
    this.read.dispose();
  }

  private scheduleRefresh(): void {
    if (this.view && !this.view.visible) {
      this.stale = true;
      this.nodes = undefined;
      return;
    }
    this.timer ??= setTimeout(() => this.refreshChanged(), REFRESH_MS);
  }

  private async load(): Promise<HistoryNode[]> {
    if (!this.store) return [{ type: 'notice', message: 'Sessions are kept in memory only: this editor gives Arbor no local storage folder.' }];
    this.read.fire();
    try {
      this.catalog = await this.store.listSessions();
      return historyNodes(this.catalog);
    } catch (err) {
      return [{ type: 'notice', message: `The session folder could not be read: ${messageOf(err)}` }];
    }
  }
}
