import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Whether this machine can sandbox commands, found once per process: on Linux, bubblewrap
 * (`bwrap`) that really starts a sandbox here (a container may forbid user namespaces), and
 * socat for the way out to the network filter; on macOS, Seatbelt (`/usr/bin/sandbox-exec`, part
 * of the system) that really applies a profile here. Elsewhere there is no sandbox Arbor drives.
 *
 * Invariant: "available" means a probe sandbox with the very options every command gets was
 * started and exited 0, not merely that a program of that name exists.
 */

export type SandboxAvailability =
  | { ok: true; bwrap: string; socat: string; disableUserns: boolean; seatbelt?: undefined }
  /** macOS: `sandbox-exec` at this path (see seatbeltProfile.ts). */
  | { ok: true; seatbelt: string }
  | { ok: false; missing: string };

const INSTALL = 'install bubblewrap and socat (Debian, Ubuntu: sudo apt install bubblewrap socat; Fedora: sudo dnf install bubblewrap socat)';

/** The first executable `name` on `PATH`, or undefined. */
export function findOnPath(name: string, envPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here; the next folder on PATH.
    }
  }
  return undefined;
}

function run(program: string, args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(program, [...args], { timeout: 10_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : null) : 0;
      resolve({ code, output: `${stdout}${stderr}`.trim() });
    });
  });
}

/** Where macOS keeps Seatbelt's command (never taken from PATH, where a look-alike could sit first). */
export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

/** A profile that denies one thing: the probe that it is really applied here (a write outside is refused). */
const SEATBELT_PROBE = '(version 1)(allow default)(deny file-write* (subpath "/"))';

/** Probes macOS's sandbox: `sandbox-exec` runs a profile, and the profile holds (a denied write fails). */
export async function probeSeatbelt(sandboxExec = SANDBOX_EXEC): Promise<SandboxAvailability> {
  if (!fs.existsSync(sandboxExec)) return { ok: false, missing: `${sandboxExec} not found (it is part of macOS; a system without it has no command sandbox)` };
  const ran = await run(sandboxExec, ['-p', '(version 1)(allow default)', '/usr/bin/true']);
  if (ran.code !== 0) return { ok: false, missing: `sandbox-exec cannot apply a profile here (${ran.output || `exit ${ran.code}`}); Arbor may itself be running in a sandbox` };
  const denied = await run(sandboxExec, ['-p', SEATBELT_PROBE, '/usr/bin/touch', '/tmp/.arbor-sandbox-probe']);
  if (denied.code === 0) {
    fs.rmSync('/tmp/.arbor-sandbox-probe', { force: true });
    return { ok: false, missing: 'sandbox-exec ran, but its profile did not hold (a write it denies succeeded)' };
  }
  return { ok: true, seatbelt: sandboxExec };
}

/** Probes the machine (no cache: see `sandboxAvailability`). */
export async function probeSandbox(platform: NodeJS.Platform = process.platform): Promise<SandboxAvailability> {
  if (platform === 'darwin') return probeSeatbelt();
  if (platform !== 'linux') return { ok: false, missing: `there is no command sandbox on ${platform === 'win32' ? 'Windows' : platform}` };
  const bwrap = findOnPath('bwrap');
  const socat = findOnPath('socat');
  if (!bwrap || !socat) return { ok: false, missing: `${[!bwrap && 'bubblewrap (bwrap)', !socat && 'socat'].filter(Boolean).join(' and ')} not found on PATH: ${INSTALL}` };
  const help = await run(bwrap, ['--help']);
  const disableUserns = help.output.includes('--disable-userns');
  const probe = await run(bwrap, [
    '--new-session', '--die-with-parent', '--unshare-user', ...(disableUserns ? ['--disable-userns'] : []),
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--unshare-net', '--cap-drop', 'ALL',
    '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--', 'true',
  ]);
  if (probe.code !== 0) {
    return { ok: false, missing: `bubblewrap cannot start a sandbox here (${probe.output || `exit ${probe.code}`}); user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or in a container allow them)` };
  }
  return { ok: true, bwrap, socat, disableUserns };
}

let cached: Promise<SandboxAvailability> | undefined;

/** The machine's sandbox, probed on first use and then remembered for the process. */
export function sandboxAvailability(): Promise<SandboxAvailability> {
  return (cached ??= probeSandbox());
}
