// The Schedules view and its commands at start, and the scheduler (the part in index.ts, with the
// cron parser) loaded only when there is a schedule: in the `arbor.schedules` setting or in
// `.arbor/schedules.json` at start or later, or when a schedule command runs. Until then the view
// is empty and shows its welcome text; once loaded, the part watches both sources itself.
import * as vscode from 'vscode';
import type { Runtime } from '../../core';
import type { AgentRuns } from '../agents/agentRuns';
import { schedulesPart } from '../parts';
import type { ScheduledRuns, SchedulesNode } from './index';

export const SCHEDULES_SETTING = 'schedules';
export const SCHEDULES_FILE = '.arbor/schedules.json';
const SCHEDULE_COMMANDS = ['arbor.runScheduleNow', 'arbor.pauseSchedule', 'arbor.resumeSchedule'] as const;
export type ScheduleCommand = (typeof SCHEDULE_COMMANDS)[number];

export interface ScheduleDeps {
  context: vscode.ExtensionContext;
  runtime: Runtime;
  runs: AgentRuns;
  log: vscode.LogOutputChannel;
}

/** Registers the Schedules view and commands; returns what loads the scheduled runs (once). */
export function schedulesOnDemand(deps: ScheduleDeps): () => ScheduledRuns {
  const changed = new vscode.EventEmitter<SchedulesNode | undefined>();
  let loaded: ScheduledRuns | undefined;
  const load = (): ScheduledRuns => {
    if (loaded) return loaded;
    loaded = schedulesPart().createScheduledRuns(deps);
    stopWatching();
    deps.context.subscriptions.push(loaded.view.onDidChangeTreeData((node) => changed.fire(node)));
    changed.fire(undefined);
    return loaded;
  };
  const view: vscode.TreeDataProvider<SchedulesNode> = {
    onDidChangeTreeData: changed.event,
    getChildren: (node) => (loaded ? loaded.view.getChildren(node) : []),
    getTreeItem: (node) => load().view.getTreeItem(node),
    getParent: () => undefined,
  };
  const watch = watchForSchedules(load);
  const stopWatching = (): void => {
    for (const subscription of watch.subscriptions.splice(0)) subscription.dispose();
  };
  deps.context.subscriptions.push(
    changed,
    vscode.window.createTreeView('arbor.schedules', { treeDataProvider: view }),
    { dispose: () => stopWatching() },
    ...SCHEDULE_COMMANDS.map((id) => vscode.commands.registerCommand(id, (arg?: unknown) => load().commands[id](arg))),
  );
  watch.look();
  return load;
}

/** `look` calls `found` when either source has something in it; the subscriptions look again at each change. */
function watchForSchedules(found: () => void): { subscriptions: vscode.Disposable[]; look: () => void } {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const file = folder && vscode.Uri.joinPath(folder.uri, SCHEDULES_FILE);
  const look = (): void => {
    const setting = vscode.workspace.getConfiguration('arbor').get<unknown>(SCHEDULES_SETTING);
    if (setting !== undefined && !(Array.isArray(setting) && setting.length === 0)) return found();
    // The file is read only in a trusted workspace: a folder must not start runs before you trust it.
    if (file && vscode.workspace.isTrusted) void vscode.workspace.fs.stat(file).then(found, () => undefined);
  };
  const subscriptions: vscode.Disposable[] = [
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`arbor.${SCHEDULES_SETTING}`)) look();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(look),
  ];
  if (folder) {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, SCHEDULES_FILE));
    subscriptions.push(watcher, watcher.onDidCreate(look), watcher.onDidChange(look));
  }
  return { subscriptions, look };
}
