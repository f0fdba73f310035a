import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ArborError } from '../errors';
import type { SandboxAvailability } from './availability';
import type { SandboxPlan } from './types';
import { blockedPaths } from './blockedPaths';
import type { SandboxSettings } from './settings';

/**
 * What a sandboxed command's plan holds, and how it is said to the person asked: the real paths
 * it may write, the existing paths it may not read, what in its folder stays read-only. Paths are
 * resolved (links followed) when the plan is made, so what is shown is what is mounted.
 */

/** Read nowhere by a sandboxed command, under the home folder. */
export const BUILTIN_DENY_READ = ['~/.ssh', '~/.aws', '~/.config/gh', '~/.gnupg', '~/.netrc', '~/.git-credentials', '~/.docker', '~/.kube', '~/.azure', '~/.config/gcloud', '~/.local/share/keyrings', '~/.password-store'];

/**
 * Inside a run's folder, what a sandboxed command may not change because it runs outside the
 * sandbox later: git's hooks and config (hooks, `core.hooksPath`, `core.fsmonitor`), the editor's
 * and other IDEs' folder settings and tasks, Arbor's schedules, MCP server lists.
 */
export const PROTECTED_IN_RUN_FOLDER = ['.git/hooks', '.git/config', '.gitmodules', '.vscode', '.idea', '.arbor', '.mcp.json'];

/**
 * The plan of a command in `folders` on a machine whose sandbox is `available` (the mode is not
 * off): without a sandbox, unsandboxed in `preferred` mode and SANDBOX_UNAVAILABLE in `required`.
 */
export function planOn(available: SandboxAvailability, folders: readonly string[], settings: SandboxSettings, extraDeny: readonly string[], home = os.homedir()): SandboxPlan {
  if (available.ok) return sandboxedPlan(folders, settings, available, extraDeny, home);
  if (settings.mode === 'required') {
    throw new ArborError('SANDBOX_UNAVAILABLE', `Not run: arbor.sandbox.mode is "required" and this machine has no sandbox: ${available.missing}.`, { missing: available.missing });
  }
  return { kind: 'unsandboxed', reason: `this machine has no sandbox: ${available.missing}` };
}

/** The plan of a command in `folders` on a machine whose sandbox is `available`. */
export function sandboxedPlan(folders: readonly string[], settings: SandboxSettings, available: Extract<SandboxAvailability, { ok: true }>, extraDeny: readonly string[], home: string): SandboxPlan {
  const expand = (p: string): string => (p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : path.resolve(p));
  const deny = [...BUILTIN_DENY_READ, ...extraDeny, ...settings.denyRead];
  const writable = folders.map(realOrSelf);
  const readOnly = existing(writable.flatMap((w) => PROTECTED_IN_RUN_FOLDER.map((p) => path.join(w, p))))
    .map((p) => p.path)
    .filter((p) => writable.some((w) => p.startsWith(`${w}${path.sep}`)));
  return { kind: 'sandboxed', writable, denyRead: existing(deny.map(expand)), readOnly, settings, available };
}

/** The person's view of a plan, in one line (it fits an approval's question): what the command may touch. */
export function describePlan(plan: SandboxPlan): string {
  if (plan.kind === 'unsandboxed') return `Runs unsandboxed, with all of your rights: ${plan.reason}.`;
  const { settings } = plan;
  const tmp = plan.available.seatbelt !== undefined ? 'its own temp folder' : 'its own /tmp';
  const denied = [...BUILTIN_DENY_READ, ...settings.denyRead];
  const network = settings.networkAllow.length > 0 ? `only ${settings.networkAllow.join(', ')}` : 'none';
  const env = settings.envAllow.length > 0 ? ` (but ${settings.envAllow.join(', ')})` : '';
  return (
    `Runs sandboxed: writes only in ${plan.writable.join(', ')} and ${tmp}; cannot read ${denied.slice(0, 3).join(', ')}, ${denied.length - 3} more secret stores or the editor's storage; ` +
    `network: ${network}, loopback ${settings.allowLoopback ? 'open' : 'closed'}; secret-looking variables withheld${env}.`
  );
}

/** What a command's result says about the sandbox: whether it ran in one, and what it blocked. */
export function sandboxReport(plan: SandboxPlan, output: string, hosts: readonly string[]): Record<string, unknown> {
  if (plan.kind === 'unsandboxed') return { sandbox: `unsandboxed: ${plan.reason}` };
  const paths = blockedPaths(output);
  return {
    sandbox: `sandboxed: writes only in ${plan.writable.join(', ')} and ${plan.available.seatbelt !== undefined ? 'its own temp folder ($TMPDIR)' : '/tmp'}`,
    ...(hosts.length > 0 ? { blocked_network: hosts, blocked_network_note: 'The sandbox refused these hosts; the setting arbor.sandbox.network.allow lists the domains a command may reach.' } : {}),
    ...(paths.length > 0 ? { blocked_paths: paths, blocked_paths_note: 'Writes outside the run folder fail in the sandbox (read-only file system).' } : {}),
  };
}

/** The paths of `paths` that exist, as real paths, each with whether it is a folder. */
function existing(paths: readonly string[]): Array<{ path: string; folder: boolean }> {
  const out = new Map<string, boolean>();
  for (const p of paths) {
    try {
      const real = fs.realpathSync(p);
      out.set(real, fs.statSync(real).isDirectory());
    } catch {
      // Not there: nothing to hide.
    }
  }
  return [...out].map(([p, folder]) => ({ path: p, folder }));
}

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    // A folder that does not resolve is bound as spelled; bubblewrap then refuses it if it is not there.
    return p;
  }
}
