// What the History view shows: past sessions from the durable store, those with no parent at
// the top and children under the session their header names as parent, plus a warning for each
// file that could not be read. Pure (no 'vscode' import); historyTree.ts turns it into TreeItems.
import { describeHold, describeTurnEnd, type Hold } from '../../core/agents';
import { salvagedSessionWarning, type SessionCatalog, type SessionCatalogEntry, type SessionDiagnostic } from '../../core/sessions';
import { kindText } from '../agents/agentPresentation';
import { historyStateOf } from './sessionState';

export interface SessionNode {
  type: 'session';
  entry: SessionCatalogEntry;
  parent?: SessionNode;
  children: SessionNode[];
}

export interface DiagnosticNode {
  type: 'diagnostic';
  diagnostic: SessionDiagnostic;
}

/** A single line that explains why there is nothing to list (no storage, a failed read). */
export interface NoticeNode {
  type: 'notice';
  message: string;
}

export type HistoryNode = SessionNode | DiagnosticNode | NoticeNode;

/**
 * Nests the catalog by recorded parent (history, not authority). Top-level sessions keep the
 * catalog's order (most recent activity first); children are in creation order. A session
 * whose parent is not in the folder, or whose recorded lineage loops, stays at the top.
 */
export function historyNodes(catalog: SessionCatalog): HistoryNode[] {
  const byId = new Map<string, SessionNode>();
  for (const entry of catalog.sessions) byId.set(entry.header.id, { type: 'session', entry, children: [] });
  const top: SessionNode[] = [];
  for (const node of byId.values()) {
    const parentId = node.entry.header.parentSession;
    const parent = parentId === undefined ? undefined : byId.get(parentId);
    if (parent && !isAncestorOrSelf(node, parent)) {
      node.parent = parent;
      parent.children.push(node);
    } else {
      top.push(node);
    }
  }
  for (const node of byId.values()) node.children.sort((a, b) => Date.parse(a.entry.header.createdAt) - Date.parse(b.entry.header.createdAt));
  const diagnostics: DiagnosticNode[] = catalog.diagnostics.map((diagnostic) => ({ type: 'diagnostic', diagnostic }));
  return [...top, ...diagnostics];
}

function isAncestorOrSelf(node: SessionNode, of: SessionNode): boolean {
  for (let a: SessionNode | undefined = of; a; a = a.parent) if (a === node) return true;
  return false;
}

export interface SessionPresentation {
  label: string;
  description: string;
  tooltip: string;
  icon: string;
  /** `session:<live|past>:<kind>`: package.json shows Resume on past sessions only. */
  contextValue: string;
}

/** `hold`: what keeps the live agent of this session from running (primaryHold), said as the Agents view says it. */
export function presentSession(node: SessionNode, live: boolean, now: number, hold?: Hold): SessionPresentation {
  const { header, summary } = node.entry;
  const reason = summary.lastTurnEndReason;
  const held = live && hold ? describeHold(hold) : undefined;
  // A past session says its state (historyStateOf); a live one says what the Agents view says.
  const past = live ? undefined : historyStateOf(summary);
  const state = past ? past.text : `live in this window${held ? `, ${held.text}` : ''}`;
  const damaged = !live && node.entry.damage !== undefined;
  const parts = [kindText(header.kind), relativeTime(summary.lastActivity, now), state];
  if (damaged) parts.push(`damaged at line ${node.entry.damage!.line}, partly shown`);
  const description = parts.join(' · ');
  const lines = [`**${escapeMarkdown(header.label)}**: ${kindText(header.kind)} session, ${state}`, ''];
  if (damaged) lines.push(`$(warning) ${escapeMarkdown(salvagedSessionWarning(node.entry.damage!))}`, '');
  if (summary.firstUserMessage) lines.push(`> ${escapeMarkdown(summary.firstUserMessage)}`, '');
  lines.push(
    `- Session: \`${header.id}\``,
    `- Started: ${new Date(header.createdAt).toLocaleString()}`,
    `- Last activity: ${new Date(summary.lastActivity).toLocaleString()}`,
    `- Turns: ${summary.turnCount}${reason ? ` (last ended: ${describeTurnEnd({ reason, cause: summary.lastTurnEndCause }).text})` : ''}`,
    `- Mode: ${header.interactionMode}`,
  );
  if (header.parentSession) lines.push(`- Started by session: \`${header.parentSession}\``);
  if (header.resumedFrom) lines.push(`- Continues session: \`${header.resumedFrom}\``);
  if (past && past.state !== 'no-turns') lines.push('', escapeMarkdown(past.detail));
  if (held) lines.push('', held.detail);
  lines.push('', live ? 'It is running in this window: find it in the Agents view.' : 'Select it to read its transcript; Resume continues it as a new root agent.');
  return {
    label: header.label || header.id,
    description,
    tooltip: lines.join('\n'),
    icon: !past ? 'pulse' : damaged ? 'warning' : past.icon,
    contextValue: `session:${live ? 'live' : 'past'}:${header.kind}`,
  };
}

export function presentDiagnostic(diagnostic: SessionDiagnostic): { label: string; description: string; tooltip: string } {
  const name = diagnostic.file.split(/[\\/]/).pop() ?? diagnostic.file;
  const what =
    diagnostic.code === 'SESSION_VERSION'
      ? 'written by a newer Arbor'
      : diagnostic.code === 'SESSION_CORRUPT'
        ? `damaged${diagnostic.line ? ` at line ${diagnostic.line}` : ''}`
        : 'unreadable';
  return {
    label: diagnostic.id ?? name,
    description: `cannot be listed: ${what}`,
    tooltip: `${diagnostic.message}\n\nFile: ${diagnostic.file}`,
  };
}

/** "just now", "5 min ago", "3 h ago", "2 days ago", then the date. */
export function relativeTime(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 7) return `${d} day${d === 1 ? '' : 's'} ago`;
  return new Date(then).toLocaleDateString();
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
