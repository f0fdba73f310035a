import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ArborError } from '../errors';
import { sandboxAvailability, type SandboxAvailability } from './availability';
import { bwrapArgs, launcherScript, proxyEnv } from './bwrapArgs';
import { NetworkFilter } from './networkFilter';
import { filterSecrets } from './sandboxEnv';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from './settings';

/**
 * The sandbox every command of an agent runs in (run_command, an external agent's terminals,
 * an external agent's own process when its configuration asks): approval decides whether a
 * command runs, the sandbox bounds what it can do once it does.
 *
 * Invariants:
 * - `required` never runs a command unsandboxed: without a sandbox the plan is a refusal
 *   (SANDBOX_UNAVAILABLE, naming what to install), and a sandbox that fails to start is
 *   SANDBOX_FAILED, never a fallback;
 * - `preferred` without a sandbox runs the command as before and every description says so;
 * - a sandboxed command may write only in the folders of its plan (the run's folder: the
 *   workspace or the agent's worktree) and its own `/tmp`; it cannot read the deny-list; its only
 *   network is the filter (see networkFilter.ts); secret-looking variables are withheld;
 * - what the person is asked about (`describe`) is the plan the command then runs with.
 */

/** Read nowhere by a sandboxed command, under the home folder. */
export const BUILTIN_DENY_READ = ['~/.ssh', '~/.aws', '~/.config/gh', '~/.gnupg', '~/.netrc', '~/.git-credentials', '~/.docker', '~/.kube', '~/.azure', '~/.config/gcloud', '~/.local/share/keyrings', '~/.password-store'];

/**
 * Inside a run's folder, what a sandboxed command may not change because it runs outside the
 * sandbox later: git's hooks and config (hooks, `core.hooksPath`, `core.fsmonitor`), the editor's
 * and other IDEs' folder settings and tasks, Arbor's schedules, MCP server lists.
 */
export const PROTECTED_IN_RUN_FOLDER = ['.git/hooks', '.git/config', '.gitmodules', '.vscode', '.idea', '.arbor', '.mcp.json'];

export type SandboxPlan =
  | {
      kind: 'sandboxed';
      /** Real paths the command may write. */
      writable: string[];
      denyRead: Array<{ path: string; folder: boolean }>;
      /** Existing real paths inside the writable folders that stay read-only (PROTECTED_IN_RUN_FOLDER). */
      readOnly: string[];
      settings: SandboxSettings;
      available: Extract<SandboxAvailability, { ok: true }>;
    }
  | { kind: 'unsandboxed'; reason: string };

/** A command ready to spawn: the program and arguments that run it (inside the sandbox when planned), and its environment. */
export interface SandboxLaunch {
  program: string;
  args: string[];
  env: Record<string, string>;
  sandboxed: boolean;
  /** Hosts the network filter refused so far (`host:port`). */
  blockedHosts(): readonly string[];
  /** Stops the filter and removes the sandbox's own files; call once the command's processes ended. */
  dispose(): void;
}

export interface CommandSandboxOptions {
  /** The settings, or how to read them on first use (the editor's start does not parse them). */
  settings?: SandboxSettings | (() => SandboxSettings);
  /** More paths never readable (the editor's storage and secret store). */
  denyRead?: readonly string[];
  home?: string;
  /** The machine's sandbox (probed once per process by default). */
  availability?: () => Promise<SandboxAvailability>;
  /** Told once, the first time a command runs unsandboxed because the machine has no sandbox (`preferred`). */
  onUnsandboxed?: (reason: string) => void;
}

export class CommandSandbox {
  private source: SandboxSettings | (() => SandboxSettings);
  private read: SandboxSettings | undefined;
  private readonly extraDeny: readonly string[];
  private readonly home: string;
  private readonly availability: () => Promise<SandboxAvailability>;
  private known: SandboxAvailability | undefined;
  private readonly onUnsandboxed: ((reason: string) => void) | undefined;
  private toldUnsandboxed = false;

  constructor(options: CommandSandboxOptions = {}) {
    this.source = options.settings ?? { ...DEFAULT_SANDBOX_SETTINGS, mode: 'off' };
    this.extraDeny = options.denyRead ?? [];
    this.home = options.home ?? os.homedir();
    this.availability = options.availability ?? sandboxAvailability;
    this.onUnsandboxed = options.onUnsandboxed;
  }

  get settings(): SandboxSettings {
    return this.current;
  }

