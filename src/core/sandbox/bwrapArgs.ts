import * as path from 'node:path';

/**
 * The bubblewrap command line for one sandboxed command (Linux). Pure: the caller resolves every
 * path (real paths, existing ones) first, so what is tested here is exactly what runs.
 *
 * What the command sees:
 * - the whole file system read-only, except the run's folders (read-write, at their real path)
 *   and a fresh `/tmp` of its own that ends with it; inside the run's folders, what would run
 *   outside the sandbox later (`.git/hooks`, `.git/config`, `.vscode`, ...) stays read-only;
 * - `/run` (and so `/var/run`) empty: the sockets of the machine's services (docker, dbus,
 *   the user's session bus) are not there to connect to;
 * - each deny-listed path replaced by an empty read-only folder (or `/dev/null` for a file): it
 *   cannot be read, whatever link or `..` leads to it, since the mount is what is read;
 * - its own user, process, IPC, UTS, cgroup and network namespaces, no capabilities, no new user
 *   namespaces (`unshare` fails), a session of its own (no typing into the editor's terminal);
 * - the network: only loopback of its own; the network filter's socket (bound at
 *   PROXY_SOCKET_INSIDE) is its way out, through the launcher script below.
 * It ends when Arbor does (`--die-with-parent`), and its whole process tree ends with its first
 * process (a PID namespace ends with its init).
 *
 * Order matters to mounts: deny masks that cover a writable folder come before it, so the folder
 * stays usable (a worktree in the editor's storage), and are made read-only once it is bound; the
 * others come after, so a denied path inside the workspace stays denied.
 */

/** Where the network filter's socket is bound inside the sandbox. */
export const PROXY_SOCKET_INSIDE = '/tmp/.arbor-network.sock';
/** The loopback port inside the sandbox that forwards to the filter (the sandbox has its own loopback). */
export const PROXY_PORT_INSIDE = 3128;

export interface BwrapPlan {
  /** Real paths the command may write (the run's folder, a worktree). */
  writable: readonly string[];
  /**
   * Existing real paths inside the run's folders that stay read-only: what would run outside the
   * sandbox later (git hooks and config, the editor's folder settings and tasks, Arbor's schedules).
   */
  readOnly?: readonly string[];
  /** Real folders under /tmp that hold the program: bound read-only over the sandbox's own /tmp, before anything else. */
  programs?: readonly string[];
  /** Existing real paths the command may not read, each with whether it is a folder. */
  denyRead: ReadonlyArray<{ path: string; folder: boolean }>;
  /** Real path of the working folder (inside a writable folder). */
  cwd: string;
  /** The filter's socket on the host; without it the command has no network at all. */
  proxySocket?: string;
  /** Whether this bubblewrap knows `--disable-userns` (0.8 and later). */
  disableUserns: boolean;
}

function within(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function mask(entry: { path: string; folder: boolean }): string[] {
  return entry.folder ? ['--tmpfs', entry.path, '--remount-ro', entry.path] : ['--ro-bind', '/dev/null', entry.path];
}

/** bubblewrap's options for `plan`, up to (not including) the `--` before the program. */
export function bwrapArgs(plan: BwrapPlan): string[] {
  // A path inside a denied folder is hidden with it (and has no mount point to make there),
  // unless a run folder bound inside that folder shows it again.
  const hiddenBy = (d: BwrapPlan['denyRead'][number], o: BwrapPlan['denyRead'][number]): boolean =>
    o.folder && o.path !== d.path && within(d.path, o.path) && !plan.writable.some((w) => within(w, o.path) && within(d.path, w));
  const denied = plan.denyRead.filter((d) => !plan.denyRead.some((o) => hiddenBy(d, o)));
  const covering = denied.filter((d) => plan.writable.some((w) => within(w, d.path)));
  const inside = denied.filter((d) => !covering.includes(d));
  const args = [
    '--new-session',
    '--die-with-parent',
    '--unshare-user',
    ...(plan.disableUserns ? ['--disable-userns'] : []),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--unshare-net',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/run',
    '--tmpfs',
    '/tmp',
  ];
  // First, so a run folder or a mask inside one of them still goes over it.
  for (const p of plan.programs ?? []) args.push('--ro-bind', p, p);
  // A mask over a run folder stays writable until the folder is bound in it (bubblewrap makes the
  // folders on the way), and is made read-only after.
  for (const d of covering) args.push(...(d.folder ? ['--tmpfs', d.path] : mask(d)));
  for (const w of plan.writable) args.push('--bind', w, w);
  for (const p of plan.readOnly ?? []) args.push('--ro-bind', p, p);
  for (const d of inside) args.push(...mask(d));
  for (const d of covering) if (d.folder) args.push('--remount-ro', d.path);
  if (plan.proxySocket) args.push('--bind', plan.proxySocket, PROXY_SOCKET_INSIDE);
  args.push('--chdir', plan.cwd);
  return args;
}

/**
 * The script that starts the command inside the sandbox when it has a way out: socat forwards the
 * sandbox's own loopback port to the filter's socket, and the command starts once that port
 * listens (read from /proc, no fixed wait). The command is `"$@"`, never spliced into the text.
 */
export function launcherScript(socat: string): string {
  const hexPort = PROXY_PORT_INSIDE.toString(16).toUpperCase().padStart(4, '0');
  return [
    `${quote(socat)} TCP-LISTEN:${PROXY_PORT_INSIDE},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${PROXY_SOCKET_INSIDE} >/dev/null 2>&1 &`,
    `i=0; while ! grep -q ':${hexPort} 00000000:0000 0A' /proc/net/tcp 2>/dev/null; do i=$((i+1)); [ "$i" -gt 1000 ] && break; sleep 0.005; done`,
    'exec "$@"',
  ].join('\n');
}

/** The variables that send a command's HTTP(S) traffic to the filter, on `port` of loopback. */
export function proxyEnv(port = PROXY_PORT_INSIDE): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return { http_proxy: url, https_proxy: url, HTTP_PROXY: url, HTTPS_PROXY: url, ALL_PROXY: url, all_proxy: url, no_proxy: '', NO_PROXY: '' };
}

function quote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
