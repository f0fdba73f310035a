import * as vscode from 'vscode';

/** What Arbor exports to other extensions and to its integration tests. */
export interface ArborApi {
  /** The version of the running Arbor extension (from its manifest). */
  readonly version: string;
}

/**
 * Until the live-agent tree lands, the Agents view has no rows, which makes VS Code show the
 * view's welcome content (`viewsWelcome` in package.json) with the next step for the user.
 */
const emptyAgentsTree: vscode.TreeDataProvider<never> = {
  getTreeItem: (element) => element,
  getChildren: () => [],
};

export function activate(context: vscode.ExtensionContext): ArborApi {
  const log = vscode.window.createOutputChannel('Arbor', { log: true });
  const version = String(context.extension.packageJSON.version);

  context.subscriptions.push(
    log,
    vscode.window.registerTreeDataProvider('arbor.agents', emptyAgentsTree),
    vscode.commands.registerCommand('arbor.showLog', () => log.show()),
  );

  log.info(`Arbor ${version} activated in ${vscode.env.appName} ${vscode.version}`);
  return { version };
}

export function deactivate(): void {
  // Everything Arbor creates is owned by context.subscriptions, which VS Code disposes.
}
