import type * as vscode from 'vscode';
import type { AttentionItem } from '../../core/attention';

/**
 * The rows of the Agents view's "Waiting for you" section: the section itself, at the top, and
 * under it one row for each item that waits on the human. Only their shapes are here: the
 * attention part (attentionPart.ts) makes and renders them once something waits.
 */
export type WaitingNode =
  | { readonly type: 'waiting-section'; readonly label: string }
  | { readonly type: 'waiting-item'; readonly label: string; readonly item: AttentionItem };

/** What the Agents view asks of the section. */
export interface WaitingRows {
  /** The section's row when something waits, else nothing. */
  top(): readonly WaitingNode[];
  children(node: WaitingNode): readonly WaitingNode[];
  item(node: WaitingNode): vscode.TreeItem;
}

export function isWaitingNode(node: object): node is WaitingNode {
  return 'type' in node && (node.type === 'waiting-section' || node.type === 'waiting-item');
}
