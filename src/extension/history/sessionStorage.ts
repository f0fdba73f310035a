import * as path from 'node:path';
import * as vscode from 'vscode';
import { JsonlSessionStore } from '../../core/sessions';

/**
 * Durable sessions live in the extension's storage folder: per workspace when one is open,
 * else the global one. Without a local folder (a web-only editor) they stay in memory.
 */
export function openSessionStore(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): JsonlSessionStore | undefined {
  const base = context.storageUri ?? context.globalStorageUri;
  if (base.scheme !== 'file') {
    log.warn(`Sessions are kept in memory only: the storage folder ${base.toString()} is not on a local disk.`);
    return undefined;
  }
  const folder = path.join(base.fsPath, 'sessions');
  log.info(`Sessions are saved in ${folder}`);
  // Write problems also show on the agent's node; a file Arbor had to write again is a warning.
  const where = vscode.workspace.name ? `for "${vscode.workspace.name}"` : 'with no folder open';
  const fsyncAtFlush = vscode.workspace.getConfiguration('arbor').get<unknown>('sessions.fsyncAtTurnEnd', false) === true;
  return new JsonlSessionStore(folder, {
    owner: `the ${vscode.env.appName} window ${where}`,
    fsyncAtFlush,
    onError: (error) => (error.code === 'SESSION_FILE_LOST' ? log.warn(error.message) : log.error(error.message)),
  });
}
