import * as vscode from 'vscode';
import { Agent } from '../../core/agents';
import type { UserInteractionService } from '../../core/interaction';
import type { Runtime } from '../../core';
import { Disposable } from '../disposable';
import { changedFileItem, changedFilesTooltip, type ChangedFileNode, type ChangedFilesIndex } from '../review';
import { isWaitingNode, type WaitingNode, type WaitingRows } from '../attention/waitingNode';
import { escapeMarkdown, presentEnded, presentLiveAgent } from './agentPresentation';
import { AgentRows, buildRow, type AgentRow } from './agentRows';
import { EndedSubagents, type EndedSubagent } from './endedSubagents';
import { RepaintQueue, realClock, type RepaintClock } from './repaintQueue';

/**
 * A row of the agent tree: a live agent, a subagent that ended (kept under its live parent,
 * dimmed), a file an agent changed (under that agent), or a row of "Waiting for you" (at the top).
 */
export type AgentsTreeNode = Agent | EndedSubagent | ChangedFileNode | WaitingNode;

/** The files each agent changed, as the view lists them (review/changedFiles.ts loads them). */
export type ChangedFilesSource = Pick<ChangedFilesIndex, 'filesOf' | 'onDidChange'>;

const NO_CHANGED_FILES: ChangedFilesSource = { filesOf: () => [], onDidChange: () => ({ dispose: () => undefined }) };

/** The setting that keeps ended subagents under their parent. */
export const SHOW_ENDED_SUBAGENTS_SETTING = 'tree.showEndedSubagents';

/** How often running rows are marked for their elapsed time. */
const TICK_MS = 1000;

/**
 * The live-agent tree: every live agent, those without a live creator at the top, children
 * under the agent that created them, then the files each agent changed. Nodes are the Agent objects themselves
 * (stable ids from their session ids); runtime events mark nodes and the repaint queue
 * (repaintQueue.ts) repaints, in spaced batches, those whose row would show something new.
 * Each repaint builds the rows it names once (agentRows.ts); getTreeItem only renders the row
 * built, and records nothing a repaint compares with. Its one side effect is the host's
 * acknowledgement: the host asking for a repainted row is the only sign that it took the
 * repaint, so only the host calls it (pickers describe agents with presentLiveAgent).
 *
 * Refreshing a node with children makes VS Code fetch its children again, and a click on a
 * child's inline action in that moment arrives without its agent (the extension host forgets
 * the children's handles until the workbench asks for them again). So a row with children is
 * repainted for changes of its own state and of its children list only: never for token counts
 * or time. Its running time is shown as the clock time its turn started ("running since
 * 14:03:27"), which stays true without a repaint; rows without children show the elapsed time,
 * repainted once a second. The tooltip, built on hover, is always current. A row counts as having
 * children when it has live subagents, ended ones (endedSubagents.ts) or changed files under it.
 *
 * Ended subagents are rows of their own, dimmed, saying how they ended; they have no actions but
 * their transcript and Clear, never change, and are added and removed through their parent's
 * repaint (a child that ends repaints its parent anyway). Changed files are rows too, with Keep
 * and Undo inline; a change to an agent's record repaints that agent's row, which says
 * "3 files changed", and so its children.
 */
