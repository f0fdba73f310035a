import * as vscode from 'vscode';
import { KIND_TEXT, pathText, type AttentionItem, type AttentionKind } from '../../core/attention';
import type { WaitingNode, WaitingRows } from './waitingNode';

/** The command a waiting row runs: it opens the item's prompt, or reveals its agent and asks what to do. */
export const OPEN_WAITING_COMMAND = 'arbor.openWaiting';
/** Answer, on a waiting agent's row: opens its oldest prompt. */
export const ANSWER_COMMAND = 'arbor.answer';
export const SECTION_LABEL = 'Waiting for you';

export const KIND_ICON: Readonly<Record<AttentionKind, string>> = Object.freeze({
  question: 'question',
  approval: 'shield',
  'plan-approval': 'checklist',
  budget: 'dashboard',
  runaway: 'debug-pause',
  interrupted: 'debug-restart',
});

/** "since 14:03:27": the clock time, which stays true without a repaint. */
export function sinceText(item: AttentionItem): string {
  return `since ${new Date(item.since).toLocaleTimeString()}`;
}

/**
 * The section's rows: one node per open item, the same object while the item stays open (VS Code
 * reveals and keeps selection by node), in the queue's order, oldest first.
 */
export class WaitingSectionRows implements WaitingRows {
  private readonly section: WaitingNode = { type: 'waiting-section', label: SECTION_LABEL };
  private nodes: WaitingNode[] = [];
  private readonly byKey = new Map<string, WaitingNode>();

  /** The queue's list changed. */
  update(items: readonly AttentionItem[]): void {
    const next = new Map<string, WaitingNode>();
    this.nodes = items.map((item) => {
      const known = this.byKey.get(item.key);
      const label = pathText(item);
      const same = known?.type === 'waiting-item' && known.label === label && known.item.asks === item.asks;
      const node: WaitingNode = same ? known : { type: 'waiting-item', label, item };
      next.set(item.key, node);
      return node;
    });
    this.byKey.clear();
    for (const [key, node] of next) this.byKey.set(key, node);
  }

  top(): readonly WaitingNode[] {
    return this.nodes.length > 0 ? [this.section] : [];
  }

  children(node: WaitingNode): readonly WaitingNode[] {
    return node.type === 'waiting-section' ? this.nodes : [];
  }

  item(node: WaitingNode): vscode.TreeItem {
    if (node.type === 'waiting-section') {
      const row = new vscode.TreeItem(SECTION_LABEL, vscode.TreeItemCollapsibleState.Expanded);
      row.id = 'waiting';
      row.description = `${this.nodes.length}`;
      row.iconPath = new vscode.ThemeIcon('bell-dot');
      row.contextValue = 'waiting';
      row.tooltip = 'What waits on you, oldest first. Select one to open it.';
      return row;
    }
    const { item } = node;
    const row = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    row.id = `waiting:${item.key}`;
    row.description = `${KIND_TEXT[item.kind]}: ${item.asks}`;
    row.iconPath = new vscode.ThemeIcon(KIND_ICON[item.kind]);
    row.contextValue = `waiting:${item.kind}`;
    row.tooltip = new vscode.MarkdownString(`**${node.label}**: ${KIND_TEXT[item.kind]}, ${sinceText(item)}\n\n${item.asks}`);
    row.command = { command: OPEN_WAITING_COMMAND, title: 'Open', arguments: [item.key] };
    row.accessibilityInformation = { label: `${node.label}, ${KIND_TEXT[item.kind]}: ${item.asks}` };
    return row;
  }
}
