import * as vscode from 'vscode';

/** The title-bar button that puts a prompt back without answering it (the agent keeps waiting). */
export const LATER_TOOLTIP = 'Later: put this back, it waits in Waiting for you';

const LATER: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('clock'), tooltip: LATER_TOOLTIP };

/** Offers Later on a prompt's picker or input box. */
export function offerLater(ui: vscode.QuickPick<vscode.QuickPickItem> | vscode.InputBox, later: () => void): void {
  ui.buttons = [...ui.buttons, LATER];
  ui.onDidTriggerButton((button) => {
    if (button === LATER) later();
  });
}