export class AgentsTreeProvider extends Disposable implements vscode.TreeDataProvider<AgentsTreeNode> {
  // Only live agents' rows are repainted: ended rows come and go with their parent's.
  private readonly changed = new vscode.EventEmitter<Agent | Agent[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly queue: RepaintQueue<Agent>;
  /** What each agent's row showed at its last repaint: a row marked for its time only is left alone if it would show the same. */
  private readonly rows: AgentRows;
  /** Rows VS Code has asked for at least once. */
  private readonly fetched = new WeakSet<Agent>();
  /** The rows of the last repaint (or the whole tree), until VS Code asks for one of them. */
  private inFlight: Set<Agent> | 'whole' | undefined;
  /** Rows marked since the last repaint by a change of their agent (not only by the clock). */
  private readonly changedAgents = new Set<Agent>();
  private ticker: unknown;
  /** The subagents that ended, under their live parents. */
  readonly ended: EndedSubagents;
  /** The "Waiting for you" section, once the attention part is loaded. */
  private waiting: WaitingRows | undefined;

  constructor(
    private readonly runtime: Runtime,
    private readonly interaction: UserInteractionService,
    private readonly files: ChangedFilesSource = NO_CHANGED_FILES,
    private readonly clock: RepaintClock = realClock,
  ) {
    super();
    this.queue = new RepaintQueue<Agent>((nodes) => this.repaint(nodes), clock);
    // A parent whose list of ended subagents changed gets its row (and so its children) repainted.
    this.ended = new EndedSubagents(runtime.agents, (parent) => {
      // The parent's live-state record keeps its ended rows (a reload puts them back).
      runtime.liveRecords?.changed(parent);
      if (runtime.agents.isLive(parent)) this.markChanged(parent);
    }, showEndedSubagents());
    this.rows = new AgentRows((agent) =>
      buildRow(agent, {
        agents: runtime.agents,
        pending: () => interaction.pending(),
        endedCount: (a) => this.ended.count(a),
        filesCount: (a) => this.filesOf(a).length,
        commandsSandboxed: () => this.runtime.sandbox.sandboxesCommands,
        overlapText: (a) => runtime.writes.overlapText(a.id),
      }),
    );
    this._register(
      files.onDidChange((sessionId) => {
        // Its children changed: through the repaint queue, like every change of the view, or a
        // steady stream of them would hold all repaints back.
        const agent = runtime.agents.get(sessionId);
        if (agent) this.markChanged(agent);
      }),
    );
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`arbor.${SHOW_ENDED_SUBAGENTS_SETTING}`)) this.ended.setEnabled(showEndedSubagents());
      }),
    );
    this._register(
      runtime.onEvent((e) => {
        this.ended.observe(e);
        if (e.type === 'agent_changed') {
          const change = e.change;
          // Of the log, only a new plan changes the row (its description says where the plan is).
          if ((change.type === 'log' && change.event.type !== 'plan') || change.type === 'disposed') return;
          // A parent's token total catches up at its next own change (see the class comment).
          if (change.type === 'usage' && this.hasChildren(e.agent)) return;
          this.markChanged(e.agent);
        } else {
          // A node appeared or went away: its parent's children changed (its row may too: it
          // gains or loses its children, and with them how its time is shown).
          const parent = e.type === 'agent_removed' ? e.parent : runtime.agents.parentOf(e.agent);
          if (parent && runtime.agents.isLive(parent)) this.markChanged(parent);
          else this.queue.markAll();
        }
      }),
    );
    this._register(
      interaction.onDidChangePending((c) => {
        const agent = c.interaction.agent && runtime.agents.get(c.interaction.agent.id);
        if (agent) this.markChanged(agent);
      }),
    );
    // Running rows without children show their elapsed time: mark those once a second (the
    // repaint leaves out any whose text did not change).
    this.ticker = clock.setTimeout(() => this.tick(), TICK_MS);
  }

  /**
   * Shows the "Waiting for you" section at the top, as `rows` now say: called at each change of
   * what waits. The whole tree is repainted: it is rare, and the section comes and goes at the top.
   */
  showWaiting(rows: WaitingRows): void {
    this.waiting = rows;
    this.queue.markAll();
  }

  getTreeItem(node: AgentsTreeNode): vscode.TreeItem {
    if (isWaitingNode(node)) return this.waiting!.item(node);
    if (!(node instanceof Agent)) return node.type === 'changed-file' ? changedFileItem(node, this.runtime.workspace?.folders() ?? []) : endedItem(node);
    this.fetched.add(node);
    this.hostAsked(node);
    return agentItem(node, this.rows.rowOf(node));
  }

  /** Tooltips are built when the user hovers, not on every repaint. */
  resolveTreeItem(item: vscode.TreeItem, node: AgentsTreeNode): vscode.TreeItem {
    if (!(node instanceof Agent) || isWaitingNode(node)) return item;
    const p = presentLiveAgent(node, this.runtime.agents, this.interaction.pending(), { time: this.hasChildren(node) ? 'started' : 'elapsed' });
    // Its scope and shared files: the scopes part is loaded by the first tooltip.
    item.tooltip = new vscode.MarkdownString(p.tooltip + this.runtime.writes.guard.envelopeLines(node, escapeMarkdown) + changedFilesTooltip(this.filesOf(node)));
    return item;
  }

  /** Without a node: the top level, live agents only. */
  getChildren(): Array<Agent | WaitingNode>;
  getChildren(node: AgentsTreeNode | undefined): AgentsTreeNode[];
  getChildren(node?: AgentsTreeNode): AgentsTreeNode[] {
    if (!node) {
      this.hostAsked(undefined);
      const top = this.runtime.agents.topLevel();
      const waiting = this.waiting?.top() ?? [];
      return waiting.length === 0 ? top : [...waiting, ...top];
    }
    if (isWaitingNode(node)) return [...this.waiting!.children(node)];
    if (!(node instanceof Agent)) return [];
    const files = this.filesOf(node);
    if (!this.runtime.agents.isLive(node)) return [...files];
    const live = this.runtime.agents.childrenOf(node);
    const ended = this.ended.of(node);
    // Each ended row stays where its live row was: siblings in creation order; the files follow.
    const agents = ended.length === 0 ? live : [...live, ...ended].sort((a, b) => a.creationOrder - b.creationOrder || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return files.length === 0 ? agents : [...agents, ...files];
  }

  getParent(node: AgentsTreeNode): AgentsTreeNode | undefined {
    if (isWaitingNode(node)) return node.type === 'waiting-item' ? this.waiting?.top()[0] : undefined;
    if (!(node instanceof Agent)) return node.type === 'changed-file' ? this.runtime.agents.get(node.sessionId) : this.ended.parentOf(node);
    const parent = this.runtime.agents.parentOf(node);
    return parent && this.runtime.agents.isLive(parent) ? parent : undefined;
  }

  /** How many agent rows were built (the tree bench reports it per repaint). */
  get rowBuilds(): number {
    return this.rows.builds;
  }

  override dispose(): void {
    this.clock.clearTimeout(this.ticker);
    this.queue.dispose();
    super.dispose();
    this.changed.dispose();
  }

  private tick(): void {
    for (const agent of this.runtime.agents.all()) {
      if (agent.status === 'running' && !this.hasChildren(agent)) this.queue.mark(agent);
    }
    this.ticker = this.clock.setTimeout(() => this.tick(), TICK_MS);
  }

  private hasChildren(agent: Agent): boolean {
    return this.runtime.agents.liveChildCount(agent) > 0 || this.ended.count(agent) > 0 || this.filesOf(agent).length > 0;
  }

  private filesOf(agent: Agent): readonly ChangedFileNode[] {
    return this.files.filesOf(agent.id) ?? [];
  }

  /** True while changes wait for the next coalesced repaint. */
  get repaintPending(): boolean {
    return this.queue.pending;
  }

  /** Fires the marked rows that would show something new (or the whole tree). */
  private repaint(nodes: Agent[] | undefined): boolean {
    if (nodes === undefined) {
      this.changedAgents.clear();
      this.rows.dropAll();
      this.inFlight = 'whole';
      this.changed.fire(undefined);
      return true;
    }
    // Each row is built here once; the host reads that row when it asks for it.
    const changed = nodes.filter((agent) => this.runtime.agents.isLive(agent) && (this.rows.refresh(agent) || this.changedAgents.has(agent)));
    this.changedAgents.clear();
    if (changed.length === 0) return false;
    this.inFlight = new Set(changed);
    this.changed.fire(changed);
    // VS Code refreshes only rows it has fetched; rows it has not are fetched afresh with their
    // parent, and no answer comes for them.
    return changed.some((agent) => this.fetched.has(agent));
  }

  /** VS Code asked for a row (or the top level) of the repaint in flight: it has taken that repaint. */
  private hostAsked(agent: Agent | undefined): void {
    const inFlight = this.inFlight;
    if (inFlight === undefined || (agent === undefined ? inFlight !== 'whole' : inFlight === 'whole' || !inFlight.has(agent))) return;
    this.inFlight = undefined;
    this.queue.acknowledge();
  }

  /** Repaint this agent's row even if its own text did not change (its children did, or how it reads them). */
  private markChanged(agent: Agent): void {
    this.changedAgents.add(agent);
    this.queue.mark(agent);
  }
}