  /** New settings from now on (a command already planned keeps the plan it was shown with). */
  setSettings(settings: SandboxSettings | (() => SandboxSettings)): void {
    this.source = settings;
    this.read = undefined;
  }

  private get current(): SandboxSettings {
    return (this.read ??= typeof this.source === 'function' ? this.source() : this.source);
  }

  /** Whether commands run sandboxed now, as far as is known without probing (for the words on an agent's node). */
  get sandboxesCommands(): boolean {
    return this.current.mode !== 'off' && this.known?.ok === true;
  }

  /**
   * How a command would run in `folders` (real paths), or SANDBOX_UNAVAILABLE in `required` mode
   * without a sandbox. `required` here (an external agent that asked to be sandboxed) means the
   * same whatever the setting's mode.
   */
  async plan(folders: readonly string[], options: { required?: boolean } = {}): Promise<SandboxPlan> {
    const settings = options.required ? { ...this.current, mode: 'required' as const } : this.current;
    if (settings.mode === 'off') return { kind: 'unsandboxed', reason: 'the sandbox is off (arbor.sandbox.mode)' };
    const available = (this.known = await this.availability());
    if (!available.ok) {
      if (settings.mode === 'required') {
        throw new ArborError('SANDBOX_UNAVAILABLE', `Not run: arbor.sandbox.mode is "required" and this machine has no sandbox: ${available.missing}.`, { missing: available.missing });
      }
      const reason = `this machine has no sandbox: ${available.missing}`;
      if (!this.toldUnsandboxed) {
        this.toldUnsandboxed = true;
        this.onUnsandboxed?.(reason);
      }
      return { kind: 'unsandboxed', reason };
    }
    const deny = [...BUILTIN_DENY_READ, ...this.extraDeny, ...settings.denyRead];
    const writable = folders.map(realOrSelf);
    const readOnly = existing(writable.flatMap((w) => PROTECTED_IN_RUN_FOLDER.map((p) => path.join(w, p))))
      .map((p) => p.path)
      .filter((p) => writable.some((w) => p.startsWith(`${w}${path.sep}`)));
    return { kind: 'sandboxed', writable, denyRead: existing(deny.map((p) => this.expand(p))), readOnly, settings, available };
  }

  /** The person's view of `plan`, in one line (it fits an approval's question): what the command may touch. */
  describe(plan: SandboxPlan): string {
    if (plan.kind === 'unsandboxed') return `Runs unsandboxed, with all of your rights: ${plan.reason}.`;
    const { settings } = plan;
    const denied = [...BUILTIN_DENY_READ, ...settings.denyRead];
    const network = settings.networkAllow.length > 0 ? `only ${settings.networkAllow.join(', ')}` : 'none';
    const env = settings.envAllow.length > 0 ? ` (but ${settings.envAllow.join(', ')})` : '';
    return (
      `Runs sandboxed: writes only in ${plan.writable.join(', ')} and its own /tmp; cannot read ${denied.slice(0, 3).join(', ')}, ${denied.length - 3} more secret stores or the editor's storage; ` +
      `network: ${network}, loopback ${settings.allowLoopback ? 'open' : 'closed'}; secret-looking variables withheld${env}.`
    );
  }

  /**
   * `program args` ready to spawn under `plan`, with `extraEnv` (the caller's own variables)
   * set. A sandbox that cannot be set up is SANDBOX_FAILED; nothing is then started.
   */
  async launch(plan: SandboxPlan, program: string, args: readonly string[], cwd: string, extraEnv: Record<string, string>): Promise<SandboxLaunch> {
    if (plan.kind === 'unsandboxed') {
      return { program, args: [...args], env: { ...stringEnv(process.env), ...extraEnv }, sandboxed: false, blockedHosts: () => [], dispose: () => undefined };
    }
    let own: string | undefined;
    let filter: NetworkFilter | undefined;
    try {
      own = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-sandbox-'));
      const socket = path.join(own, 'net.sock');
      filter = new NetworkFilter({ allow: plan.settings.networkAllow, allowLoopback: plan.settings.allowLoopback });
      await filter.listen(socket);
      const options = bwrapArgs({ writable: plan.writable, denyRead: plan.denyRead, readOnly: plan.readOnly, cwd, proxySocket: socket, disableUserns: plan.available.disableUserns });
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

  private expand(p: string): string {
    if (p === '~') return this.home;
    if (p.startsWith('~/')) return path.join(this.home, p.slice(2));
    return path.resolve(p);
  }
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

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
