// The status-bar item with what the live runs use (tokens, cost, running agents), warning-
// coloured when a run is near or at a limit; a click focuses the Agents view.
import * as vscode from 'vscode';
import { runtimeEventNamesBut, type Runtime } from '../../core';
import { budgetStatus, formatCost, formatCount } from '../../core/budgets';
import { Disposable } from '../disposable';

/** A burst of events costs one update. */
const COALESCE_MS = 200;

export class UsageStatusBar extends Disposable {
  readonly item: vscode.StatusBarItem;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly runtime: Runtime) {
    super();
    this.item = vscode.window.createStatusBarItem('arbor.usage', vscode.StatusBarAlignment.Left, 0);
    this.item.name = 'Arbor Usage';
    this.item.command = 'arbor.agents.focus';
    this._register(
      // Everything but log lines: a line moves no figure the bar shows without a usage change of its own.
      runtime.onEvents(runtimeEventNamesBut('log'), () => this.schedule()),
    );
    this._register(runtime.budgets.onEvent(() => this.schedule()));
    this.update();
  }

  update(): void {
    const runs = this.runtime.budgets.liveRuns();
    if (runs.length === 0) {
      this.item.hide();
      return;
    }
    const now = Date.now();
    let tokens = 0;
    let cost = 0;
    let warn = false;
    const lines: string[] = [];
    for (const { run, root } of runs) {
      tokens += run.budget.tokensUsed;
      cost += run.budget.cost;
      const status = budgetStatus(run.budget, now);
      const hold = this.runtime.budgets.holdOf(run);
      if (status.level !== 'ok' || hold) warn = true;
      const state = hold ? ` (paused: ${hold.detail})` : '';
      lines.push(`**${root?.label ?? 'Run'}**${state}: ${status.measures.filter((m) => m.limit > 0 || m.key === 'tokens').map((m) => m.text).join(', ')}`);
    }
    const running = this.runtime.agents.all().filter((a) => a.status === 'running').length;
    const parts = [`${formatCount(tokens)} tok`];
    if (cost > 0) parts.push(formatCost(cost));
    parts.push(`${running} running`);
    this.item.text = `${warn ? '$(warning)' : '$(pulse)'} Arbor: ${parts.join(' · ')}`;
    this.item.tooltip = new vscode.MarkdownString([...lines, '', 'Click to show the Agents view.'].join('\n\n'));
    this.item.backgroundColor = warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  override dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    super.dispose();
    this.item.dispose();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.update();
    }, COALESCE_MS);
  }
}