function showEndedSubagents(): boolean {
  return vscode.workspace.getConfiguration('arbor').get<unknown>(SHOW_ENDED_SUBAGENTS_SETTING, true) !== false;
}

/** A live agent's row as its last repaint built it: a click opens its transcript. */
function agentItem(agent: Agent, row: AgentRow): vscode.TreeItem {
  const expansion = row.expansion === 'expanded' ? vscode.TreeItemCollapsibleState.Expanded : row.expansion === 'collapsed' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
  const item = new vscode.TreeItem(agent.label, expansion);
  item.id = agent.id;
  item.description = row.description;
  item.iconPath = new vscode.ThemeIcon(row.presentation.icon);
  item.contextValue = row.presentation.contextValue;
  item.command = { command: 'arbor.openTranscript', title: 'Open Transcript', arguments: [agent] };
  item.accessibilityInformation = { label: `${agent.label}, ${row.description}` };
  return item;
}

/** An ended subagent's row: dimmed, how it ended, a click opens its conversation read-only. */
function endedItem(node: EndedSubagent): vscode.TreeItem {
  const p = presentEnded(node);
  const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
  // Not the session id: the same session may be live elsewhere in the tree (resumed as a root).
  item.id = `ended:${node.id}`;
  item.description = p.description;
  item.iconPath = new vscode.ThemeIcon(p.icon, new vscode.ThemeColor('disabledForeground'));
  item.contextValue = p.contextValue;
  item.tooltip = new vscode.MarkdownString(p.tooltip);
  item.command = { command: 'arbor.openSessionTranscript', title: 'Open Transcript', arguments: [node.id] };
  item.accessibilityInformation = { label: `${node.label}, ${p.description}` };
  return item;
}
