import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Whether this machine can sandbox commands, found once per process: on Linux, bubblewrap
 * (`bwrap`) that really starts a sandbox here (a container may forbid user namespaces), and
 * socat for the way out to the network filter. Elsewhere there is no sandbox Arbor drives.
 *
 * Invariant: "available" means a probe sandbox with the very options every command gets was
 * started and exited 0, not merely that a program of that name exists.
 */

export type SandboxAvailability =
  | { ok: true; bwrap: string; socat: string; disableUserns: boolean }
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

/** Probes the machine (no cache: see `sandboxAvailability`). */
export async function probeSandbox(platform: NodeJS.Platform = process.platform): Promise<SandboxAvailability> {
  if (platform === 'darwin') return { ok: false, missing: 'Arbor does not drive the macOS sandbox (sandbox-exec) yet' };
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
