import * as vscode from 'vscode';
import type { Agent } from '../../core/agents';
import type { UserInteractionService } from '../../core/interaction';
import type { Runtime } from '../../core';
import { doingOf, presentAgent, type AgentPresentation } from './agentPresentation';

/** How long a burst of runtime events is gathered before one repaint. */
const COALESCE_MS = 50;

/**
 * The live-agent tree: every live agent, roots at the top, children under the agent that
 * created them. Nodes are the Agent objects themselves (stable ids from their session ids);
 * runtime events mark nodes dirty and one timer repaints exactly those nodes.
 */
export class AgentsTreeProvider implements vscode.TreeDataProvider<Agent>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Agent | Agent[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly dirty = new Set<Agent>();
  private structural = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly ticker: NodeJS.Timeout;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly runtime: Runtime,
    private readonly interaction: UserInteractionService,
  ) {
    this.subscriptions.push(
      runtime.onEvent((e) => {
        if (e.type === 'agent_changed') {
          const change = e.change;
          if (change.type === 'log' || change.type === 'disposed') return;
          // Refreshing a node with children makes VS Code fetch its children again, and a click
          // on a child's inline action in that moment arrives without its agent. So a parent is
          // repainted for changes of its own state only, not for token counts; its tree total
          // catches up then (the tooltip, built on hover, is always current).
          if (change.type === 'usage' && this.hasChildren(e.agent)) return;
          this.dirty.add(e.agent);
        } else {
          // A node appeared or went away: its parent's children changed.
          const parent = runtime.agents.parentOf(e.agent);
          if (parent && runtime.agents.isLive(parent)) this.dirty.add(parent);
          else this.structural = true;
        }
        this.schedule();
      }),
      interaction.onDidChangePending((c) => {
        const agent = c.interaction.agent && runtime.agents.get(c.interaction.agent.id);
        if (agent) this.dirty.add(agent);
        this.schedule();
      }),
    );
    // Running leaves show their elapsed time: refresh just those, once a second (parents show
    // theirs as of their last state change, for the reason above).
    this.ticker = setInterval(() => {
      let any = false;
      for (const agent of runtime.agents.all()) {
        if (agent.status === 'running' && !this.hasChildren(agent)) {
          this.dirty.add(agent);
          any = true;
        }
      }
      if (any) this.schedule();
    }, 1000);
  }

  getTreeItem(agent: Agent): vscode.TreeItem {
    const live = this.runtime.agents.isLive(agent);
    const p = this.present(agent);
    const hasChildren = live && this.hasChildren(agent);
    const item = new vscode.TreeItem(agent.label, hasChildren ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = agent.id;
    item.description = p.description;
    item.iconPath = new vscode.ThemeIcon(p.icon);
    item.contextValue = p.contextValue;
    item.command = { command: 'arbor.openTranscript', title: 'Open Transcript', arguments: [agent] };
    item.accessibilityInformation = { label: `${agent.label}, ${p.description}` };
    return item;
  }

  /** Tooltips are built when the user hovers, not on every repaint. */
  resolveTreeItem(item: vscode.TreeItem, agent: Agent): vscode.TreeItem {
    item.tooltip = new vscode.MarkdownString(this.present(agent).tooltip);
    return item;
  }

  getChildren(agent?: Agent): Agent[] {
    if (!agent) return this.runtime.agents.topLevel();
    return this.runtime.agents.isLive(agent) ? this.runtime.agents.childrenOf(agent) : [];
  }

  getParent(agent: Agent): Agent | undefined {
    const parent = this.runtime.agents.parentOf(agent);
    return parent && this.runtime.agents.isLive(parent) ? parent : undefined;
  }

  /** The agent's path from its top-level ancestor, for pickers: "Lead › Researcher". */
  pathOf(agent: Agent): string {
    const names: string[] = [];
    for (let a: Agent | undefined = agent; a; a = this.getParent(a)) names.unshift(a.label);
    return names.join(' › ');
  }

  isWaiting(agent: Agent): boolean {
    return this.interaction.pending().some((p) => p.agent?.id === agent.id);
  }

  dispose(): void {
    clearInterval(this.ticker);
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
  }

  private present(agent: Agent): AgentPresentation {
    const { tokens, count, cost } = this.treeUsage(agent);
    const holder = agent.kind === 'one-shot' ? this.runtime.agents.ownerOf(agent)?.label : undefined;
    const { waitingFor, waitingOn } = doingOf(agent, this.runtime.agents, this.interaction.pending());
    return presentAgent({ agent, waiting: waitingFor !== undefined, treeTokens: tokens, descendants: count, now: Date.now(), holder, waitingFor, waitingOn, treeCost: cost });
  }

  private hasChildren(agent: Agent): boolean {
    return this.runtime.agents.liveChildCount(agent) > 0;
  }

  /** True while changes wait for the next coalesced repaint. */
  get repaintPending(): boolean {
    return this.timer !== undefined;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), COALESCE_MS);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.structural) {
      this.structural = false;
      this.dirty.clear();
      this.changed.fire(undefined);
      return;
    }
    const nodes = [...this.dirty].filter((a) => this.runtime.agents.isLive(a));
    this.dirty.clear();
    if (nodes.length) this.changed.fire(nodes);
  }

  private treeUsage(agent: Agent): { tokens: number; count: number; cost: number } {
    let tokens = agent.usage.inputTokens + agent.usage.outputTokens;
    let cost = agent.run.costOf(agent.id);
    let count = 0;
    const stack = this.runtime.agents.isLive(agent) ? this.runtime.agents.childrenOf(agent) : [];
    while (stack.length) {
      const a = stack.pop()!;
      count++;
      tokens += a.usage.inputTokens + a.usage.outputTokens;
      cost += a.run.costOf(a.id);
      stack.push(...this.runtime.agents.childrenOf(a));
    }
    return { tokens, count, cost };
  }
}
