import * as vscode from 'vscode';
import type { Runtime } from '../core/runtime';
import type { JsonlSessionStore } from '../core/sessions';
import { historyNodes, presentDiagnostic, presentSession, type HistoryNode, type SessionNode } from './historyNodes';

/** Agents start and end in bursts (a lead and its subagents): one re-read of the folder per burst. */
const REFRESH_MS = 500;

/**
 * The History view: past sessions read from the durable store. The folder is read when the
 * view asks for its top level; runtime events (agents starting and ending, turns ending) mark
 * it stale and, coalesced, refresh it while the view is visible, or once it becomes visible.
 */
export class HistoryTreeProvider implements vscode.TreeDataProvider<HistoryNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<HistoryNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private nodes: Promise<HistoryNode[]> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private view: vscode.TreeView<HistoryNode> | undefined;
  private stale = false;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Reads of the session folder so far (tests check that bursts coalesce). */
  reads = 0;

  constructor(
    private readonly runtime: Runtime,
    private readonly store: JsonlSessionStore | undefined,
  ) {
    this.subscriptions.push(
      runtime.onEvent((e) => {
        if (e.type === 'agent_changed' && e.change.type !== 'turn_end') return;
        this.scheduleRefresh();
      }),
    );
  }

  /** Refreshes only while `view` is visible; a refresh asked for while hidden waits for it. */
  attach(view: vscode.TreeView<HistoryNode>): void {
    this.view = view;
    this.subscriptions.push(
      view.onDidChangeVisibility((e) => {
        if (e.visible && this.stale) this.refresh();
      }),
    );
  }

  /** Re-read the session folder now. */
  refresh(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.stale = false;
    this.nodes = undefined;
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
        const live = this.runtime.agents.get(node.entry.header.id) !== undefined;
        const p = presentSession(node, live, Date.now());
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

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
  }

  private scheduleRefresh(): void {
    if (this.view && !this.view.visible) {
      this.stale = true;
      this.nodes = undefined;
      return;
    }
    this.timer ??= setTimeout(() => this.refresh(), REFRESH_MS);
  }

  private async load(): Promise<HistoryNode[]> {
    if (!this.store) return [{ type: 'notice', message: 'Sessions are kept in memory only: this editor gives Arbor no local storage folder.' }];
    this.reads++;
    try {
      return historyNodes(await this.store.listSessions());
    } catch (err) {
      return [{ type: 'notice', message: `The session folder could not be read: ${err instanceof Error ? err.message : String(err)}` }];
    }
  }
}
