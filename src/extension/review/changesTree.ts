import * as path from 'node:path';
import * as vscode from 'vscode';
import { Agent } from '../../core/agents';
import type { Runtime } from '../../core';
import type { AgentsTreeProvider } from '../agents/agentsTree';
import type { EndedSubagent } from '../agents/endedSubagents';
import { filesChangedText, type ChangedFileNode, type ChangedFilesIndex } from './changedFiles';

/** A row of the Agents view: an agent, a subagent that ended, or a file an agent changed. */
export type AgentsViewNode = Agent | EndedSubagent | ChangedFileNode;

/** Up to this many changed files show expanded under their agent; more start collapsed. */
const EXPANDED_UP_TO = 5;

/**
 * The Agents view with each agent's changed files: the agent's row says "3 files changed" and
 * lists them in its tooltip, and the files follow its child agents as rows of their own, with
 * Keep and Undo inline and a click that opens the diff. The agent rows themselves are the agent
 * tree's, unchanged; a change to a record repaints only its agent's row.
 */
export class AgentsWithChangesTree implements vscode.TreeDataProvider<AgentsViewNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<AgentsViewNode | AgentsViewNode[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly agents: AgentsTreeProvider,
    private readonly runtime: Runtime,
    private readonly index: ChangedFilesIndex,
  ) {
    this.subscriptions = [
      agents.onDidChangeTreeData((e) => this.changed.fire(e)),
      index.onDidChange((sessionId) => {
        const agent = runtime.agents.get(sessionId);
        // Through the agent tree's repaint queue: every change of the view reaches VS Code spaced
        // as that queue spaces it, or a steady stream of them would hold all repaints back.
        if (agent) agents.repaintRow(agent);
      }),
    ];
  }

  getTreeItem(node: AgentsViewNode): vscode.TreeItem {
    if (node instanceof Agent) {
      const item = this.agents.getTreeItem(node);
      const files = this.index.filesOf(node.id) ?? [];
      if (files.length > 0) {
        item.description = `${typeof item.description === 'string' ? `${item.description} · ` : ''}${filesChangedText(files.length)}`;
        if (item.collapsibleState === vscode.TreeItemCollapsibleState.None) {
          item.collapsibleState = files.length <= EXPANDED_UP_TO ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
        }
      }
      return item;
    }
    if (node.type === 'ended-subagent') return this.agents.getTreeItem(node);
    const item = new vscode.TreeItem(path.posix.basename(node.path), vscode.TreeItemCollapsibleState.None);
    item.id = `changed-file:${node.sessionId}:${node.path}`;
    const folder = path.posix.dirname(node.path);
    item.description = [folder === '.' ? undefined : folder, node.created ? 'created' : undefined].filter(Boolean).join(' · ');
    item.resourceUri = this.fileUri(node);
    item.contextValue = `changedFile:${node.created ? 'created' : 'edited'}`;
    item.tooltip = `${node.path}: ${node.created ? 'created' : 'changed'} by this agent. Click to see the diff; Keep or Undo it here.`;
    item.command = { command: 'arbor.reviewChanges', title: 'Review Changes', arguments: [node] };
    return item;
  }

  resolveTreeItem(item: vscode.TreeItem, node: AgentsViewNode): vscode.TreeItem {
    if (!(node instanceof Agent)) return item;
    const resolved = this.agents.resolveTreeItem(item, node);
    const files = this.index.filesOf(node.id) ?? [];
    if (files.length > 0 && resolved.tooltip instanceof vscode.MarkdownString) {
      const shown = files.slice(0, 20).map((f) => `- \`${f.path}\`${f.created ? ' (created)' : ''}`);
      if (files.length > shown.length) shown.push(`- … and ${files.length - shown.length} more`);
      resolved.tooltip.appendMarkdown(`\n\n**${filesChangedText(files.length)}** (Review Changes shows the diffs):\n\n${shown.join('\n')}`);
    }
    return resolved;
  }

  getChildren(node?: AgentsViewNode): AgentsViewNode[] {
    if (!node) return this.agents.getChildren();
    if (!(node instanceof Agent)) return [];
    return [...this.agents.getChildren(node), ...(this.index.filesOf(node.id) ?? [])];
  }

  getParent(node: AgentsViewNode): AgentsViewNode | undefined {
    if (node instanceof Agent || node.type === 'ended-subagent') return this.agents.getParent(node);
    return this.runtime.agents.get(node.sessionId);
  }

  private fileUri(node: ChangedFileNode): vscode.Uri | undefined {
    const folders = this.runtime.workspace?.folders() ?? [];
    if (folders.length === 0) return undefined;
    // In a multi-root workspace the path starts with its folder's name.
    const folder = folders.length === 1 ? folders[0] : folders.find((f) => node.path.startsWith(`${path.basename(f)}/`));
    if (!folder) return undefined;
    const relative = folders.length === 1 ? node.path : node.path.slice(path.basename(folder).length + 1);
    return vscode.Uri.file(path.join(folder, relative));
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
  }
}
