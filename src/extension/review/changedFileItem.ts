// How a file an agent changed shows under the agent in the Agents view (agentsTree.ts lists it):
// its row, and the list its agent's tooltip adds.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { filesChangedText, type ChangedFileNode } from './changedFileNode';

/** At most this many files are named in an agent's tooltip. */
const TOOLTIP_FILES = 20;

/**
 * A changed file's row: Keep and Undo inline, a click opens the diff. `folders` are the
 * workspace folders; in a multi-root workspace the file's path starts with its folder's name.
 */
export function changedFileItem(node: ChangedFileNode, folders: readonly string[]): vscode.TreeItem {
  const item = new vscode.TreeItem(path.posix.basename(node.path), vscode.TreeItemCollapsibleState.None);
  item.id = `changed-file:${node.sessionId}:${node.path}`;
  const folder = path.posix.dirname(node.path);
  item.description = [folder === '.' ? undefined : folder, node.created ? 'created' : undefined].filter(Boolean).join(' · ');
  item.resourceUri = fileUri(node, folders);
  item.contextValue = `changedFile:${node.created ? 'created' : 'edited'}`;
  item.tooltip = `${node.path}: ${node.created ? 'created' : 'changed'} by this agent. Click to see the diff; Keep or Undo it here.`;
  item.command = { command: 'arbor.reviewChanges', title: 'Review Changes', arguments: [node] };
  return item;
}

/** What an agent's tooltip says of the files it changed (Markdown), or nothing when it changed none. */
export function changedFilesTooltip(files: readonly ChangedFileNode[]): string {
  if (files.length === 0) return '';
  const shown = files.slice(0, TOOLTIP_FILES).map((f) => `- \`${f.path}\`${f.created ? ' (created)' : ''}`);
  if (files.length > shown.length) shown.push(`- … and ${files.length - shown.length} more`);
  return `\n\n**${filesChangedText(files.length)}** (Review Changes shows the diffs):\n\n${shown.join('\n')}`;
}

function fileUri(node: ChangedFileNode, folders: readonly string[]): vscode.Uri | undefined {
  if (folders.length === 0) return undefined;
  const folder = folders.length === 1 ? folders[0] : folders.find((f) => node.path.startsWith(`${path.basename(f)}/`));
  if (!folder) return undefined;
  const relative = folders.length === 1 ? node.path : node.path.slice(path.basename(folder).length + 1);
  return vscode.Uri.file(path.join(folder, relative));
}
