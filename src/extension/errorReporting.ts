// How the editor layer reports a failure to the human: one error message that says what to do
// next, with the detail in the Arbor log. Every part of the extension reports through here.
import * as vscode from 'vscode';
import { messageOf } from '../core';

/** Shows an error that says what to do next; Arbor errors carry their own wording. */
export function reportError(log: vscode.LogOutputChannel, what: string, err: unknown): void {
  const message = messageOf(err);
  log.error(`${what}: ${message}`);
  void vscode.window.showErrorMessage(`Arbor: ${what}. ${message}`, 'Show Log').then((pick) => {
    if (pick) log.show();
  });
}

/**
 * Runs a command's argument parser: a bad argument is reported and rejects the command with
 * its ArborError (INPUT_INVALID), before the command has changed anything.
 */
export function parsedArgument<T>(log: vscode.LogOutputChannel, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    reportError(log, 'A command was given an argument it cannot use', err);
    throw err;
  }
}
