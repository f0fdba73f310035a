// The sandbox as the editor configures it: `arbor.sandbox.*`, read from the user's settings only
// (a folder you open cannot turn the sandbox off or open the network), and the editor's own
// storage added to what sandboxed commands cannot read.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CommandSandbox, parseSandboxSettings, type RawSandboxSettings, type SandboxSettings } from '../core/sandbox';

/** Each core field and the setting it is read from. */
const KEYS: Record<keyof SandboxSettings, string> = {
  mode: 'sandbox.mode',
  autoAllow: 'sandbox.autoAllow',
  networkAllow: 'sandbox.network.allow',
  allowLoopback: 'sandbox.network.allowLoopback',
  denyRead: 'sandbox.filesystem.denyRead',
  envAllow: 'sandbox.env.allow',
};

export function readSandboxSettings(onProblem: (message: string) => void): SandboxSettings {
  const config = vscode.workspace.getConfiguration('arbor');
  const raw: RawSandboxSettings = {};
  for (const [field, key] of Object.entries(KEYS) as Array<[keyof SandboxSettings, string]>) raw[field] = config.inspect<unknown>(key)?.globalValue;
  return parseSandboxSettings(raw, onProblem);
}

/**
 * The editor's storage a sandboxed command must not read: the user data folder (settings, the
 * state database that holds the secret store when no keyring is used, every extension's global
 * storage, Arbor's sessions) and this workspace's storage.
 */
export function editorStorage(context: Pick<vscode.ExtensionContext, 'globalStorageUri' | 'storageUri'>): string[] {
  const global = context.globalStorageUri.fsPath;
  const userData = path.dirname(path.dirname(global));
  return [userData, global, ...(context.storageUri ? [context.storageUri.fsPath] : [])];
}

/** The runtime's sandbox, kept to the settings as they change. */
export function editorSandbox(context: vscode.ExtensionContext, onProblem: (message: string) => void, onUnsandboxed: (reason: string) => void): CommandSandbox {
  // Read at the first command, not while the editor starts; a change is read (and a bad value reported) at once.
  const sandbox = new CommandSandbox({ settings: () => readSandboxSettings(onProblem), denyRead: editorStorage(context), onUnsandboxed });
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('arbor.sandbox')) sandbox.setSettings(readSandboxSettings(onProblem));
    }),
  );
  return sandbox;
}
