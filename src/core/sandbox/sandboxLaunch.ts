import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ArborError } from '../errors';
import { bwrapArgs, launcherScript, proxyEnv } from './bwrapArgs';
import type { SandboxLaunch, SandboxPlan } from './types';
import { NetworkFilter } from './networkFilter';
import { filterSecrets } from './sandboxEnv';
import { seatbeltProfile } from './seatbeltProfile';

/**
 * Starting a command as its plan says: unsandboxed as it is, or in the sandbox. On Linux
 * (bubblewrap): a folder of the sandbox's own with the network filter's socket in it, the filter
 * listening there, and the bubblewrap command line whose launcher bridges the socket to the
 * sandbox's loopback. On macOS (Seatbelt): the filter on a loopback port, and `sandbox-exec` with
 * the profile that lets the command reach only that port and write only its folders and its own
 * temp folder (inside the sandbox's folder). Nothing is left behind: a failure removes what was made (SANDBOX_FAILED), and `dispose` removes it once
 * the command has ended.
 */
export async function launchSandboxed(plan: SandboxPlan, program: string, args: readonly string[], cwd: string, extraEnv: Record<string, string>): Promise<SandboxLaunch> {
  if (plan.kind === 'unsandboxed') {
    const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
    return { program, args: [...args], env: { ...env, ...extraEnv }, sandboxed: false, blockedHosts: () => [], dispose: () => undefined };
  }
  let own: string | undefined;
  let filter: NetworkFilter | undefined;
  try {
    own = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-sandbox-'));
    if (plan.available.seatbelt !== undefined) {
      filter = new NetworkFilter({ allow: plan.settings.networkAllow, allowLoopback: plan.settings.allowLoopback });
      return await launchInSeatbelt(plan, plan.available.seatbelt, fs.realpathSync(own), filter, program, args, extraEnv);
    }
    const socket = path.join(own, 'net.sock');
    filter = new NetworkFilter({ allow: plan.settings.networkAllow, allowLoopback: plan.settings.allowLoopback });
    await filter.listen(socket);
    const options = bwrapArgs({ writable: plan.writable, denyRead: plan.denyRead, readOnly: plan.readOnly, programs: plan.programs, cwd, proxySocket: socket, disableUserns: plan.available.disableUserns });
    const { env } = filterSecrets(process.env, plan.settings.envAllow);
    const inside = { ...env, TMPDIR: '/tmp', XDG_CACHE_HOME: '/tmp/.cache', npm_config_cache: '/tmp/.npm', ...proxyEnv(), ...extraEnv };
    const dir = own;
    const net = filter;
    return {
      program: plan.available.bwrap,
      args: [...options, '--', '/bin/sh', '-c', launcherScript(plan.available.socat), 'arbor-sandbox', program, ...args],
      env: inside,
      sandboxed: true,
      blockedHosts: () => net.blocked,
      dispose: () => {
        net.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    filter?.close();
    if (own) fs.rmSync(own, { recursive: true, force: true });
    throw new ArborError('SANDBOX_FAILED', `Not run: the sandbox could not be set up (${(err as Error).message}).`);
  }
}

async function launchInSeatbelt(
  plan: Extract<SandboxPlan, { kind: 'sandboxed' }>,
  sandboxExec: string,
  own: string,
  filter: NetworkFilter,
  program: string,
  args: readonly string[],
  extraEnv: Record<string, string>,
): Promise<SandboxLaunch> {
  const tmp = path.join(own, 'tmp');
  fs.mkdirSync(tmp);
  const port = await filter.listenOnLoopback();
  const profile = seatbeltProfile({ writable: plan.writable, readOnly: plan.readOnly, denyRead: plan.denyRead, tmp, proxyPort: port, allowLoopback: plan.settings.allowLoopback });
  const { env } = filterSecrets(process.env, plan.settings.envAllow);
  return {
    program: sandboxExec,
    args: ['-p', profile, program, ...args],
    env: { ...env, TMPDIR: tmp, XDG_CACHE_HOME: path.join(tmp, '.cache'), npm_config_cache: path.join(tmp, '.npm'), ...proxyEnv(port), ...extraEnv },
    sandboxed: true,
    blockedHosts: () => filter.blocked,
    dispose: () => {
      filter.close();
      fs.rmSync(own, { recursive: true, force: true });
    },
  };
}
