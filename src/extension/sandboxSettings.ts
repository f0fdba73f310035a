// The sandbox's settings as the editor reads them, a part loaded by the first command (the
// editor's start holds no sandbox schema): `arbor.sandbox.*` from the user's settings only, so a
// folder you open cannot turn the sandbox off or open the network.
import * as vscode from 'vscode';
import { sandboxPart, type RawSandboxSettings, type SandboxSettings } from '../core/sandbox';

/** Each core field and the setting it is read from. */
const KEYS: Record<keyof SandboxSettings, string> = {
  mode: 'sandbox.mode',
  autoAllow: 'sandbox.autoAllow',
  networkAllow: 'sandbox.network.allow',
  allowLoopback: 'sandbox.network.allowLoopback',
  denyRead: 'sandbox.filesystem.denyRead',
  envAllow: 'sandbox.env.allow',
};

/** The settings; a bad value is reported (naming the setting and the default used) and replaced. */
export function readSandboxSettings(onProblem: (message: string) => void): SandboxSettings {
  const config = vscode.workspace.getConfiguration('arbor');
  const raw: RawSandboxSettings = {};
  for (const [field, key] of Object.entries(KEYS) as Array<[keyof SandboxSettings, string]>) raw[field] = config.inspect<unknown>(key)?.globalValue;
  return sandboxPart().parseSandboxSettings(raw, onProblem);
}
