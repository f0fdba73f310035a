// The Schedules view: each schedule with its next run, its last outcome and its state
// (running, paused), and each entry that was skipped with the reason. Schedules are few, so a
// change repaints the whole view.
import * as vscode from 'vscode';
import type { Scheduler } from './scheduler';

export type SchedulesNode = { type: 'schedule'; name: string } | { type: 'problem'; message: string };

export class SchedulesTreeProvider implements vscode.TreeDataProvider<SchedulesNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SchedulesNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private problems: string[] = [];

  constructor(private readonly scheduler: Scheduler) {}

  setProblems(problems: readonly string[]): void {
    this.problems = [...problems];
    this.refresh();
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: SchedulesNode): SchedulesNode[] {
    if (node) return [];
    return [
      ...this.scheduler.list().map((s): SchedulesNode => ({ type: 'schedule', name: s.name })),
      ...this.problems.map((message): SchedulesNode => ({ type: 'problem', message })),
    ];
  }

  getParent(): undefined {
    return undefined;
  }

  getTreeItem(node: SchedulesNode): vscode.TreeItem {
    if (node.type === 'problem') {
      const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
      item.id = `problem:${node.message}`;
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
      item.tooltip = node.message;
      item.contextValue = 'scheduleProblem';
      return item;
    }
    const schedule = this.scheduler.get(node.name);
    const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.None);
    item.id = `schedule:${node.name}`;
    if (!schedule) return item;
    const running = this.scheduler.isRunning(node.name);
    const paused = this.scheduler.isPaused(node.name);
    const next = this.scheduler.nextRun(node.name);
    const last = this.scheduler.lastOutcome(node.name);
    const state = running ? 'running' : paused ? 'paused' : 'active';
    const parts = [running ? 'running…' : paused ? 'paused' : next ? `next ${when(next)}` : 'no further runs'];
    if (last) parts.push(`last: ${last.summary}`);
    item.description = parts.join(' · ');
    item.iconPath = new vscode.ThemeIcon(running ? 'loading~spin' : paused ? 'debug-pause' : last && (last.reason !== 'completed' || last.blocked.length > 0) ? 'warning' : 'watch');
    item.contextValue = `schedule:${state}`;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${escape(node.name)}**: \`${escape(schedule.cron)}\` (from ${escape(schedule.source)})\n\n`);
    tooltip.appendMarkdown(`- Next run: ${paused ? 'paused' : next ? next.toLocaleString() : 'none'}\n`);
    tooltip.appendMarkdown(`- Missed runs: ${schedule.runMissed ? 'run once at startup' : 'skipped'}\n`);
    if (last) {
      tooltip.appendMarkdown(`- Last run: ${new Date(last.at).toLocaleString()}, ${escape(last.summary)}\n`);
      for (const blocked of last.blocked) tooltip.appendMarkdown(`  - BLOCKED: ${escape(blocked)}\n`);
    }
    tooltip.appendMarkdown('\n');
    tooltip.appendCodeblock(schedule.prompt.length > 1_000 ? `${schedule.prompt.slice(0, 999)}…` : schedule.prompt, 'text');
    item.tooltip = tooltip;
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** A time as people read a schedule: the hour today, the date and hour otherwise. */
function when(date: Date): string {
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString() : date.toLocaleString();
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
