import { sandboxPart } from '../parts';
import type { SandboxAvailability } from './availability';
import type { SandboxSettings } from './settings';
import type { SandboxLaunch, SandboxPlan } from './types';

export type { SandboxLaunch, SandboxPlan } from './types';

/** The core's default when no settings are given: off (the editor gives `preferred`). */
const OFF: SandboxSettings = { mode: 'off', autoAllow: false, networkAllow: [], allowLoopback: false, denyRead: [], envAllow: [] };

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
 * This class is what the editor holds from its start; what a sandboxed plan holds, its words and
 * starting a command in it are the sandbox part (sandboxRun.ts), loaded by the first command.
 */

export interface CommandSandboxOptions {
  /** The settings, or how to read them on first use (the editor's start does not parse them). */
  settings?: SandboxSettings | (() => SandboxSettings);
  /** More paths never readable (the editor's storage and secret store). */
  denyRead?: readonly string[];
  /** The home folder `~` names (the user's by default). */
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
  private readonly home: string | undefined;
  private readonly availability: () => Promise<SandboxAvailability>;
  private known: SandboxAvailability | undefined;
  private readonly onUnsandboxed: ((reason: string) => void) | undefined;
  private toldUnsandboxed = false;

  constructor(options: CommandSandboxOptions = {}) {
    this.source = options.settings ?? OFF;
    this.extraDeny = options.denyRead ?? [];
    this.home = options.home;
    this.availability = options.availability ?? (() => sandboxPart().sandboxAvailability());
    this.onUnsandboxed = options.onUnsandboxed;
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
    const plan = sandboxPart().planOn(available, folders, settings, this.extraDeny, this.home);
    if (plan.kind === 'unsandboxed' && !this.toldUnsandboxed) {
      this.toldUnsandboxed = true;
      this.onUnsandboxed?.(plan.reason);
    }
    return plan;
  }

  /** The person's view of `plan`, in one line (it fits an approval's question): what the command may touch. */
  describe(plan: SandboxPlan): string {
    return sandboxPart().describePlan(plan);
  }

  /** What a command's result says about the sandbox: whether it ran in one, and what it blocked. */
  report(plan: SandboxPlan, output: string, blockedHosts: readonly string[]): Record<string, unknown> {
    return sandboxPart().sandboxReport(plan, output, blockedHosts);
  }

  /**
   * `program args` ready to spawn under `plan`, with `extraEnv` (the caller's own variables)
   * set. A sandbox that cannot be set up is SANDBOX_FAILED; nothing is then started.
   */
  async launch(plan: SandboxPlan, program: string, args: readonly string[], cwd: string, extraEnv: Record<string, string>): Promise<SandboxLaunch> {
    return sandboxPart().launchSandboxed(plan, program, args, cwd, extraEnv);
  }
}
