import type { SandboxAvailability } from './availability';
import type { SandboxSettings } from './settings';

/** How a command will run: what the person is shown and what then bounds it (see commandSandbox.ts). */
export type SandboxPlan =
  | {
      kind: 'sandboxed';
      /** Real paths the command may write. */
      writable: string[];
      denyRead: Array<{ path: string; folder: boolean }>;
      /** Existing real paths inside the writable folders that stay read-only (see sandboxPlan.ts). */
      readOnly: string[];
      /**
       * Real folders under /tmp that hold the program itself (an external agent installed or
       * checked out there): shown read-only, since the sandbox's own /tmp would hide them.
       */
      programs?: string[];
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

