/**
 * The Seatbelt profile (macOS `sandbox-exec -p`) for one sandboxed command. Pure: the caller
 * resolves every path first (real paths: `/private/var/...`, not `/var/...`, since Seatbelt
 * matches the path the kernel sees), so what is tested here is exactly what runs.
 *
 * What the command may do (the same promises bubblewrap keeps on Linux, see bwrapArgs.ts):
 * - read the whole file system except the deny-list, each denied path refused whatever link or
 *   `..` leads to it (Seatbelt checks the resolved path);
 * - write only in the run's folders and a temp folder of its own (its `TMPDIR`), and the
 *   terminal and null devices; inside the run's folders, what would run outside the sandbox
 *   later (`.git/hooks`, `.git/config`, `.vscode`, ...) stays read-only;
 * - no network of its own: no socket to any host, no bind, no Unix socket of the machine's
 *   services; its only way out is the network filter's port on loopback, which `HTTP(S)_PROXY`
 *   name. With loopback allowed, any loopback port too.
 * Seatbelt applies the last rule that matches, so each narrowing comes after what it narrows.
 */

export interface SeatbeltPlan {
  /** Real paths the command may write (the run's folder, a worktree). */
  writable: readonly string[];
  /** Existing real paths inside the writable folders that stay read-only. */
  readOnly?: readonly string[];
  /** Existing real paths the command may not read, each with whether it is a folder. */
  denyRead: ReadonlyArray<{ path: string; folder: boolean }>;
  /** The command's own temp folder (real path), writable, removed when it ends. */
  tmp: string;
  /** The network filter's port on 127.0.0.1; without it the command has no network at all. */
  proxyPort?: number;
  /** Whether any loopback port may be reached (arbor.sandbox.network.allowLoopback). */
  allowLoopback: boolean;
}

/** A Seatbelt string literal: backslashes and quotes escaped, no control characters. */
export function sbString(value: string): string {
  if ([...value].some((c) => c.charCodeAt(0) < 0x20)) throw new Error(`a path with a control character cannot be put in a sandbox profile: ${JSON.stringify(value)}`);
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const subpathOrLiteral = (entry: { path: string; folder: boolean }): string => `(${entry.folder ? 'subpath' : 'literal'} ${sbString(entry.path)})`;

/** The profile text for `plan`. */
export function seatbeltProfile(plan: SeatbeltPlan): string {
  const lines = [
    '(version 1)',
    '(allow default)',
    // Writes: nowhere, then the run's folders, its temp folder and the devices a shell writes to.
    '(deny file-write*)',
    `(allow file-write* ${[...plan.writable, plan.tmp].map((p) => `(subpath ${sbString(p)})`).join(' ')}`,
    '  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper") (literal "/dev/tty") (regex #"^/dev/fd/[0-9]+$") (regex #"^/dev/ttys[0-9]+$"))',
  ];
  if (plan.readOnly?.length) lines.push(`(deny file-write* ${plan.readOnly.map((p) => `(subpath ${sbString(p)})`).join(' ')})`);
  if (plan.denyRead.length) {
    const denied = plan.denyRead.map(subpathOrLiteral).join(' ');
    // Neither read nor changed: a denied file inside the workspace stays out of reach too.
    lines.push(`(deny file-read* ${denied})`, `(deny file-write* ${denied})`);
  }
  // Network: nothing (sockets to hosts, binds, the machine's Unix sockets, among them the name
  // resolver's, so no lookup carries data out), then the filter's port: the proxy resolves.
  lines.push('(deny network*)');
  if (plan.proxyPort !== undefined) lines.push(`(allow network-outbound (remote ip ${sbString(`localhost:${plan.proxyPort}`)}))`);
  if (plan.allowLoopback) {
    lines.push('(allow network-outbound (remote ip "localhost:*"))', '(allow network-inbound (local ip "localhost:*"))', '(allow network-bind (local ip "localhost:*"))');
  }
  return `${lines.join('\n')}\n`;
}
